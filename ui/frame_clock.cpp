#include "ui/frame_clock.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/io/file_io.h"
#include "ui/exception_guard.h"

namespace servescope::ui {
namespace {

constexpr int kTickMs = 16;

double quantile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

FrameClock::FrameClock(QString path, QObject* parent) : QObject(parent), path_(std::move(path)) {
  csv_ = "minute,ticks,p50_ms,p99_ms,max_ms\n";
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, [this] {
    // A log that cannot be written (a full disk) stops the clock with the reason, once.
    if (const auto error = run_guarded([&] { tick(); }); !error.isEmpty()) {
      timer_.stop();
      report_error(tr("the frame log stopped: %1").arg(error));
    }
  });
  timer_.start(kTickMs);
  since_tick_.start();
  since_start_.start();
}

FrameClock::~FrameClock() {
  // The last minute's write finishes; its failure has nobody left to tell.
  if (written_.valid()) static_cast<void>(run_guarded([&] { written_.get(); }));
}

void FrameClock::tick() {
  gaps_ms_.push_back(static_cast<double>(since_tick_.nsecsElapsed()) / 1e6);
  since_tick_.start();
  if (since_start_.elapsed() >= 60'000LL * (minute_ + 1)) summarise();
}

void FrameClock::summarise() {
  ++minute_;
  const auto max = gaps_ms_.empty() ? 0.0 : *std::ranges::max_element(gaps_ms_);
  char line[160];
  std::snprintf(line, sizeof line, "%d,%zu,%.1f,%.1f,%.1f\n", minute_, gaps_ms_.size(), quantile(gaps_ms_, 0.5),
                quantile(gaps_ms_, 0.99), max);
  csv_ += line;
  gaps_ms_.clear();
  // The previous minute's write failed: say so here, on the loop (tick's guard reports it).
  if (written_.valid()) written_.get();
  written_ = std::async(std::launch::async, [path = path_.toStdString(), csv = csv_] { write_output_file(path, csv); });
}

}  // namespace servescope::ui

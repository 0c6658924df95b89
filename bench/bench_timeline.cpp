// Timeline paint and load (BENCHMARKS.md "Timeline"): 1,000,000 batches on 64 vGPUs, painted at
// 1920 px wide into an image on the offscreen platform at zooms from the whole run down to a
// few milliseconds while panning, median paint under 16 ms; and a run of 1,000,000 requests
// opened (its timeline file read, checked and indexed, the view set up) under 2 s.
//
// Not Google Benchmark: each figure is a median over repeated paints of changing windows, which
// is what a user panning sees, and the load is one cold pass. Prints Markdown for BENCHMARKS.md.
#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string_view>

#include "engine/timeline/timeline_data.h"
#include "engine/timeline/timeline_index.h"
#include "tests/support/timeline_chunks.h"
#include "widgets/timeline_view.h"

namespace {

using servescope::Duration;
using servescope::engine::TimelineData;
using servescope::engine::TimelineSpan;

// `spans` batches of `batch` requests on `slots` vGPUs (4 per GPU), back to back with small
// gaps, 1.5–6 ms each: a busy cluster. Every request is listed (id, arrival, deadline), as a
// simulated run's timeline lists them.
TimelineData synthetic(std::size_t spans, std::uint32_t slots, std::uint32_t batch) {
  TimelineData t;
  t.system = "synthetic";
  for (int m = 0; m < 37; ++m)
    t.models.push_back("model-" + std::to_string(m));
  t.model_slo.assign(t.models.size(), Duration::milliseconds(50));
  for (std::uint32_t g = 0; g < slots; ++g) {
    t.gpus.emplace_back("gpu" + std::to_string(g / 4) + "/v" + std::to_string(g % 4));
    t.gpu_physical.push_back(g / 4);
    t.gpu_shares.emplace_back("1/4");
    t.gpu_types.emplace_back("A100");
  }
  for (std::uint32_t p = 0; p < (slots + 3) / 4; ++p)
    t.physical_names.push_back("gpu" + std::to_string(p));
  std::mt19937_64 rng(1);
  std::vector<Duration> at(slots);
  t.spans.reserve(spans);
  std::uint64_t request = 0;
  for (std::size_t i = 0; i < spans; ++i) {
    const auto g = static_cast<std::uint32_t>(i % slots);
    const auto len = Duration::microseconds(1500 + static_cast<std::int64_t>(rng() % 4500));
    t.spans.push_back({i,
                       g,
                       static_cast<std::uint32_t>(rng() % 37),
                       batch,
                       at[g],
                       at[g] + len,
                       false,
                       rng() % 50 == 0 ? 1u : 0u,
                       request,
                       {},
                       {},
                       t.requests.size()});
    for (std::uint32_t k = 0; k < batch; ++k) {  // each request waited up to 2 ms, 50 ms SLO
      const auto arrival = at[g] - Duration::microseconds(static_cast<std::int64_t>(rng() % 2000));
      t.requests.push_back({request + k, arrival, arrival + Duration::milliseconds(50)});
    }
    request += batch;
    at[g] = at[g] + len + Duration::microseconds(static_cast<std::int64_t>(rng() % 300));
  }
  std::ranges::stable_sort(t.spans, [](const TimelineSpan& a, const TimelineSpan& b) {
    return a.start < b.start || (a.start == b.start && a.gpu < b.gpu);
  });
  for (const auto& s : t.spans)
    t.end = std::max(t.end, s.end);
  return t;
}

double median(std::vector<double> v) {
  std::ranges::sort(v);
  return v[v.size() / 2];
}

double percentile(std::vector<double> v, double p) {
  std::ranges::sort(v);
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p / 100 * static_cast<double>(v.size())))];
}

// The Live tab's path (ui/live_view.cpp): six minutes of a busy run streamed in 250 ms chunks
// (batches as they ended, each with its requests), appended to the view; the oldest detail let
// go a quarter of the two minutes kept at a time. Prints what an append and a letting-go cost.
void live_growth() {
  const auto run = synthetic(1'600'000, 16, 2);
  const auto chunks = servescope::test::chunks_of(run, Duration::milliseconds(250));
  servescope::widgets::TimelineView view;
  view.resize(1920 + view.label_width(), 1080);
  view.set_timeline(std::make_shared<const TimelineData>(servescope::test::layout_of(run)));
  const std::int64_t history_ns = 120'000'000'000;
  std::vector<double> appends, forgets;
  std::size_t most_kept = 0;
  QElapsedTimer clock;
  for (const auto& chunk : chunks) {
    clock.restart();
    view.append(chunk);
    appends.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
    const auto& t = *view.timeline();
    const auto end = t.end.count_ns();
    if (!t.spans.empty() && end - t.spans.front().start.count_ns() > history_ns + history_ns / 4) {
      clock.restart();
      view.forget_before(end - history_ns);
      forgets.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
    }
    most_kept = std::max(most_kept, t.spans.size());
  }
  std::printf("## Timeline: a live run growing (`bench_timeline`)\n\n");
  std::printf(
      "%.1f s of a run of %zu batches of 2 requests on 16 vGPUs (%.0f requests/s), appended in %zu chunks of "
      "250 ms as the Live tab takes them, two minutes kept (at most %zu batches):\n\n",
      static_cast<double>(run.end.count_ns()) / 1e9, run.spans.size(),
      static_cast<double>(run.request_count()) / (static_cast<double>(run.end.count_ns()) / 1e9), chunks.size(),
      most_kept);
  std::printf("| step | times | median | p99 | max |\n|---|---|---|---|---|\n");
  std::printf("| append a chunk | %zu | %.2f ms | %.2f ms | %.2f ms |\n", appends.size(), median(appends),
              percentile(appends, 99), *std::ranges::max_element(appends));
  if (!forgets.empty())
    std::printf("| let go of 30 s | %zu | %.2f ms | %.2f ms | %.2f ms |\n", forgets.size(), median(forgets),
                percentile(forgets, 99), *std::ranges::max_element(forgets));
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  // `bench_timeline --live`: only the live run's growth.
  if (argc > 1 && std::string_view(argv[1]) == "--live") {
    live_growth();
    return 0;
  }

  auto data = std::make_shared<TimelineData>(synthetic(1'000'000, 64, 1));
  servescope::widgets::TimelineView view;
  view.resize(1920 + view.label_width(), 1080);
  QElapsedTimer clock;
  clock.start();
  view.set_timeline(data);
  const double setup_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
  // As a user looks at it: a batch selected (its flow drawn), the rows' utilisation sparklines,
  // the overview strip of late batches and drops.
  view.select(static_cast<std::uint32_t>(data->spans.size() / 2));

  const auto end = data->end.count_ns();
  std::printf("## Timeline: paint and load (`bench_timeline`)\n\n");
  std::printf(
      "1,000,000 batches on 64 vGPUs (%.1f s of run), painted into a %d×%d image with a batch selected\n"
      "(its flow drawn), sparklines and the overview strip; each row is the median of 60 paints while\n"
      "panning across the run at that zoom.\n\n",
      static_cast<double>(end) / 1e9, view.width(), view.height());
  std::printf("| visible window | boxes drawn (median) | paint median | paint max |\n|---|---|---|---|\n");
  for (const double fraction : {1.0, 0.1, 0.01, 0.001}) {
    std::vector<double> times, drawn;
    const auto width = static_cast<std::int64_t>(static_cast<double>(end) * fraction);
    for (int k = 0; k < 60; ++k) {
      const auto from = fraction >= 1 ? 0 : (end - width) * k / 60;
      view.set_window(from, from + width);
      clock.restart();
      QPainter painter(&image);
      view.render(&painter);
      painter.end();
      times.push_back(static_cast<double>(clock.nsecsElapsed()) / 1e6);
      drawn.push_back(static_cast<double>(view.boxes_painted()));
    }
    std::printf("| %.4g s | %.0f | %.2f ms | %.2f ms |\n", static_cast<double>(width) / 1e9, median(drawn),
                median(times), *std::ranges::max_element(times));
  }
  std::printf("\nSetting a million-batch timeline on the view (index, lanes): %.0f ms.\n\n", setup_ms);

  // Opening a run of 1,000,000 requests: in batches of 4 (a batching system) and of 1 (every
  // request its own batch, the worst case), written as a timeline file as rows (simulate
  // --timeline) and packed (what a project keeps), then read, checked, indexed and shown.
  const auto file = (std::filesystem::temp_directory_path() / "servescope-bench-timeline.json").string();
  using servescope::engine::TimelineEncoding;
  for (const auto& [batch, encoding] :
       {std::pair{4u, TimelineEncoding::Rows}, std::pair{1u, TimelineEncoding::Rows},
        std::pair{4u, TimelineEncoding::Packed}, std::pair{1u, TimelineEncoding::Packed}}) {
    {
      const auto run = synthetic(1'000'000 / batch, 64, batch);
      std::ofstream(file) << servescope::engine::to_json(run, encoding).dump();
    }
    clock.restart();
    auto loaded = std::make_shared<servescope::engine::TimelineData>(servescope::engine::load_timeline(file));
    const double read_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    view.set_timeline(loaded);
    const double open_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    std::printf(
        "Opening a run of %llu requests in %zu batches (%.1f MiB timeline file, %s): read and checked in %.0f ms, "
        "shown in %.0f ms in all.\n\n",
        static_cast<unsigned long long>(loaded->request_count()), loaded->spans.size(),
        static_cast<double>(std::filesystem::file_size(file)) / (1 << 20),
        encoding == TimelineEncoding::Packed ? "packed" : "rows", read_ms, open_ms);
  }
  std::filesystem::remove(file);
  live_growth();
  return 0;
}

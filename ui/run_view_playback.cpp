// The Run tab's playback (README "The GUI", Run tab): a "now" line that moves at the chosen speed
// and can follow, pause and jump to the next SLO violation after the run's warm-up, keeping the
// zoom the user chose and scrolling to the row where it happened.
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <algorithm>

#include "ui/run_view.h"
#include "widgets/time_axis.h"
#include "widgets/timeline_view.h"

namespace servescope::ui {

void RunView::play(bool on) {
  if (on && !view_->timeline()) on = false;
  if (on && !view_->now_ns()) view_->set_now(view_->from_ns());
  if (on)
    clock_->start();
  else
    clock_->stop();
  const QSignalBlocker quiet(play_);
  play_->setChecked(on);
  play_->setText(on ? tr("Pause") : tr("Play"));
}

bool RunView::playing() const {
  return clock_->isActive();
}

void RunView::set_speed(double factor) {
  const QSignalBlocker quiet(speed_);
  speed_->setValue(factor);
}

void RunView::advance(std::int64_t wall_ns) {
  const auto* t = view_->timeline();
  if (!t || !view_->now_ns()) return;
  const auto now = *view_->now_ns() + static_cast<std::int64_t>(static_cast<double>(wall_ns) * speed_->value());
  view_->set_now(now);
  if (now >= t->end.count_ns()) play(false);  // the end of the run
  // Follow: keep "now" at three quarters of the window, the way a live view scrolls.
  const auto width = view_->to_ns() - view_->from_ns();
  if (follow_->isChecked() && (now > view_->to_ns() - width / 4 || now < view_->from_ns()))
    view_->set_window(now - width * 3 / 4, now + width / 4);
}

bool RunView::next_violation() {
  const auto* t = view_->timeline();
  if (!t) return false;
  // Nothing before the warm-up counts (its drops are the queues filling), so neither is it shown.
  const auto after = std::max(view_->now_ns().value_or(view_->from_ns()), warmup_ns_);
  // After the selected batch when it starts at "now" (other late batches may start then too),
  // else after "now".
  const auto selected = view_->selected();
  const auto from = selected && t->spans[*selected].start.count_ns() == after
                        ? t->spans.begin() + static_cast<std::ptrdiff_t>(*selected) + 1
                        : std::ranges::upper_bound(t->spans, after, {},
                                                   [](const engine::TimelineSpan& s) { return s.start.count_ns(); });
  const auto late =
      std::ranges::find_if(from, t->spans.end(), [](const engine::TimelineSpan& s) { return s.late > 0; });
  const auto drop =
      std::ranges::upper_bound(t->drops, after, {}, [](const engine::DropMark& d) { return d.time.count_ns(); });
  const bool have_late = late != t->spans.end(), have_drop = drop != t->drops.end();
  if (!have_late && !have_drop) {
    status_->setText(tr("No late batch or drop after %1").arg(widgets::format_duration(after)));
    return false;
  }
  // Whichever comes first: a batch that finished a request late, or a request dropped.
  if (have_late && (!have_drop || late->start <= drop->time)) {
    // At the zoom the user chose: the batch comes into view and its row is scrolled to.
    view_->set_now(late->start.count_ns());
    view_->select(static_cast<std::uint32_t>(late - t->spans.begin()));
    view_->reveal(late->start.count_ns(), late->gpu);
    status_->setText(tr("Late: %1 of %2 requests of %3 missed their deadline")
                         .arg(late->late)
                         .arg(late->size)
                         .arg(QString::fromStdString(t->models[late->model])));
    return true;
  }
  const auto at = drop->time.count_ns();
  view_->set_now(at);
  view_->select(std::nullopt);
  view_->reveal(at, std::nullopt, drop->model);  // drops are marked on their model's queue row
  status_->setText(tr("Dropped at %1: a request of %2 (%3)")
                       .arg(widgets::format_duration(at), QString::fromStdString(t->models[drop->model]),
                            QString::fromUtf8(engine::to_string(drop->reason).data())));
  return true;
}

}  // namespace servescope::ui

// The Run tab's playback (README "The GUI", Run tab): a "now" line that moves at the chosen speed
// and can follow, pause and jump to the next SLO violation after the run's warm-up, keeping the
// zoom the user chose and scrolling to the row where it happened.
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <algorithm>
#include <tuple>

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
  // The first late batch and the first drop after `from_ns`; a batch starting at `from_ns` counts
  // when it comes after the selected one (other late batches may start then too).
  const auto search = [&](std::int64_t from_ns, std::optional<std::uint32_t> selected) {
    const auto from = selected && t->spans[*selected].start.count_ns() == from_ns
                          ? t->spans.begin() + static_cast<std::ptrdiff_t>(*selected) + 1
                          : std::ranges::upper_bound(t->spans, from_ns, {},
                                                     [](const engine::TimelineSpan& s) { return s.start.count_ns(); });
    const auto late =
        std::ranges::find_if(from, t->spans.end(), [](const engine::TimelineSpan& s) { return s.late > 0; });
    const auto drop =
        std::ranges::upper_bound(t->drops, from_ns, {}, [](const engine::DropMark& d) { return d.time.count_ns(); });
    return std::pair{late, drop};
  };
  auto [late, drop] = search(after, view_->selected());
  // Past the last one: round again from the end of the warm-up, and say so.
  bool wrapped = false;
  if (late == t->spans.end() && drop == t->drops.end()) {
    std::tie(late, drop) = search(warmup_ns_ - 1, std::nullopt);
    wrapped = true;
  }
  const bool have_late = late != t->spans.end(), have_drop = drop != t->drops.end();
  if (!have_late && !have_drop) {
    view_->mark_rows({});
    status_->setText(tr("No late batch or drop after the %1 warm-up").arg(widgets::format_duration(warmup_ns_)));
    return false;
  }
  const auto note = wrapped ? tr(" (past the last one: back to the start of the run)") : QString();
  // Whichever comes first: a batch that finished a request late, or a request dropped.
  if (have_late && (!have_drop || late->start <= drop->time)) {
    // At the zoom the user chose: the batch comes into view, its row is scrolled to and marked.
    view_->set_now(late->start.count_ns());
    view_->select(static_cast<std::uint32_t>(late - t->spans.begin()));
    view_->reveal(late->start.count_ns(), late->gpu);
    view_->mark_rows({late->gpu});
    status_->setText(tr("Late: %1 of %2 requests of %3 missed their deadline")
                         .arg(late->late)
                         .arg(late->size)
                         .arg(QString::fromStdString(t->models[late->model])) +
                     note);
    return true;
  }
  // Drops at one instant are one stop: the next press moves to the next instant.
  const auto at = drop->time.count_ns();
  const auto same = std::ranges::upper_bound(drop, t->drops.end(), at, {},
                                             [](const engine::DropMark& d) { return d.time.count_ns(); }) -
                    drop;
  view_->set_now(at);
  view_->select(std::nullopt);
  view_->mark_rows({});
  view_->reveal(at, std::nullopt, drop->model);  // drops are marked on their model's queue row
  const auto when = widgets::format_duration(at), model = QString::fromStdString(t->models[drop->model]),
             why = QString::fromUtf8(engine::to_string(drop->reason).data());
  status_->setText((same > 1 ? tr("%1 requests dropped at %2, the first of %3 (%4)").arg(same).arg(when, model, why)
                             : tr("Dropped at %1: a request of %2 (%3)").arg(when, model, why)) +
                   note);
  return true;
}

}  // namespace servescope::ui

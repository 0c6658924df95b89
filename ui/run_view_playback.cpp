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
#include "widgets/timeline_violations.h"

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
  QString said;
  const bool found = widgets::go_to_next_violation(*view_, warmup_ns_, &said);
  status_->setText(said);
  return found;
}

}  // namespace servescope::ui

#include "widgets/timeline_view_state.h"

#include <QAction>
#include <QDateTime>
#include <algorithm>

namespace servescope::widgets {

TimelineViewState::TimelineViewState(QObject* parent)
    : QObject(parent),
      back_action_(new QAction(tr("◀ Back"), this)),
      forward_action_(new QAction(tr("Forward ▶"), this)),
      fit_action_(new QAction(tr("Fit"), this)),
      range_action_(new QAction(tr("Zoom to range"), this)),
      clear_range_action_(new QAction(tr("Clear range"), this)) {
  back_action_->setToolTip(tr("Back to the previous zoom (Alt+←)"));
  forward_action_->setToolTip(tr("Forward to the next zoom (Alt+→)"));
  fit_action_->setToolTip(tr("Show the whole run (0)"));
  range_action_->setToolTip(tr("Zoom to the marked range"));
  clear_range_action_->setToolTip(tr("Forget the marked range"));
  connect(back_action_, &QAction::triggered, this, &TimelineViewState::back);
  connect(forward_action_, &QAction::triggered, this, &TimelineViewState::forward);
  connect(fit_action_, &QAction::triggered, this, &TimelineViewState::fit);
  connect(range_action_, &QAction::triggered, this, &TimelineViewState::zoom_to_range);
  connect(clear_range_action_, &QAction::triggered, this, [this] { set_range(std::nullopt); });
  update_actions();
}

void TimelineViewState::reset(std::int64_t end_ns) {
  start_ = 0;
  end_ = std::max(end_ns, kMinWindowNs);
  history_.clear();
  history_pos_ = 0;
  in_gesture_ = false;
  range_.reset();
  Q_EMIT extentChanged(end_);
  Q_EMIT rangeChanged(range_);
  place(whole_run().from_ns, whole_run().to_ns);  // the program's fit: a live view keeps following
  push_history();
}

void TimelineViewState::grow(std::int64_t end_ns) {
  if (end_ns <= end_) return;
  end_ = end_ns;
  Q_EMIT extentChanged(end_);
}

void TimelineViewState::forget_before(std::int64_t start_ns) {
  if (start_ns <= start_) return;
  start_ = std::min(start_ns, end_ - kMinWindowNs);
  Q_EMIT extentChanged(end_);
}

bool TimelineViewState::place(std::int64_t from_ns, std::int64_t to_ns) {
  const std::int64_t width = std::clamp<std::int64_t>(to_ns - from_ns, kMinWindowNs, end_ * 10);
  // Keep some of the run in view.
  from_ns = std::clamp<std::int64_t>(from_ns, -width + kMinWindowNs, end_ - kMinWindowNs);
  const TimeRange next{from_ns, from_ns + width};
  if (next == window_) return false;
  window_ = next;
  Q_EMIT windowChanged(window_.from_ns, window_.to_ns);
  return true;
}

void TimelineViewState::push_history() {
  history_.resize(std::min(history_.size(), history_pos_ + 1));
  if (history_.empty() || history_.back() != window_) history_.push_back(window_);
  history_pos_ = history_.size() - 1;
  update_actions();
  Q_EMIT historyChanged();
}

void TimelineViewState::set_window(std::int64_t from_ns, std::int64_t to_ns) {
  in_gesture_ = false;
  if (place(from_ns, to_ns)) Q_EMIT userMovedWindow();
  push_history();
}

void TimelineViewState::move_window(std::int64_t from_ns, std::int64_t to_ns) {
  in_gesture_ = false;
  if (place(from_ns, to_ns)) Q_EMIT userMovedWindow();
}

void TimelineViewState::commit_window() {
  if (history_.empty() || history_[history_pos_] != window_) push_history();
}

void TimelineViewState::step_window(std::int64_t from_ns, std::int64_t to_ns) {
  const auto now = QDateTime::currentMSecsSinceEpoch();
  const bool continuing = in_gesture_ && now - last_step_ms_ < kGestureGapMs && !history_.empty();
  if (place(from_ns, to_ns)) Q_EMIT userMovedWindow();
  if (continuing) {
    history_[history_pos_] = window_;
  } else {
    push_history();
  }
  in_gesture_ = true;
  last_step_ms_ = now;
}

void TimelineViewState::follow_window(std::int64_t from_ns, std::int64_t to_ns) {
  in_gesture_ = false;
  place(from_ns, to_ns);
}

void TimelineViewState::fit() {
  set_window(whole_run().from_ns, whole_run().to_ns);
}

bool TimelineViewState::step_history(std::size_t to) {
  history_pos_ = to;
  in_gesture_ = false;
  if (place(history_[to].from_ns, history_[to].to_ns)) Q_EMIT userMovedWindow();
  update_actions();
  Q_EMIT historyChanged();
  return true;
}

bool TimelineViewState::back() {
  return can_go_back() && step_history(history_pos_ - 1);
}

bool TimelineViewState::forward() {
  return can_go_forward() && step_history(history_pos_ + 1);
}

void TimelineViewState::set_range(std::optional<TimeRange> range) {
  if (range && range->to_ns < range->from_ns) std::swap(range->from_ns, range->to_ns);
  if (range && range->length_ns() <= 0) range.reset();
  if (range == range_) return;
  range_ = range;
  update_actions();
  Q_EMIT rangeChanged(range_);
}

void TimelineViewState::zoom_to_range() {
  if (!range_) return;
  const auto margin = std::max<std::int64_t>(range_->length_ns() / 8, kMinWindowNs / 2);
  set_window(range_->from_ns - margin, range_->to_ns + margin);
}

std::optional<std::uint32_t> TimelineViewState::selected_in(const engine::TimelineData* timeline) const {
  if (!selection_ || !timeline || selection_->timeline != timeline) return std::nullopt;
  return selection_->span;
}

void TimelineViewState::select(std::optional<Selection> selection) {
  if (selection == selection_) return;
  selection_ = selection;
  Q_EMIT selectionChanged();
}

void TimelineViewState::set_filter(const QString& text) {
  const auto trimmed = text.trimmed();
  if (trimmed == filter_) return;
  filter_ = trimmed;
  Q_EMIT filterChanged(filter_);
}

void TimelineViewState::update_actions() {
  back_action_->setEnabled(can_go_back());
  forward_action_->setEnabled(can_go_forward());
  range_action_->setEnabled(range_.has_value());
  clear_range_action_->setEnabled(range_.has_value());
}

}  // namespace servescope::widgets

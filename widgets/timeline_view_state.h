// What every view of a run agrees on (Qt Creator's TimelineZoomControl and Hotspot's
// FilterAndZoomStack, docs gui-anchors §0 item 3): the run's extent, the window in view with its
// back/forward history, the marked time range, the selected batch and the filter. Views that
// share one state move together without following each other (the Compare tab's timelines, the
// Run tab's timeline and its range summary); the ready QActions give buttons and menus their
// enabled state for free.
//
// Who moved the window matters to a live view, which stops following the present when the user
// looks back: userMovedWindow() is emitted for gestures and never for follow_window().
#pragma once

#include <QObject>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

class QAction;

namespace servescope::engine {
struct TimelineData;
}

namespace servescope::widgets {

// [from_ns, to_ns) since the run's start.
struct TimeRange {
  std::int64_t from_ns = 0, to_ns = 0;
  std::int64_t length_ns() const { return to_ns - from_ns; }
  bool operator==(const TimeRange&) const = default;
};

class TimelineViewState : public QObject {
  Q_OBJECT
 public:
  static constexpr std::int64_t kMinWindowNs = 1'000;  // 1 µs across a view at most zoomed in
  // Wheel steps this close together are one gesture, and one history entry.
  static constexpr std::int64_t kGestureGapMs = 600;

  explicit TimelineViewState(QObject* parent = nullptr);

  // A new run (or runs, compared): its end sets how far the window may go; history, range and
  // the window start afresh, fitted.
  void reset(std::int64_t end_ns);
  // The same run, grown (live): keeps window, history, range and selection.
  void grow(std::int64_t end_ns);
  // A live run's detail before `start_ns` was let go: fit() shows what is kept.
  void forget_before(std::int64_t start_ns);
  std::int64_t end_ns() const { return end_; }

  // The window in view.
  std::int64_t from_ns() const { return window_.from_ns; }
  std::int64_t to_ns() const { return window_.to_ns; }
  TimeRange window() const { return window_; }
  void set_window(std::int64_t from_ns, std::int64_t to_ns);   // a zoom of its own in the history
  void move_window(std::int64_t from_ns, std::int64_t to_ns);  // a drag in progress: no entry yet
  void commit_window();                                        // the drag ended: one entry
  // A wheel or key step: steps closer than kGestureGapMs replace the gesture's own entry.
  void step_window(std::int64_t from_ns, std::int64_t to_ns);
  // The program follows something (the present of a live run): no entry, no userMovedWindow().
  void follow_window(std::int64_t from_ns, std::int64_t to_ns);
  void fit();
  // The whole run (what is kept of it) with a small margin after its end: what fit() shows.
  TimeRange whole_run() const { return {start_, end_ + (end_ - start_) / 50}; }
  bool back();
  bool forward();
  bool can_go_back() const { return history_pos_ > 0; }
  bool can_go_forward() const { return history_pos_ + 1 < history_.size(); }

  // The marked range (a drag on the timeline, or M on a batch), shown with its duration and
  // summarised by the Run tab.
  const std::optional<TimeRange>& range() const { return range_; }
  void set_range(std::optional<TimeRange> range);
  void zoom_to_range();  // with a margin of an eighth each side

  // The selected batch: an index into `timeline`'s spans. Views of other runs (compared) ignore
  // it, since span indices mean nothing across runs.
  struct Selection {
    const engine::TimelineData* timeline = nullptr;
    std::uint32_t span = 0;
    bool operator==(const Selection&) const = default;
  };
  const std::optional<Selection>& selection() const { return selection_; }
  std::optional<std::uint32_t> selected_in(const engine::TimelineData* timeline) const;
  void select(std::optional<Selection> selection);

  // Model or GPU names to show (case-insensitive substring; empty shows all).
  const QString& filter() const { return filter_; }
  void set_filter(const QString& text);

  // Ready-made actions with their keys and enabled state.
  QAction* back_action() const { return back_action_; }
  QAction* forward_action() const { return forward_action_; }
  QAction* fit_action() const { return fit_action_; }
  QAction* zoom_to_range_action() const { return range_action_; }
  QAction* clear_range_action() const { return clear_range_action_; }

 Q_SIGNALS:
  void windowChanged(std::int64_t from_ns, std::int64_t to_ns);
  void userMovedWindow();
  void historyChanged();  // can_go_back() or can_go_forward() may differ
  void rangeChanged(const std::optional<servescope::widgets::TimeRange>& range);
  void selectionChanged();
  void filterChanged(const QString& text);
  void extentChanged(std::int64_t end_ns);

 private:
  bool place(std::int64_t from_ns, std::int64_t to_ns);  // clamps; true when the window moved
  void push_history();
  bool step_history(std::size_t to);  // back or forward to entry `to`
  void update_actions();

  std::int64_t start_ = 0, end_ = 1'000'000'000;
  TimeRange window_{0, 1'000'000'000};
  std::vector<TimeRange> history_;
  std::size_t history_pos_ = 0;
  bool in_gesture_ = false;
  std::int64_t last_step_ms_ = 0;
  std::optional<TimeRange> range_;
  std::optional<Selection> selection_;
  QString filter_;
  QAction* back_action_;
  QAction* forward_action_;
  QAction* fit_action_;
  QAction* range_action_;
  QAction* clear_range_action_;
};

}  // namespace servescope::widgets

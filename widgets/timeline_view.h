// What every virtual GPU did, when (README "The GUI", Run tab; Qt Creator's timeline and Hotspot's
// zoom stack, docs gui-anchors §0 items 1–3): one row per slot (vGPU, glet) grouped by physical
// GPU, a row of network transfers and one row per model's queue depth; batches as boxes coloured by
// model or by SLO outcome, the stages of one pipeline batch outlined together when one is selected
// (PPipe Fig. 12). Painting culls to the visible window through the engine's TimelineIndex and
// merges boxes narrower than a pixel into runs, so a million batches pan and zoom smoothly.
// Wheel zooms around the cursor, dragging pans, Shift+drag zooms to a range; every zoom is kept
// in a back/forward history.
#pragma once

#include <QColor>
#include <QWidget>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engine/timeline/timeline_data.h"
#include "engine/timeline/timeline_index.h"

namespace servescope::widgets {

// Model: a colour per model. SloOutcome: late or on time. Batch: a colour per request group, so
// a pooled pipeline's stages of one batch match across its partitions (PPipe Fig. 12).
enum class BoxColouring { Model, SloOutcome, Batch };

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  // The keys and gestures the view answers to (mousePressEvent, wheelEvent, keyPressEvent), for
  // help texts: the first kMouseGestures are the mouse's.
  struct KeyHelp {
    const char* keys;
    const char* does;
  };
  static std::span<const KeyHelp> key_help();
  static constexpr std::size_t kMouseGestures = 4;

  explicit TimelineView(QWidget* parent = nullptr);

  void set_timeline(std::shared_ptr<const engine::TimelineData> timeline);
  // The same run, grown (live mode): keeps the window, its history and the filter; the
  // selection is cleared (span indices move as batches are added).
  void update_timeline(std::shared_ptr<const engine::TimelineData> timeline);
  const engine::TimelineData* timeline() const { return data_.get(); }
  const engine::TimelineIndex& index() const { return index_; }

  // The visible time window [from, to) in ns since the run's start.
  std::int64_t from_ns() const { return from_; }
  std::int64_t to_ns() const { return to_; }
  void set_window(std::int64_t from_ns, std::int64_t to_ns);  // a zoom of its own in the history
  // The same without a history entry: for views that follow another's window.
  void show_window(std::int64_t from_ns, std::int64_t to_ns) { set_window_quiet(from_ns, to_ns); }
  void zoom_to_fit();
  void zoom_around(double x, double factor);  // factor > 1 zooms in; the time under x stays put
  bool back();
  bool forward();
  bool can_go_back() const { return history_pos_ > 0; }
  bool can_go_forward() const { return history_pos_ + 1 < history_.size(); }
  void zoom_to_selection();
  // Brings `at_ns` into view at the present zoom (centred when it was outside the window, one
  // history entry), and scrolls the rows so that `slot`'s row, or `model`'s queue row, shows.
  void reveal(std::int64_t at_ns, std::optional<std::uint32_t> slot, std::optional<std::uint32_t> model = {});
  // Whether `slot`'s row is whole in view: not scrolled away, not filtered out.
  bool row_in_view(std::uint32_t slot) const;

  void set_colouring(BoxColouring colouring);
  // Shows only batches of models, and rows of slots, whose names contain `text` (case
  // insensitive; empty shows everything). A text matching no model filters GPUs only.
  void set_filter(const QString& text);
  // A playback position, drawn as a line; std::nullopt hides it.
  void set_now(std::optional<std::int64_t> now_ns);
  std::optional<std::int64_t> now_ns() const { return now_; }

  std::optional<std::uint32_t> selected() const { return selected_; }
  void select(std::optional<std::uint32_t> span);
  // Geometry, for tests and tooltips.
  double x_of(std::int64_t t_ns) const;
  std::int64_t time_at(double x) const;
  std::optional<std::size_t> row_at(double y) const;        // index row under y, if any
  std::optional<std::uint32_t> span_at(QPointF pos) const;  // the batch under pos
  QString describe(std::uint32_t span) const;               // the tooltip text
  int label_width() const { return kLabelWidth; }
  double row_y(std::size_t index_row) const;                    // top of the row, when shown
  std::size_t boxes_painted() const { return boxes_painted_; }  // in the last paint
  // The NIC lanes ("NIC ↑ server", "NIC ↓ server") and how many transfers each carried.
  std::vector<std::pair<QString, std::size_t>> nic_lanes() const;

  QSize sizeHint() const override { return {1200, 600}; }

 Q_SIGNALS:
  void windowChanged(std::int64_t from_ns, std::int64_t to_ns);
  // The zoom history moved or grew: can_go_back() and can_go_forward() may have changed. Separate
  // from windowChanged, which a zoom emits before its history entry is recorded.
  void historyChanged();
  void selectionChanged(std::optional<std::uint32_t> span);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;  // tooltips, palette changes
  void keyPressEvent(QKeyEvent* event) override;

 private:
  static constexpr int kLabelWidth = 190;
  static constexpr int kAxisHeight = 26;
  static constexpr int kRowHeight = 18;
  static constexpr int kQueueRowHeight = 30;

  struct Lane {
    enum class Kind { Slot, Network, Queue } kind = Kind::Slot;
    std::size_t index = 0;  // index row (Slot), model (Queue) or NIC lane (Network)
    double top = 0;         // from the first lane's top, before scrolling
    double height = 0;
  };
  void rebuild_rows();
  void scroll_to_lane(const Lane& lane);
  void adopt(std::shared_ptr<const engine::TimelineData> timeline);
  // The view works in integer nanoseconds, as the engine's times are.
  static std::int64_t ns(engine::Time t) { return t.count_ns(); }
  void paint_slot(QPainter& p, const Lane& lane, double y);
  void paint_slot_label(QPainter& p, std::uint32_t slot, double y);
  void paint_boxes(QPainter& p, std::size_t row, double top, double h);
  void paint_duty_cycle(QPainter& p, std::uint32_t slot, double top, double h);
  void paint_selection(QPainter& p, std::uint32_t slot, double top, double h);
  void paint_network(QPainter& p, const Lane& lane, double y);
  void paint_queue(QPainter& p, const Lane& lane, double y);
  void paint_axis(QPainter& p);
  QColor box_colour(std::uint32_t model, std::uint32_t late, bool preempted) const;
  QColor late_colour() const;
  void refresh_colours();
  const Lane* lane_at(double y) const;
  void set_window_quiet(std::int64_t from_ns, std::int64_t to_ns);
  void push_history();
  bool model_shown(std::uint32_t model) const;
  double ns_per_px() const;

  std::shared_ptr<const engine::TimelineData> data_;
  engine::TimelineIndex index_;
  std::vector<Lane> lanes_;                              // what is drawn, top to bottom
  std::vector<std::size_t> row_lane_;                    // per index row, its lane (SIZE_MAX: filtered out)
  std::vector<std::vector<std::uint32_t>> late_prefix_;  // per index row: late batches before position k
  std::vector<QColor> model_colours_;
  std::int64_t longest_transfer_ = 0;
  // A server's uplink or downlink: the transfers it carried, by start (all of them in one lane
  // when the timeline does not say which server a slot is on).
  struct NicLane {
    QString label;
    std::vector<std::uint32_t> transfers;
  };
  std::vector<NicLane> nic_lanes_;
  QString filter_;
  bool filter_names_models_ = false;                      // the filter matched model names (else it filters GPU rows)
  std::vector<bool> model_visible_;                       // per model, after the filter
  std::vector<std::vector<std::size_t>> queue_by_model_;  // indices into data_->queue
  std::vector<std::vector<std::size_t>> drops_by_model_;  // indices into data_->drops
  std::int64_t from_ = 0, to_ = 1'000'000'000;
  std::vector<std::pair<std::int64_t, std::int64_t>> history_;
  std::size_t history_pos_ = 0;
  BoxColouring colouring_ = BoxColouring::Model;
  std::optional<std::int64_t> now_;
  std::optional<std::uint32_t> selected_;
  std::vector<std::uint32_t> linked_;  // the selection's pipeline stages
  double scroll_px_ = 0;               // how far the lanes are scrolled up
  bool wheeling_ = false;              // a wheel gesture replaces its own history entry
  qint64 last_wheel_ms_ = 0;
  // Mouse gestures.
  QPoint press_pos_;
  std::int64_t press_from_ = 0, press_to_ = 0;
  double press_scroll_ = 0;
  bool dragging_ = false, ranging_ = false;
  double range_x_ = 0;
  std::size_t boxes_painted_ = 0;
};

}  // namespace servescope::widgets

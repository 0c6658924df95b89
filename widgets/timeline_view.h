// What every virtual GPU did, when (README "The GUI", Run tab; Qt Creator's timeline and
// Perfetto's navigation, docs gui-anchors §0 items 1–3): one row per slot (vGPU, glet) grouped
// by physical GPU, whose groups collapse; a row per NIC; one row per model's queue depth; and an
// overview strip of late batches and drops over all rows, and a line at each thing the serving
// system said of itself (a worker lost, a plan switch). Batches are boxes coloured by model,
// SLO outcome or batch, the stages of a selected pipeline batch joined by flow arrows through
// the NICs that carried their feature maps (PPipe Fig. 12). Painting culls to the visible window
// through the engine's TimelineIndex and merges boxes narrower than a pixel into runs painted in
// their models' colours in proportion, so a million batches pan and zoom smoothly.
//
// The window, its history, the marked range, the selection and the filter live in a
// TimelineViewState, the view's own or one shared with other views.
#pragma once

#include <QColor>
#include <QImage>
#include <QWidget>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "engine/timeline/request_flow.h"
#include "engine/timeline/timeline_data.h"
#include "engine/timeline/timeline_growth.h"
#include "engine/timeline/timeline_index.h"
#include "widgets/timeline_view_state.h"

class QScrollBar;

namespace servescope::widgets {

// Model: a colour per model. SloOutcome: late or on time. Batch: a colour per request group, so
// a pooled pipeline's stages of one batch match across its partitions (PPipe Fig. 12).
enum class BoxColouring { Model, SloOutcome, Batch };

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  // The keys and gestures the view answers to (timeline_view_input.cpp), for help texts: the
  // first kMouseGestures are the mouse's.
  struct KeyHelp {
    const char* keys;
    const char* does;
  };
  static std::span<const KeyHelp> key_help();
  static constexpr std::size_t kMouseGestures = 7;

  explicit TimelineView(QWidget* parent = nullptr);

  // Shares `state` (not owned) with other views; null goes back to a state of the view's own.
  void set_state(TimelineViewState* state);
  TimelineViewState* state() const { return state_; }

  // A new run: the state starts afresh on it (TimelineViewState::reset).
  void set_timeline(std::shared_ptr<const engine::TimelineData> timeline);
  // The same run, grown by what a live deployment streamed since the last chunk (Qt Creator's
  // TimelineModel::insert): merged in by start, the index and caches extended from where the
  // new batches begin, so a refresh costs what arrived. Keeps the window, its history, the
  // range, the filter and the selection. A timeline someone else also holds is copied first.
  void append(engine::TimelineChunk chunk);
  // Lets go of detail that started before `t_ns` (a live run's bounded history); the selection
  // stays when its batch does.
  void forget_before(std::int64_t t_ns);
  const engine::TimelineData* timeline() const { return data_.get(); }
  const std::shared_ptr<const engine::TimelineData>& shared_timeline() const { return data_; }
  const engine::TimelineIndex& index() const { return index_; }
  // Bumped whenever the timeline shown changes (a new run, a chunk appended, history let go): what
  // was computed over it at another generation is stale, and may index spans that moved.
  std::uint64_t content_generation() const { return generation_; }

  // The visible time window [from, to) in ns since the run's start (the state's).
  std::int64_t from_ns() const { return state_->from_ns(); }
  std::int64_t to_ns() const { return state_->to_ns(); }
  void set_window(std::int64_t from_ns, std::int64_t to_ns) { state_->set_window(from_ns, to_ns); }
  void zoom_to_fit() { state_->fit(); }
  void zoom_around(double x, double factor);  // factor > 1 zooms in; the time under x stays put
  void pan(double fraction);                  // by a share of the window's width; < 0 goes back
  bool back() { return state_->back(); }
  bool forward() { return state_->forward(); }
  bool can_go_back() const { return state_->can_go_back(); }
  bool can_go_forward() const { return state_->can_go_forward(); }
  // Frames the selected batch and its pipeline stages, or else the marked range.
  void zoom_to_selection();
  // Marks the selected batch's extent (its stages' too) as the range; false without one.
  bool mark_selection();
  // Brings `at_ns` into view at the present zoom (centred when it was outside the window, one
  // history entry), and scrolls the rows so that `slot`'s row, or `model`'s queue row, shows.
  void reveal(std::int64_t at_ns, std::optional<std::uint32_t> slot, std::optional<std::uint32_t> model = {});
  // Whether `slot`'s row is whole in view: not scrolled away, not filtered out, not collapsed.
  bool row_in_view(std::uint32_t slot) const;
  // Marks the rows of `slots` (a plan part picked in the Plans tab: a pool's vGPUs, a glet) and
  // scrolls the first into view; an empty list clears the marks. A new run clears them too.
  void mark_rows(std::vector<std::uint32_t> slots);
  const std::set<std::uint32_t>& marked_rows() const { return marked_slots_; }
  // Finds `text`: a request id selects the first batch that carried it; otherwise the next batch
  // after the selection (or the window's start) whose model's name contains it. Selects and
  // reveals what it found and returns a line saying what; an empty string when nothing matched.
  QString find_next(const QString& text);

  void set_colouring(BoxColouring colouring);
  BoxColouring colouring() const { return colouring_; }
  // Shows only batches of models, and rows of slots, whose names contain `text` (case
  // insensitive; empty shows everything). A text matching no model filters GPUs only.
  void set_filter(const QString& text) { state_->set_filter(text); }
  // Collapses a physical GPU's slots into one row (or opens them again).
  void set_collapsed(std::uint32_t physical_gpu, bool collapsed);
  bool collapsed(std::uint32_t physical_gpu) const { return collapsed_.contains(physical_gpu); }
  // Draws the selected batch's flow (arrows between its stages and transfers); on by default.
  void set_flows_shown(bool shown);
  const std::vector<engine::FlowStep>& flow() const { return flow_; }
  // A playback position, drawn as a line; std::nullopt hides it.
  void set_now(std::optional<std::int64_t> now_ns);
  // Where the axis and the tool tips count from: a label reads time − origin. A live run's times
  // are on its own clock, which starts when the GUI joined; its origin is minus that start, so
  // every label reads the scheduler's clock.
  void set_time_origin(std::int64_t origin_ns);
  std::int64_t time_origin() const { return origin_ns_; }
  // What an empty view says (default: how to simulate a run); the Live tab says how to connect.
  void set_empty_text(const QString& text) {
    empty_text_ = text;
    update();
  }
  // A note drawn beside the playback line (teaching mode); empty hides it.
  // Shown only while the playback line is within [from_ns, to_ns]: a note about a moment of the
  // run, not one pinned over whatever the line passes next (Play, a video of the run).
  void set_annotation(const QString& text, std::int64_t from_ns, std::int64_t to_ns);
  // The note at `now_ns` ("" when none, or the line is past its moment).
  QString annotation_at(std::optional<std::int64_t> now_ns) const;
  std::optional<std::int64_t> now_ns() const { return now_; }

  std::optional<std::uint32_t> selected() const { return state_->selected_in(data_.get()); }
  void select(std::optional<std::uint32_t> span);
  // Geometry, for tests and tooltips.
  double x_of(std::int64_t t_ns) const;
  std::int64_t time_at(double x) const;
  std::optional<std::size_t> row_at(double y) const;        // index row under y, if any
  std::optional<std::uint32_t> span_at(QPointF pos) const;  // the batch under pos
  QString describe(std::uint32_t span) const;               // the tooltip text
  // The notices (engine::RunNotice) whose line is within a few pixels of `pos`, and their tool
  // tip: each one's time and the serving system's words.
  std::vector<std::size_t> notices_at(QPointF pos) const;
  QString describe_notices(const std::vector<std::size_t>& notices) const;
  int label_width() const { return kLabelWidth; }
  int plot_right() const;                     // the right edge of the time area
  double row_y(std::size_t index_row) const;  // top of the row, when shown
  double lanes_top() const { return kAxisHeight + kOverviewHeight; }
  std::size_t boxes_painted() const { return boxes_painted_; }  // in the last paint
  // The NIC lanes ("NIC ↑ server", "NIC ↓ server") and how many transfers each carried.
  std::vector<std::pair<QString, std::size_t>> nic_lanes() const;
  double scroll_px() const { return scroll_px_; }
  double content_height() const;  // all lanes, unscrolled
  // The content itself for exports: every row (unscrolled, no scroll bar) with its axis, over
  // `range` (the window in view when empty), `width` pixels wide and as tall as the rows need;
  // the colouring, filter, collapsed GPUs, selection and marked range as shown.
  QSize content_size(int width) const;
  void render_content(QPainter& p, int width, std::optional<TimeRange> range = {}) const;

  QSize sizeHint() const override { return {1200, 600}; }

 Q_SIGNALS:
  void windowChanged(std::int64_t from_ns, std::int64_t to_ns);
  // The zoom history moved or grew: can_go_back() and can_go_forward() may have changed.
  void historyChanged();
  void selectionChanged(std::optional<std::uint32_t> span);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;  // tooltips, palette changes
  void keyPressEvent(QKeyEvent* event) override;

 private:
  static constexpr int kLabelWidth = 190;
  static constexpr int kSparklineWidth = 40;  // at the label column's right
  static constexpr int kAxisHeight = 26;
  static constexpr int kOverviewHeight = 8;
  static constexpr int kRowHeight = 18;
  static constexpr int kQueueRowHeight = 30;

  struct Lane {
    enum class Kind { Slot, Group, Network, Queue } kind = Kind::Slot;
    std::size_t index = 0;  // index row (Slot; Group: its first row), model (Queue) or NIC lane
    std::size_t rows = 1;   // Group: how many index rows it stands for
    double top = 0;         // from the first lane's top, before scrolling
    double height = 0;
  };
  void connect_state();
  void rebuild_rows();
  void apply_filter();
  void scroll_to_lane(const Lane& lane);
  void scroll_to_slot(std::uint32_t slot);  // opens its GPU's group if collapsed
  bool lane_marked(const Lane& lane) const;
  void set_scroll(double px);
  void sync_scrollbar();
  void adopt(std::shared_ptr<const engine::TimelineData> timeline);
  // The caches over spans, transfers, queue samples and drops (timeline_view_growth.cpp).
  void reset_caches();
  void extend_caches(const engine::TimelineChange& change);
  void extend_nic_lanes(std::size_t from_transfer);
  void add_late_ends(std::span<const engine::TimelineSpan> spans);
  void refresh_sparklines();
  void selection_moved();
  std::optional<TimeRange> selection_extent() const;  // the selected batch with its flow
  std::uint32_t physical_of(std::uint32_t slot) const;
  // The view works in integer nanoseconds, as the engine's times are.
  static std::int64_t ns(engine::Time t) { return t.count_ns(); }
  void paint_slot(QPainter& p, const Lane& lane, double y);
  void paint_slot_label(QPainter& p, const Lane& lane, double y);
  void paint_sparkline(QPainter& p, std::size_t row, double y);
  void paint_boxes(QPainter& p, std::size_t row, double top, double h);
  void paint_duty_cycle(QPainter& p, std::uint32_t slot, double top, double h);
  void paint_selection(QPainter& p, std::uint32_t slot, double top, double h);
  void paint_network(QPainter& p, const Lane& lane, double y);
  void paint_queue(QPainter& p, const Lane& lane, double y);
  void paint_axis(QPainter& p);
  void paint_overview(QPainter& p);
  void paint_range(QPainter& p, double bottom);
  void paint_flow(QPainter& p);
  void paint_annotation(QPainter& p);
  void paint_notices(QPainter& p, double bottom);  // timeline_view_notices.cpp
  QColor notice_colour(const engine::RunNotice& notice) const;
  double lane_centre(const Lane* lane) const;
  const Lane* nic_lane(std::uint32_t n) const;
  QColor box_colour(std::uint32_t model, std::uint32_t late, bool preempted) const;
  QColor late_colour() const;
  void refresh_colours();
  const Lane* lane_at(double y) const;
  const Lane* lane_of_row(std::size_t row) const;
  bool model_shown(std::uint32_t model) const;
  double ns_per_px() const;
  // The point under the cursor to zoom around: the mouse when it is over the lanes, else the middle.
  double zoom_anchor_x() const;

  TimelineViewState* own_state_;
  TimelineViewState* state_;
  std::shared_ptr<const engine::TimelineData> data_;
  std::shared_ptr<engine::TimelineData> growing_;  // data_ itself, once the view grows it (append)
  std::uint64_t generation_ = 0;                   // content_generation()
  std::int64_t forgotten_before_ns_ = INT64_MIN;   // the history kept starts here (forget_before)
  engine::TimelineIndex index_;
  std::vector<Lane> lanes_;                                    // what is drawn, top to bottom
  std::vector<std::size_t> row_lane_;                          // per index row, its lane (SIZE_MAX: filtered out)
  std::vector<std::vector<std::uint32_t>> late_prefix_;        // per index row: late batches before position k
  std::vector<std::vector<float>> sparklines_;                 // per index row: busy share over the run
  std::int64_t sparkline_from_ns_ = 0, sparkline_end_ns_ = 0;  // what sparklines_ cover
  struct Sparkline {
    QImage image;          // as painted, in the palette's colours
    std::size_t rows = 0;  // how many rows it averages (a collapsed GPU's)
  };
  std::vector<Sparkline> sparkline_cache_;  // per index row; emptied by a new run or palette
  std::vector<std::int64_t> late_ends_ns_;  // every late batch's end, sorted (overview)
  std::vector<QColor> model_colours_;
  std::int64_t longest_transfer_ = 0;
  // A server's uplink or downlink: the transfers it carried, by start (all of them in one lane
  // when the timeline does not say which server a slot is on).
  struct NicLane {
    QString label;
    std::vector<std::uint32_t> transfers;
  };
  std::vector<NicLane> nic_lanes_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> transfer_lanes_;  // per transfer: up and down NIC lane
  std::vector<std::uint32_t> server_nic_lane_;            // [2 × server + 0 up, 1 down]: its lane, or UINT32_MAX
  bool filter_names_models_ = false;                      // the filter matched model names (else it filters GPU rows)
  std::vector<bool> model_visible_;                       // per model, after the filter
  std::vector<std::vector<std::size_t>> queue_by_model_;  // indices into data_->queue
  std::vector<std::vector<std::size_t>> drops_by_model_;  // indices into data_->drops
  std::set<std::uint32_t> collapsed_;                     // physical GPUs shown as one row
  std::vector<std::uint32_t> group_size_;                 // per physical GPU: its slots
  BoxColouring colouring_ = BoxColouring::Model;
  std::optional<std::int64_t> now_;
  std::int64_t origin_ns_ = 0;
  QString annotation_;
  std::int64_t annotation_from_ns_ = 0, annotation_to_ns_ = 0;
  std::vector<std::uint32_t> linked_;  // the selection's pipeline stages
  std::vector<engine::FlowStep> flow_;
  bool flows_shown_ = true;
  std::set<std::uint32_t> marked_slots_;  // rows marked by mark_rows
  QString empty_text_;
  double scroll_px_ = 0;  // how far the lanes are scrolled up
  QScrollBar* vbar_;
  // Mouse gestures.
  enum class Gesture { None, Pan, Range, ZoomRange } gesture_ = Gesture::None;
  QPoint press_pos_;
  std::int64_t press_from_ = 0, press_to_ = 0;
  double press_scroll_ = 0;
  double range_x_ = 0;
  std::size_t boxes_painted_ = 0;
};

}  // namespace servescope::widgets

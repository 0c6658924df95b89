#include "widgets/timeline_view.h"

#include <QHelpEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "widgets/model_colors.h"
#include "widgets/time_axis.h"

namespace servescope::widgets {

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent), own_state_(new TimelineViewState(this)), state_(own_state_), vbar_(new QScrollBar(this)) {
  setObjectName(QStringLiteral("timelineView"));
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumSize(400, 200);
  vbar_->setObjectName(QStringLiteral("timelineRows"));
  vbar_->setOrientation(Qt::Vertical);
  vbar_->hide();
  connect(vbar_, &QScrollBar::valueChanged, this, [this](int value) { set_scroll(value); });
  connect_state();
  refresh_colours();
}

void TimelineView::set_state(TimelineViewState* state) {
  if (!state) state = own_state_;
  if (state == state_) return;
  disconnect(state_, nullptr, this, nullptr);
  state_ = state;
  connect_state();
  apply_filter();
  selection_moved();
}

void TimelineView::connect_state() {
  connect(state_, &TimelineViewState::windowChanged, this, [this](std::int64_t from, std::int64_t to) {
    update();
    Q_EMIT windowChanged(from, to);
  });
  connect(state_, &TimelineViewState::historyChanged, this, &TimelineView::historyChanged);
  connect(state_, &TimelineViewState::rangeChanged, this, [this] { update(); });
  connect(state_, &TimelineViewState::filterChanged, this, &TimelineView::apply_filter);
  connect(state_, &TimelineViewState::selectionChanged, this, &TimelineView::selection_moved);
}

void TimelineView::set_timeline(std::shared_ptr<const engine::TimelineData> timeline) {
  adopt(std::move(timeline));
  collapsed_.clear();
  marked_slots_.clear();
  scroll_px_ = 0;
  apply_filter();
  state_->reset(data_ ? ns(data_->end) : 1'000'000'000);
}

void TimelineView::refresh_colours() {
  model_colours_.clear();
  if (!data_) return;
  for (const auto& m : data_->models)
    model_colours_.push_back(color_for_name(QString::fromStdString(m), palette()));
}

bool TimelineView::model_shown(std::uint32_t model) const {
  return model < model_visible_.size() && model_visible_[model];
}

std::uint32_t TimelineView::physical_of(std::uint32_t slot) const {
  return slot < data_->gpu_physical.size() ? data_->gpu_physical[slot] : slot;
}

void TimelineView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  sync_scrollbar();
}

QSize TimelineView::content_size(int width) const {
  return {width, static_cast<int>(std::ceil(lanes_top() + content_height())) + 1};
}

void TimelineView::render_content(QPainter& p, int width, std::optional<TimeRange> range) const {
  // A view of our own at the export's size, so the one on screen keeps its scroll and window.
  TimelineView twin;
  twin.setAttribute(Qt::WA_DontShowOnScreen);
  twin.setPalette(palette());
  twin.set_timeline(data_);
  twin.colouring_ = colouring_;
  twin.collapsed_ = collapsed_;
  twin.flows_shown_ = flows_shown_;
  twin.now_ = now_;
  twin.annotation_ = annotation_;
  twin.annotation_from_ns_ = annotation_from_ns_;
  twin.annotation_to_ns_ = annotation_to_ns_;
  twin.origin_ns_ = origin_ns_;
  twin.state_->set_filter(state_->filter());
  twin.rebuild_rows();
  if (const auto chosen = selected()) twin.select(chosen);
  twin.state_->set_range(state_->range());
  twin.resize(content_size(width));
  const auto shown = range.value_or(state_->window());
  twin.state_->follow_window(shown.from_ns, shown.to_ns);
  twin.render(&p);
}

int TimelineView::plot_right() const {
  return width() - (vbar_->isVisible() ? vbar_->width() : 0);
}

double TimelineView::ns_per_px() const {
  const double width = std::max(1, plot_right() - kLabelWidth);
  return static_cast<double>(to_ns() - from_ns()) / width;
}

double TimelineView::x_of(std::int64_t t_ns) const {
  return kLabelWidth + static_cast<double>(t_ns - from_ns()) / ns_per_px();
}

std::int64_t TimelineView::time_at(double x) const {
  return from_ns() + static_cast<std::int64_t>(std::llround((x - kLabelWidth) * ns_per_px()));
}

const TimelineView::Lane* TimelineView::lane_at(double y) const {
  if (y < lanes_top()) return nullptr;
  const double at = y - lanes_top() + scroll_px_;
  const auto it = std::ranges::upper_bound(lanes_, at, {}, &Lane::top);
  if (it == lanes_.begin()) return nullptr;
  const auto& lane = *std::prev(it);
  return at < lane.top + lane.height ? &lane : nullptr;
}

const TimelineView::Lane* TimelineView::lane_of_row(std::size_t row) const {
  if (row >= row_lane_.size() || row_lane_[row] == SIZE_MAX) return nullptr;
  return &lanes_[row_lane_[row]];
}

std::optional<std::size_t> TimelineView::row_at(double y) const {
  const auto* lane = lane_at(y);
  if (!lane || lane->kind != Lane::Kind::Slot) return std::nullopt;
  return lane->index;
}

double TimelineView::row_y(std::size_t index_row) const {
  const auto* lane = lane_of_row(index_row);
  return lane ? lanes_top() + lane->top - scroll_px_ : -1;
}

std::optional<std::uint32_t> TimelineView::span_at(QPointF pos) const {
  if (!data_ || pos.x() < kLabelWidth || pos.x() >= plot_right()) return std::nullopt;
  const auto row = row_at(pos.y());
  if (!row) return std::nullopt;
  // A box drawn at least a pixel wide: accept the pixel it covers.
  const auto t = time_at(pos.x());
  const auto half_px = static_cast<std::int64_t>(std::ceil(ns_per_px() / 2));
  const auto [first, last] =
      index_.range(*row, engine::Time::nanoseconds(t - half_px), engine::Time::nanoseconds(t + half_px + 1));
  std::optional<std::uint32_t> best;
  for (auto k = first; k < last; ++k) {
    const auto i = index_.spans(*row)[k];
    const auto& s = data_->spans[i];
    if (!model_shown(s.model)) continue;
    if (ns(s.start) <= t + half_px && ns(s.end) >= t - half_px) best = i;
    if (ns(s.start) <= t && t < ns(s.end)) return i;  // an exact hit wins
  }
  return best;
}

QString TimelineView::describe(std::uint32_t span) const {
  const auto& s = data_->spans[span];
  const auto& slo = s.model < data_->model_slo.size() ? data_->model_slo[s.model] : Duration();
  QString text =
      // "batch 8399 of 1" read as the 8399th of one: the batch's number and its size apart.
      tr("<b>%1</b> batch #%2, %3, on %4")
          .arg(QString::fromStdString(data_->models[s.model]).toHtmlEscaped())
          .arg(s.batch)
          .arg(s.size == 1 ? tr("1 request") : tr("%1 requests").arg(s.size))
          .arg(QString::fromStdString(data_->gpus[s.gpu]).toHtmlEscaped()) +
      tr("<br>%1 → %2 (%3)")
          .arg(format_duration(ns(s.start) - origin_ns_), format_duration(ns(s.end) - origin_ns_),
               format_duration(ns(s.end - s.start)));
  if (slo > Duration()) text += tr("<br>SLO %1").arg(format_duration(ns(slo)));
  text += s.late > 0 ? tr("<br><b>%1 of %2 requests late</b>").arg(s.late).arg(s.size) : tr("<br>all on time");
  if (s.preempted) text += tr("<br>preempted: its work was lost");
  if (s.window_close > s.window_open)
    text += tr("<br>could start from %1 to %2 (schedulable window)")
                .arg(format_duration(ns(s.window_open) - origin_ns_), format_duration(ns(s.window_close) - origin_ns_));
  const auto stages = index_.linked(span);
  if (stages.size() > 1) text += tr("<br>stage of a %1-stage pipeline batch").arg(stages.size());
  return text;
}

QColor TimelineView::late_colour() const {
  return widgets::late_colour(palette());
}

QColor TimelineView::box_colour(std::uint32_t model, std::uint32_t late, bool preempted) const {
  if (colouring_ == BoxColouring::SloOutcome) {
    if (preempted) return palette().color(QPalette::Mid);
    return late > 0 ? late_colour() : on_time_colour(palette());
  }
  return model < model_colours_.size() ? model_colours_[model] : palette().color(QPalette::Mid);
}

void TimelineView::zoom_around(double x, double factor) {
  if (factor <= 0) return;
  const auto anchor = time_at(x);
  const double width = static_cast<double>(to_ns() - from_ns()) / factor;
  const auto from = anchor - static_cast<std::int64_t>(std::llround(static_cast<double>(anchor - from_ns()) / factor));
  state_->step_window(from, from + static_cast<std::int64_t>(std::llround(width)));
}

void TimelineView::pan(double fraction) {
  const auto by = static_cast<std::int64_t>(std::llround(static_cast<double>(to_ns() - from_ns()) * fraction));
  state_->step_window(from_ns() + by, to_ns() + by);
}

std::optional<TimeRange> TimelineView::selection_extent() const {
  const auto chosen = selected();
  if (!chosen || !data_) return std::nullopt;
  TimeRange extent{ns(data_->spans[*chosen].start), ns(data_->spans[*chosen].end)};
  for (const auto& step : flow_) {  // its pipeline stages and their transfers
    extent.from_ns = std::min(extent.from_ns, ns(step.start));
    extent.to_ns = std::max(extent.to_ns, ns(step.end));
  }
  return extent;
}

void TimelineView::zoom_to_selection() {
  const auto extent = selection_extent();
  if (!extent) {
    state_->zoom_to_range();
    return;
  }
  const auto margin = std::max<std::int64_t>(extent->length_ns() / 4, TimelineViewState::kMinWindowNs);
  set_window(extent->from_ns - margin, extent->to_ns + margin);
}

bool TimelineView::mark_selection() {
  const auto extent = selection_extent();
  if (extent) state_->set_range(extent);
  return extent.has_value();
}

void TimelineView::set_colouring(BoxColouring colouring) {
  colouring_ = colouring;
  update();
}

void TimelineView::set_flows_shown(bool shown) {
  flows_shown_ = shown;
  update();
}

void TimelineView::set_now(std::optional<std::int64_t> now_ns) {
  now_ = now_ns;
  update();
}

QString TimelineView::annotation_at(std::optional<std::int64_t> now_ns) const {
  if (!now_ns || *now_ns < annotation_from_ns_ || *now_ns > annotation_to_ns_) return {};
  return annotation_;
}

void TimelineView::set_time_origin(std::int64_t origin_ns) {
  origin_ns_ = origin_ns;
  update();
}

void TimelineView::set_annotation(const QString& text, std::int64_t from_ns, std::int64_t to_ns) {
  annotation_ = text;
  annotation_from_ns_ = from_ns;
  annotation_to_ns_ = to_ns;
  update();
}

void TimelineView::select(std::optional<std::uint32_t> span) {
  if (span && (!data_ || *span >= data_->spans.size())) span.reset();
  state_->select(span ? std::optional(TimelineViewState::Selection{data_.get(), *span}) : std::nullopt);
}

void TimelineView::selection_moved() {
  const auto chosen = selected();
  linked_ = chosen ? index_.linked(*chosen) : std::vector<std::uint32_t>{};
  flow_ = chosen ? engine::flow_of(*data_, index_, *chosen) : std::vector<engine::FlowStep>{};
  update();
  Q_EMIT selectionChanged(chosen);
}

bool TimelineView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    // A notice's words first (they say why), then the batch under them.
    QStringList parts;
    if (const auto notices = notices_at(help->pos()); !notices.empty()) parts << describe_notices(notices);
    if (const auto span = span_at(help->pos())) parts << describe(*span);
    if (!parts.isEmpty())
      QToolTip::showText(help->globalPos(), parts.join(QStringLiteral("<hr>")), this);
    else
      QToolTip::hideText();
    return true;
  }
  if (event->type() == QEvent::PaletteChange) {
    refresh_colours();  // colours follow the palette (dark mode)
    sparkline_cache_.assign(index_.rows(), {});
    update();
  }
  return QWidget::event(event);
}

}  // namespace servescope::widgets

#include "widgets/timeline_view.h"

#include <QDateTime>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <tuple>

#include "widgets/model_colors.h"
#include "widgets/time_axis.h"

namespace servescope::widgets {
namespace {

constexpr std::int64_t kMinWindowNs = 1'000;  // 1 µs across the view at most zoomed in

}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("timelineView"));
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumSize(400, 200);
  refresh_colours();
}

std::span<const TimelineView::KeyHelp> TimelineView::key_help() {
  static constexpr KeyHelp kKeys[] = {
      {QT_TR_NOOP("Wheel"), QT_TR_NOOP("Zoom around the cursor")},
      {QT_TR_NOOP("Drag"), QT_TR_NOOP("Pan")},
      {QT_TR_NOOP("Shift+Drag"), QT_TR_NOOP("Zoom to a range")},
      {QT_TR_NOOP("Shift+Wheel"), QT_TR_NOOP("Scroll the rows")},
      {"+ / −", QT_TR_NOOP("Zoom in or out around the middle")},
      {"← / →", QT_TR_NOOP("Pan a tenth of the window")},
      {"0", QT_TR_NOOP("Fit the whole run")},
      {"Alt+← / Alt+→", QT_TR_NOOP("Back and forward in the zoom history")},
      {"Esc", QT_TR_NOOP("Clear the selection")},
  };
  return kKeys;
}

void TimelineView::set_timeline(std::shared_ptr<const engine::TimelineData> timeline) {
  adopt(std::move(timeline));
  history_.clear();
  history_pos_ = 0;
  scroll_px_ = 0;
  set_filter(filter_);
  zoom_to_fit();
}

void TimelineView::update_timeline(std::shared_ptr<const engine::TimelineData> timeline) {
  const auto rows_before = index_.rows();
  adopt(std::move(timeline));
  if (index_.rows() != rows_before) scroll_px_ = 0;
  set_filter(filter_);
  update();
}

void TimelineView::adopt(std::shared_ptr<const engine::TimelineData> timeline) {
  data_ = std::move(timeline);
  selected_.reset();
  linked_.clear();
  index_ = data_ ? engine::TimelineIndex(*data_) : engine::TimelineIndex();
  late_prefix_.assign(index_.rows(), {});
  for (std::size_t r = 0; r < index_.rows(); ++r) {
    auto& prefix = late_prefix_[r];
    prefix.reserve(index_.spans(r).size() + 1);
    prefix.push_back(0);
    for (const auto i : index_.spans(r))
      prefix.push_back(prefix.back() + (data_->spans[i].late > 0 ? 1u : 0u));
  }
  queue_by_model_.assign(data_ ? data_->models.size() : 0, {});
  if (data_)
    for (std::size_t q = 0; q < data_->queue.size(); ++q)
      if (data_->queue[q].model < queue_by_model_.size()) queue_by_model_[data_->queue[q].model].push_back(q);
  drops_by_model_.assign(data_ ? data_->models.size() : 0, {});
  if (data_)
    for (std::size_t d = 0; d < data_->drops.size(); ++d)
      if (data_->drops[d].model < drops_by_model_.size()) drops_by_model_[data_->drops[d].model].push_back(d);
  longest_transfer_ = 0;
  nic_lanes_.clear();
  if (data_) {
    for (const auto& t : data_->transfers)
      longest_transfer_ = std::max(longest_transfer_, ns(t.end - t.start));
    // A transfer holds the sender's uplink and the receiver's downlink (engine/dataplane/network_links.h).
    const auto& servers = data_->gpu_server;
    if (!data_->transfers.empty() && servers.size() == data_->gpus.size()) {
      std::vector<std::size_t> up(data_->server_names.size(), SIZE_MAX), down(data_->server_names.size(), SIZE_MAX);
      for (std::uint32_t i = 0; i < data_->transfers.size(); ++i) {
        const auto& t = data_->transfers[i];
        if (t.from_gpu >= servers.size() || t.to_gpu >= servers.size()) continue;
        for (const auto& [server, lanes, arrow] :
             {std::tuple{servers[t.from_gpu], &up, "↑"}, std::tuple{servers[t.to_gpu], &down, "↓"}}) {
          auto& lane = (*lanes)[server];
          if (lane == SIZE_MAX) {
            lane = nic_lanes_.size();
            nic_lanes_.push_back(
                {tr("NIC %1 %2").arg(QString::fromUtf8(arrow), QString::fromStdString(data_->server_names[server])),
                 {}});
          }
          nic_lanes_[lane].transfers.push_back(i);
        }
      }
      std::ranges::stable_sort(nic_lanes_, {}, &NicLane::label);
    } else if (!data_->transfers.empty()) {
      nic_lanes_.push_back({tr("network transfers"), {}});
      for (std::uint32_t i = 0; i < data_->transfers.size(); ++i)
        nic_lanes_.back().transfers.push_back(i);
    }
  }
  model_visible_.assign(data_ ? data_->models.size() : 0, true);
  refresh_colours();
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

void TimelineView::set_filter(const QString& text) {
  filter_ = text.trimmed();
  if (!data_) return;
  filter_names_models_ = false;
  for (std::size_t m = 0; m < data_->models.size(); ++m) {
    model_visible_[m] =
        filter_.isEmpty() || QString::fromStdString(data_->models[m]).contains(filter_, Qt::CaseInsensitive);
    filter_names_models_ = filter_names_models_ || (!filter_.isEmpty() && model_visible_[m]);
  }
  if (!filter_names_models_) model_visible_.assign(data_->models.size(), true);  // the text names GPUs
  rebuild_rows();
  update();
}

void TimelineView::rebuild_rows() {
  lanes_.clear();
  row_lane_.assign(index_.rows(), SIZE_MAX);
  if (!data_) return;
  double top = 0;
  for (std::size_t r = 0; r < index_.rows(); ++r) {
    const auto& name = data_->gpus[index_.slot(r)];
    if (!filter_.isEmpty() && !filter_names_models_ &&
        !QString::fromStdString(name).contains(filter_, Qt::CaseInsensitive))
      continue;
    row_lane_[r] = lanes_.size();
    lanes_.push_back({Lane::Kind::Slot, r, top, kRowHeight});
    top += kRowHeight;
  }
  for (std::size_t n = 0; n < nic_lanes_.size(); ++n) {
    lanes_.push_back({Lane::Kind::Network, n, top, kRowHeight});
    top += kRowHeight;
  }
  for (std::size_t m = 0; m < queue_by_model_.size(); ++m)
    if ((!queue_by_model_[m].empty() || !drops_by_model_[m].empty()) && model_visible_[m]) {
      lanes_.push_back({Lane::Kind::Queue, m, top, kQueueRowHeight});
      top += kQueueRowHeight;
    }
}

double TimelineView::ns_per_px() const {
  const double width = std::max(1, this->width() - kLabelWidth);
  return static_cast<double>(to_ - from_) / width;
}

double TimelineView::x_of(std::int64_t t_ns) const {
  return kLabelWidth + static_cast<double>(t_ns - from_) / ns_per_px();
}

std::int64_t TimelineView::time_at(double x) const {
  return from_ + static_cast<std::int64_t>(std::llround((x - kLabelWidth) * ns_per_px()));
}

const TimelineView::Lane* TimelineView::lane_at(double y) const {
  const double at = y - kAxisHeight + scroll_px_;
  if (y < kAxisHeight) return nullptr;
  const auto it = std::ranges::upper_bound(lanes_, at, {}, &Lane::top);
  if (it == lanes_.begin()) return nullptr;
  const auto& lane = *std::prev(it);
  return at < lane.top + lane.height ? &lane : nullptr;
}

std::optional<std::size_t> TimelineView::row_at(double y) const {
  const auto* lane = lane_at(y);
  if (!lane || lane->kind != Lane::Kind::Slot) return std::nullopt;
  return lane->index;
}

double TimelineView::row_y(std::size_t index_row) const {
  if (index_row >= row_lane_.size() || row_lane_[index_row] == SIZE_MAX) return -1;
  return kAxisHeight + lanes_[row_lane_[index_row]].top - scroll_px_;
}

std::optional<std::uint32_t> TimelineView::span_at(QPointF pos) const {
  if (!data_ || pos.x() < kLabelWidth) return std::nullopt;
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
      tr("<b>%1</b> batch %2 of %3 on %4<br>%5 → %6 (%7)")
          .arg(QString::fromStdString(data_->models[s.model]).toHtmlEscaped())
          .arg(s.batch)
          .arg(s.size)
          .arg(QString::fromStdString(data_->gpus[s.gpu]).toHtmlEscaped())
          .arg(format_duration(ns(s.start)), format_duration(ns(s.end)), format_duration(ns(s.end - s.start)));
  if (slo > Duration()) text += tr("<br>SLO %1").arg(format_duration(ns(slo)));
  text += s.late > 0 ? tr("<br><b>%1 of %2 requests late</b>").arg(s.late).arg(s.size) : tr("<br>all on time");
  if (s.preempted) text += tr("<br>preempted: its work was lost");
  if (s.window_close > s.window_open)
    text += tr("<br>could start from %1 to %2 (schedulable window)")
                .arg(format_duration(ns(s.window_open)), format_duration(ns(s.window_close)));
  const auto stages = index_.linked(span);
  if (stages.size() > 1) text += tr("<br>stage of a %1-stage pipeline batch").arg(stages.size());
  return text;
}

QColor TimelineView::late_colour() const {
  return QColor::fromHslF(0.0f, 0.75f, is_dark(palette()) ? 0.45f : 0.6f);
}

QColor TimelineView::box_colour(std::uint32_t model, std::uint32_t late, bool preempted) const {
  if (colouring_ == BoxColouring::SloOutcome) {
    if (preempted) return palette().color(QPalette::Mid);
    return late > 0 ? late_colour() : QColor::fromHslF(0.33f, 0.45f, is_dark(palette()) ? 0.35f : 0.7f);
  }
  return model < model_colours_.size() ? model_colours_[model] : palette().color(QPalette::Mid);
}

void TimelineView::set_window_quiet(std::int64_t from_ns, std::int64_t to_ns) {
  const std::int64_t end = data_ ? std::max<std::int64_t>(ns(data_->end), kMinWindowNs) : 1'000'000'000;
  std::int64_t width = std::clamp<std::int64_t>(to_ns - from_ns, kMinWindowNs, end * 10);
  // Keep some of the run in view.
  from_ns = std::clamp<std::int64_t>(from_ns, -width + kMinWindowNs, end - kMinWindowNs);
  if (from_ == from_ns && to_ == from_ns + width) return;
  from_ = from_ns;
  to_ = from_ns + width;
  update();
  Q_EMIT windowChanged(from_, to_);
}

void TimelineView::push_history() {
  history_.resize(std::min(history_.size(), history_pos_ + 1));
  if (history_.empty() || history_.back() != std::pair{from_, to_}) history_.emplace_back(from_, to_);
  history_pos_ = history_.size() - 1;
  Q_EMIT historyChanged();
}

void TimelineView::set_window(std::int64_t from_ns, std::int64_t to_ns) {
  wheeling_ = false;
  set_window_quiet(from_ns, to_ns);
  push_history();
}

void TimelineView::zoom_to_fit() {
  const std::int64_t end = data_ ? std::max<std::int64_t>(ns(data_->end), kMinWindowNs) : 1'000'000'000;
  set_window(0, end + end / 50);
}

void TimelineView::zoom_around(double x, double factor) {
  if (factor <= 0) return;
  const auto anchor = time_at(x);
  const double width = static_cast<double>(to_ - from_) / factor;
  const double left = static_cast<double>(anchor - from_) / factor;
  // A wheel gesture is one history entry, whatever its number of steps.
  const auto now = QDateTime::currentMSecsSinceEpoch();
  const bool continuing = wheeling_ && now - last_wheel_ms_ < 600;
  set_window_quiet(
      anchor - static_cast<std::int64_t>(std::llround(left)),
      anchor - static_cast<std::int64_t>(std::llround(left)) + static_cast<std::int64_t>(std::llround(width)));
  if (continuing && !history_.empty())
    history_[history_pos_] = {from_, to_};
  else
    push_history();
  wheeling_ = true;
  last_wheel_ms_ = now;
}

bool TimelineView::back() {
  if (!can_go_back()) return false;
  --history_pos_;
  wheeling_ = false;
  set_window_quiet(history_[history_pos_].first, history_[history_pos_].second);
  Q_EMIT historyChanged();
  return true;
}

bool TimelineView::forward() {
  if (!can_go_forward()) return false;
  ++history_pos_;
  wheeling_ = false;
  set_window_quiet(history_[history_pos_].first, history_[history_pos_].second);
  Q_EMIT historyChanged();
  return true;
}

void TimelineView::zoom_to_selection() {
  if (!selected_ || !data_) return;
  std::int64_t lo = ns(data_->spans[*selected_].start), hi = ns(data_->spans[*selected_].end);
  for (const auto i : linked_) {
    lo = std::min(lo, ns(data_->spans[i].start));
    hi = std::max(hi, ns(data_->spans[i].end));
  }
  const auto margin = std::max<std::int64_t>((hi - lo) / 4, kMinWindowNs);
  set_window(lo - margin, hi + margin);
}

void TimelineView::reveal(std::int64_t at_ns, std::optional<std::uint32_t> slot, std::optional<std::uint32_t> model) {
  if (at_ns < from_ || at_ns > to_) {
    const auto half = (to_ - from_) / 2;
    set_window(at_ns - half, at_ns + half);
  }
  const auto wanted = [&](const Lane& lane) {
    if (slot && lane.kind == Lane::Kind::Slot) return index_.slot(lane.index) == *slot;
    return !slot && model && lane.kind == Lane::Kind::Queue && lane.index == *model;
  };
  if (const auto it = std::ranges::find_if(lanes_, wanted); it != lanes_.end()) scroll_to_lane(*it);
}

bool TimelineView::row_in_view(std::uint32_t slot) const {
  const double visible = height() - kAxisHeight;
  return std::ranges::any_of(lanes_, [&](const Lane& lane) {
    return lane.kind == Lane::Kind::Slot && index_.slot(lane.index) == slot && lane.top >= scroll_px_ &&
           lane.top + lane.height <= scroll_px_ + visible;
  });
}

void TimelineView::scroll_to_lane(const Lane& lane) {
  const double visible = height() - kAxisHeight;
  const double total = lanes_.empty() ? 0 : lanes_.back().top + lanes_.back().height;
  // Already whole in view: stay, so stepping through nearby rows does not jump.
  if (lane.top >= scroll_px_ && lane.top + lane.height <= scroll_px_ + visible) return;
  scroll_px_ = std::clamp(lane.top - visible / 3, 0.0, std::max(0.0, total - visible));
  update();
}

void TimelineView::set_colouring(BoxColouring colouring) {
  colouring_ = colouring;
  update();
}

void TimelineView::set_now(std::optional<std::int64_t> now_ns) {
  now_ = now_ns;
  update();
}

void TimelineView::select(std::optional<std::uint32_t> span) {
  if (span && (!data_ || *span >= data_->spans.size())) span.reset();
  selected_ = span;
  linked_ = span ? index_.linked(*span) : std::vector<std::uint32_t>{};
  update();
  Q_EMIT selectionChanged(selected_);
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  if (event->modifiers() & Qt::ShiftModifier) {  // scroll the lanes
    const double total = lanes_.empty() ? 0 : lanes_.back().top + lanes_.back().height;
    scroll_px_ =
        std::clamp(scroll_px_ - event->angleDelta().y() / 2.0, 0.0, std::max(0.0, total - (height() - kAxisHeight)));
    update();
  } else {
    zoom_around(event->position().x(), std::pow(1.0015, event->angleDelta().y()));
  }
  event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  press_pos_ = event->position().toPoint();
  press_from_ = from_;
  press_to_ = to_;
  press_scroll_ = scroll_px_;
  ranging_ = event->modifiers() & Qt::ShiftModifier;
  dragging_ = !ranging_;
  range_x_ = event->position().x();
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (dragging_ && (event->buttons() & Qt::LeftButton)) {
    const auto dt = static_cast<std::int64_t>(std::llround((event->position().x() - press_pos_.x()) * ns_per_px()));
    const double total = lanes_.empty() ? 0 : lanes_.back().top + lanes_.back().height;
    scroll_px_ = std::clamp(press_scroll_ - (event->position().y() - press_pos_.y()), 0.0,
                            std::max(0.0, total - (height() - kAxisHeight)));
    wheeling_ = false;
    set_window_quiet(press_from_ - dt, press_to_ - dt);
    update();
  } else if (ranging_) {
    range_x_ = event->position().x();
    update();
  }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const bool click = (event->position().toPoint() - press_pos_).manhattanLength() < 4;
  if (click) {
    select(span_at(event->position()));
  } else if (ranging_) {
    const double a =
        std::max(static_cast<double>(kLabelWidth), std::min(range_x_, static_cast<double>(press_pos_.x())));
    const double b = std::max(range_x_, static_cast<double>(press_pos_.x()));
    if (b - a >= 2) set_window(time_at(a), time_at(b));
  } else if (dragging_ && (from_ != press_from_)) {
    push_history();
  }
  dragging_ = ranging_ = false;
  update();
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
  const double centre = kLabelWidth + (width() - kLabelWidth) / 2.0;
  const auto pan = (to_ - from_) / 10;
  if (event->modifiers() & Qt::AltModifier) {
    if (event->key() == Qt::Key_Left) back();
    if (event->key() == Qt::Key_Right) forward();
    return;
  }
  switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
      zoom_around(centre, 1.5);
      break;
    case Qt::Key_Minus:
      zoom_around(centre, 1 / 1.5);
      break;
    case Qt::Key_Left:
      set_window(from_ - pan, to_ - pan);
      break;
    case Qt::Key_Right:
      set_window(from_ + pan, to_ + pan);
      break;
    case Qt::Key_0:
      zoom_to_fit();
      break;
    case Qt::Key_Escape:
      select(std::nullopt);
      break;
    default:
      QWidget::keyPressEvent(event);
  }
}

bool TimelineView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    if (const auto span = span_at(help->pos()))
      QToolTip::showText(help->globalPos(), describe(*span), this);
    else
      QToolTip::hideText();
    return true;
  }
  if (event->type() == QEvent::PaletteChange) {
    refresh_colours();  // colours follow the palette (dark mode)
    update();
  }
  return QWidget::event(event);
}

}  // namespace servescope::widgets

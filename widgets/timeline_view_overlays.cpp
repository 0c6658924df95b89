// What the timeline view paints over its rows (Perfetto's overlays, README "The GUI"): the
// overview strip of late batches and drops over every row, so a zoomed-out run shows where it
// failed whichever rows are scrolled away; the marked range with its duration; the selected
// batch's flow as arrows through its stages and transfers; and each row's utilisation
// sparkline in the label column.
#include <QPainter>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <utility>

#include "widgets/model_colors.h"
#include "widgets/time_axis.h"
#include "widgets/timeline_view.h"

namespace servescope::widgets {

void TimelineView::paint_overview(QPainter& p) {
  const auto pal = palette();
  const QRectF strip(kLabelWidth, kAxisHeight, plot_right() - kLabelWidth, kOverviewHeight);
  p.fillRect(QRectF(0, kAxisHeight, plot_right(), kOverviewHeight), pal.color(QPalette::AlternateBase));
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.75);
  p.setFont(small);
  // Its legend, right-aligned in the label column: "late ■ dropped ■" in the marks' colours.
  QColor late = late_colour();
  late.setAlphaF(0.7f);
  const QColor dropped = dropped_colour(pal);
  double right = kLabelWidth - 6;
  for (const auto& [text, colour] : {std::pair{tr("dropped"), dropped}, std::pair{tr("late"), late}}) {
    p.fillRect(QRectF(right - 6, kAxisHeight + 1, 6, kOverviewHeight - 2), colour);
    const double w = p.fontMetrics().horizontalAdvance(text);
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(QRectF(right - 9 - w, kAxisHeight - 2, w, kOverviewHeight + 4), Qt::AlignVCenter | Qt::AlignRight, text);
    right -= w + 16;
  }
  p.setFont(font());
  // One mark per pixel column: find the first event at or after each column, then jump to the
  // next column, so a million drops cost as many searches as there are columns that hold one.
  const auto mark = [&](const auto& times, auto time_of, const QColor& colour, double y, double h) {
    auto it = std::ranges::lower_bound(times, from_ns(), {}, time_of);
    while (it != times.end() && time_of(*it) <= to_ns()) {
      const double x = std::floor(x_of(time_of(*it)));
      if (x >= plot_right()) break;
      p.fillRect(QRectF(x, y, 1, h), colour);
      // Past this column, and past this event even where rounding puts the next column's first
      // nanosecond on it.
      it = std::ranges::upper_bound(it, times.end(), std::max(time_of(*it), time_at(x + 1) - 1), {}, time_of);
    }
  };
  mark(
      late_ends_ns_, [](std::int64_t t) { return t; }, late, strip.top(), kOverviewHeight / 2.0);
  mark(
      data_->drops, [](const engine::DropMark& d) { return d.time.count_ns(); }, dropped,
      strip.top() + kOverviewHeight / 2.0, kOverviewHeight / 2.0);
}

void TimelineView::paint_range(QPainter& p, double bottom) {
  const auto& range = state_->range();
  if (!range) return;
  const auto pal = palette();
  const double a = std::max(static_cast<double>(kLabelWidth), x_of(range->from_ns));
  const double b = std::min(static_cast<double>(plot_right()), x_of(range->to_ns));
  if (b < kLabelWidth || a > plot_right()) return;
  QColor band = pal.color(QPalette::Highlight);
  band.setAlphaF(0.15f);
  p.fillRect(QRectF(a, lanes_top(), std::max(1.0, b - a), bottom - lanes_top()), band);
  p.setPen(QPen(pal.color(QPalette::Highlight), 1));
  for (const double x : {x_of(range->from_ns), x_of(range->to_ns)})
    if (x >= kLabelWidth && x <= plot_right()) p.drawLine(QPointF(x, lanes_top()), QPointF(x, bottom));
}

const TimelineView::Lane* TimelineView::nic_lane(std::uint32_t n) const {
  const auto it =
      std::ranges::find_if(lanes_, [&](const Lane& l) { return l.kind == Lane::Kind::Network && l.index == n; });
  return it == lanes_.end() ? nullptr : &*it;
}

double TimelineView::lane_centre(const Lane* lane) const {
  return lanes_top() + lane->top - scroll_px_ + lane->height / 2;
}

void TimelineView::paint_flow(QPainter& p) {
  if (flow_.size() < 2) return;
  const auto pal = palette();
  // Where each step is drawn: a batch on its slot's row; a transfer leaves on the sender's
  // uplink and arrives on the receiver's downlink.
  struct End {
    double x, y;
    bool shown;
  };
  const auto batch_lane = [&](std::uint32_t span) -> const Lane* {
    const auto row = index_.row_of_slot(data_->spans[span].gpu);
    return row ? lane_of_row(*row) : nullptr;
  };
  const auto endpoint = [&](const engine::FlowStep& step, bool at_end) -> End {
    const Lane* lane = nullptr;
    if (step.kind == engine::FlowStep::Kind::Batch) {
      lane = batch_lane(step.index);
    } else if (step.index < transfer_lanes_.size()) {
      lane = nic_lane(at_end ? transfer_lanes_[step.index].second : transfer_lanes_[step.index].first);
    }
    if (!lane) return {0, 0, false};
    return {x_of(ns(at_end ? step.end : step.start)), lane_centre(lane), true};
  };
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  const QColor colour = pal.color(QPalette::Highlight);
  // The transfers of the flow, outlined on both their lanes.
  p.setPen(QPen(colour, 1.5));
  p.setBrush(Qt::NoBrush);
  for (const auto& step : flow_) {
    if (step.kind != engine::FlowStep::Kind::Transfer) continue;
    for (const bool arriving : {false, true}) {
      const auto e = endpoint(step, arriving);
      if (!e.shown) continue;
      const double x0 = x_of(ns(step.start)), x1 = std::max(x0 + 2, x_of(ns(step.end)));
      p.drawRect(QRectF(x0, e.y - kRowHeight / 2.0 + 3, x1 - x0, kRowHeight - 6));
    }
  }
  for (std::size_t k = 0; k + 1 < flow_.size(); ++k) {
    const auto from = endpoint(flow_[k], true), to = endpoint(flow_[k + 1], false);
    if (!from.shown || !to.shown) continue;
    // Perfetto's flow: a curve leaving to the right and arriving from the left, then a head.
    const double bend = std::max(12.0, std::abs(to.x - from.x) / 2);
    QPainterPath path(QPointF(from.x, from.y));
    path.cubicTo(QPointF(from.x + bend, from.y), QPointF(to.x - bend, to.y), QPointF(to.x, to.y));
    p.setPen(QPen(colour, 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
    QPainterPath head;
    head.moveTo(to.x, to.y);
    head.lineTo(to.x - 7, to.y - 4);
    head.lineTo(to.x - 7, to.y + 4);
    head.closeSubpath();
    p.setBrush(colour);
    p.drawPath(head);
  }
  p.restore();
}

// Teaching mode's note: a box beside the playback line (left of it near the right edge), its
// first line bold.
void TimelineView::paint_annotation(QPainter& p) {
  const auto annotation = annotation_at(now_);
  if (annotation.isEmpty()) return;
  const auto pal = palette();
  const double line_x = now_ ? x_of(*now_) : kLabelWidth + 12;
  const double width = std::min(360.0, std::max(160.0, (plot_right() - kLabelWidth) / 2.5));
  const auto title = annotation.section(QLatin1Char('\n'), 0, 0);
  const auto rest = annotation.section(QLatin1Char('\n'), 1);
  QFont bold = font();
  bold.setBold(true);
  const QFontMetricsF bold_metrics(bold), metrics(font());
  const auto title_box = bold_metrics.boundingRect(QRectF(0, 0, width - 16, 1000), Qt::TextWordWrap, title);
  const auto rest_box = metrics.boundingRect(QRectF(0, 0, width - 16, 1000), Qt::TextWordWrap, rest);
  const double height = title_box.height() + (rest.isEmpty() ? 0 : rest_box.height() + 4) + 14;
  double left = line_x + 10;
  if (left + width > plot_right() - 4) left = std::max<double>(kLabelWidth + 4, line_x - 10 - width);
  const QRectF box(left, lanes_top() + 8, width, height);
  QColor fill = pal.color(QPalette::ToolTipBase);
  fill.setAlphaF(0.95f);
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(QPen(pal.color(QPalette::Highlight), 1.5));
  p.setBrush(fill);
  p.drawRoundedRect(box, 6, 6);
  p.setPen(pal.color(QPalette::ToolTipText));
  p.setFont(bold);
  p.drawText(QRectF(box.left() + 8, box.top() + 7, width - 16, title_box.height()), Qt::TextWordWrap, title);
  p.setFont(font());
  if (!rest.isEmpty())
    p.drawText(QRectF(box.left() + 8, box.top() + 11 + title_box.height(), width - 16, rest_box.height()),
               Qt::TextWordWrap, rest);
  p.restore();
}

void TimelineView::paint_sparkline(QPainter& p, std::size_t row, double y) {
  if (row >= sparklines_.size() || sparklines_[row].empty()) return;
  const auto* lane = lane_of_row(row);
  const std::size_t rows = lane ? lane->rows : 1;
  // Painted once per row (and per collapsed group) into a small image: 40 bars a row, 64 rows,
  // would otherwise be most of a zoomed-in paint.
  auto& cached = sparkline_cache_[row];
  // At the screen's pixel ratio, so it stays sharp on a High-DPI screen.
  const double ratio = p.device() ? p.device()->devicePixelRatioF() : 1.0;
  if (cached.rows != rows || cached.image.isNull() || cached.image.devicePixelRatio() != ratio) {
    const auto& bins = sparklines_[row];
    QImage image(static_cast<int>(std::ceil(kSparklineWidth * ratio)),
                 static_cast<int>(std::ceil((kRowHeight - 6) * ratio)), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(ratio);
    image.fill(palette().color(QPalette::AlternateBase));
    QPainter ip(&image);
    auto colour = palette().color(QPalette::Text);
    colour.setAlphaF(0.45f);
    const double w = static_cast<double>(kSparklineWidth) / static_cast<double>(bins.size());
    for (std::size_t k = 0; k < bins.size(); ++k) {
      double busy = 0;  // a collapsed GPU: its slots' mean
      for (std::size_t r = row; r < row + rows && r < sparklines_.size(); ++r)
        busy += static_cast<double>(sparklines_[r][k]);
      const double full = kRowHeight - 6;  // in device-independent pixels, as the painter draws
      const double h = full * busy / static_cast<double>(rows);
      if (h > 0) ip.fillRect(QRectF(w * static_cast<double>(k), full - h, w, h), colour);
    }
    cached = {std::move(image), rows};
  }
  p.drawImage(QPointF(kLabelWidth - kSparklineWidth - 6, y + 3), cached.image);
}

}  // namespace servescope::widgets

// What the serving system said of itself, drawn where it happened (issue 47 §2; Perfetto's
// instant events on a track, Qt Creator's timeline notes): a line down the lanes at each notice,
// solid over the rows of the slots it concerns and dashed elsewhere, a flag on the axis, and the
// scheduler's own words in the tool tip. A stall of every GPU then carries its cause: "worker of
// server-2 lost", "switching to nexus: flushing".
#include <QPainter>
#include <QPainterPath>
#include <algorithm>

#include "widgets/model_colors.h"
#include "widgets/time_axis.h"
#include "widgets/timeline_view.h"

namespace servescope::widgets {
namespace {

constexpr double kNoticeFlagHalfWidth = 4.5;
constexpr double kNoticeHitPx = 4.0;  // how near the pointer must come to a notice's line

}  // namespace

QColor TimelineView::notice_colour(const engine::RunNotice& notice) const {
  return engine::is_trouble(notice.kind) ? late_colour() : palette().color(QPalette::Highlight);
}

void TimelineView::paint_notices(QPainter& p, double bottom) {
  if (data_->notices.empty()) return;
  const auto& notices = data_->notices;
  auto it = std::ranges::lower_bound(notices, Duration::nanoseconds(from_ns()), {}, &engine::RunNotice::time);
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  // The lines stay in the lanes (rows scrolled above them must not paint over the axis); the flags
  // go on the axis, unclipped.
  const QRectF lanes(kLabelWidth, lanes_top(), plot_right() - kLabelWidth, bottom - lanes_top());
  for (; it != notices.end() && ns(it->time) <= to_ns(); ++it) {
    const double x = x_of(ns(it->time));
    if (x < kLabelWidth || x > plot_right()) continue;
    const auto colour = notice_colour(*it);
    p.setClipRect(lanes);
    QPen dashed(colour, 1, Qt::DashLine);
    p.setPen(dashed);
    p.drawLine(QPointF(x, lanes_top()), QPointF(x, bottom));
    // Solid over the rows it concerns, where they show.
    p.setPen(QPen(colour, 2.5));
    for (const auto slot : it->gpus) {
      const auto row = index_.row_of_slot(slot);
      const auto* lane = row ? lane_of_row(*row) : nullptr;
      if (!lane) continue;
      const double y = lanes_top() + lane->top - scroll_px_;
      p.drawLine(QPointF(x, y), QPointF(x, y + lane->height));
    }
    p.setClipping(false);
    // The flag on the axis: a downward triangle the pointer finds.
    QPainterPath flag;
    flag.moveTo(x - kNoticeFlagHalfWidth, kAxisHeight - 9);
    flag.lineTo(x + kNoticeFlagHalfWidth, kAxisHeight - 9);
    flag.lineTo(x, kAxisHeight - 1);
    flag.closeSubpath();
    p.setPen(Qt::NoPen);
    p.setBrush(colour);
    p.drawPath(flag);
  }
  p.restore();
}

std::vector<std::size_t> TimelineView::notices_at(QPointF pos) const {
  std::vector<std::size_t> out;
  if (!data_ || data_->notices.empty() || pos.x() < kLabelWidth || pos.x() > plot_right()) return out;
  const auto& notices = data_->notices;
  const auto lo = Duration::nanoseconds(time_at(pos.x() - kNoticeHitPx));
  const auto hi = Duration::nanoseconds(time_at(pos.x() + kNoticeHitPx));
  auto it = std::ranges::lower_bound(notices, lo, {}, &engine::RunNotice::time);
  for (; it != notices.end() && it->time <= hi; ++it)
    out.push_back(static_cast<std::size_t>(it - notices.begin()));
  return out;
}

QString TimelineView::describe_notices(const std::vector<std::size_t>& which) const {
  QStringList lines;
  constexpr std::size_t kShown = 6;
  for (std::size_t k = 0; k < which.size() && k < kShown; ++k) {
    const auto& n = data_->notices[which[k]];
    lines << QStringLiteral("<b>%1</b> %2")
                 .arg(format_duration(ns(n.time) - origin_ns_).toHtmlEscaped(),
                      QString::fromStdString(n.text).toHtmlEscaped());
  }
  if (which.size() > kShown) lines << tr("… and %1 more").arg(which.size() - kShown);
  return lines.join(QStringLiteral("<br>"));
}

}  // namespace servescope::widgets

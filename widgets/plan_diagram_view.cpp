#include "widgets/plan_diagram_view.h"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "widgets/model_colors.h"

namespace servescope::widgets {

PlanDiagramView::PlanDiagramView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("planDiagram"));
  setMouseTracking(true);
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
}

void PlanDiagramView::set_diagram(engine::PlanDiagram diagram) {
  diagram_ = std::move(diagram);
  capacity_scale_rps_ = diagram_.max_capacity_rps;
  slo_scale_ = diagram_.max_slo;
  selected_.clear();
  // In a scroll area: drawn smaller down to kMinScale, then scrolled rather than squeezed.
  setMinimumWidth(static_cast<int>(std::ceil(diagram_.width * kMinScale)));
  fit_height();
  updateGeometry();
  update();
}

double PlanDiagramView::scale() const {
  if (diagram_.width <= 0 || width() >= diagram_.width) return 1.0;
  return std::max(kMinScale, width() / diagram_.width);
}

void PlanDiagramView::fit_height() {
  setMinimumHeight(static_cast<int>(std::ceil((diagram_.height + 28) * scale())));
}

void PlanDiagramView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fit_height();
}

QPointF PlanDiagramView::to_diagram(QPointF widget_pos) const {
  return widget_pos / scale();
}

void PlanDiagramView::set_scales(double capacity_rps, Duration slo) {
  capacity_scale_rps_ = capacity_rps;
  slo_scale_ = slo;
  update();
}

void PlanDiagramView::share_scales(PlanDiagramView& a, PlanDiagramView& b) {
  const double rps = std::max(a.diagram_.max_capacity_rps, b.diagram_.max_capacity_rps);
  const auto slo = std::max(a.diagram_.max_slo, b.diagram_.max_slo);
  a.set_scales(rps, slo);
  b.set_scales(rps, slo);
}

void PlanDiagramView::select(const std::string& id) {
  selected_ = id;
  update();
}

QSize PlanDiagramView::sizeHint() const {
  return {static_cast<int>(std::ceil(diagram_.width)), static_cast<int>(std::ceil(diagram_.height + 28))};
}

QRectF PlanDiagramView::item_rect(std::size_t item) const {
  const auto& i = diagram_.items[item];
  constexpr double kTitle = 28;  // the diagram's title line above everything
  if (i.kind != engine::DiagramItem::Kind::Ribbon || slo_scale_ <= diagram_.max_slo || diagram_.max_slo.count_ns() <= 0)
    return {i.x, i.y + kTitle, i.width, i.height};
  // A ribbon's length is its share of the SLO scale, shared with the plan beside it: shrink the
  // whole ribbon about its start (the left margin, where the first piece begins).
  const double f = diagram_.max_slo.to_us() / slo_scale_.to_us();
  const double start =
      std::ranges::find(diagram_.items, engine::DiagramItem::Kind::Ribbon, &engine::DiagramItem::kind)->x;
  return {start + (i.x - start) * f, i.y + kTitle, i.width * f, i.height};
}

std::optional<std::size_t> PlanDiagramView::item_at(QPointF pos) const {
  for (std::size_t k = diagram_.items.size(); k > 0; --k)
    if (!diagram_.items[k - 1].id.empty() && item_rect(k - 1).contains(pos)) return k - 1;
  return std::nullopt;
}

void PlanDiagramView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const auto pal = palette();
  if (diagram_.items.empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("Pick a plan to draw it"));
    return;
  }
  const double s = scale();
  p.scale(s, s);
  const double room = width() / s - 24;  // the title's width in the diagram's coordinates
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(pal.color(QPalette::Text));
  p.drawText(
      QRectF(12, 4, room, 22), Qt::AlignVCenter | Qt::AlignLeft,
      p.fontMetrics().elidedText(QString::fromStdString(diagram_.title), Qt::ElideRight, static_cast<int>(room)));
  p.setFont(font());
  for (const auto& arrow : diagram_.arrows)
    paint_arrow(p, arrow);
  for (const auto& item : diagram_.items)
    paint_item(p, item);
  // Labels last, over everything: a box drawn after a label would cut it.
  for (std::size_t k = 0; k < diagram_.arrows.size(); ++k)
    paint_arrow_label(p, k);
}

QRectF PlanDiagramView::arrow_band(std::size_t arrow) const {
  const auto& a = diagram_.arrows[arrow];
  const auto from = item_rect(a.from), to = item_rect(a.to);
  const double left = std::min(from.right(), to.left()), right = std::max(from.right(), to.left());
  const double top = std::min(from.center().y(), to.center().y()) - 20;
  const double bottom = std::max(from.center().y(), to.center().y()) + 20;
  return {left, top, right - left, bottom - top};
}

std::optional<std::size_t> PlanDiagramView::arrow_at(QPointF pos) const {
  for (std::size_t k = 0; k < diagram_.arrows.size(); ++k)
    if (arrow_band(k).contains(pos)) return k;
  return std::nullopt;
}

QStringList PlanDiagramView::arrow_label_lines(std::size_t arrow) const {
  const auto label = QString::fromStdString(diagram_.arrows[arrow].label);
  if (label.isEmpty()) return {};
  const QFontMetricsF metrics(font());
  const double room = arrow_band(arrow).width() - 4;
  QStringList lines;
  for (const auto& part : label.split(QStringLiteral(" · ")))
    lines << metrics.elidedText(part, Qt::ElideRight, room);
  return lines;
}

void PlanDiagramView::paint_arrow_label(QPainter& p, std::size_t arrow) {
  const auto lines = arrow_label_lines(arrow);
  if (lines.isEmpty()) return;
  const auto pal = palette();
  const auto band = arrow_band(arrow);
  const auto& a = diagram_.arrows[arrow];
  const double mid_y = (item_rect(a.from).center().y() + item_rect(a.to).center().y()) / 2;
  const double line_h = p.fontMetrics().height();
  for (qsizetype k = 0; k < lines.size(); ++k) {
    // The first part above the arrow, the others below it, each on the base colour so the curve
    // does not run through the text.
    const double w = p.fontMetrics().horizontalAdvance(lines[k]) + 4;
    const double y = k == 0 ? mid_y - 3 - line_h : mid_y + 3 + static_cast<double>(k - 1) * line_h;
    const QRectF r(band.center().x() - w / 2, y, w, line_h);
    p.fillRect(r, pal.color(QPalette::Base));
    p.setPen(pal.color(QPalette::Text));
    p.drawText(r, Qt::AlignCenter, lines[k]);
  }
}

void PlanDiagramView::paint_item(QPainter& p, const engine::DiagramItem& item) {
  const auto pal = palette();
  const auto index = static_cast<std::size_t>(&item - diagram_.items.data());
  const auto box = item_rect(index);
  const bool chosen = !item.id.empty() && item.id == selected_;
  QFont bold = font();
  bold.setBold(true);
  if (item.kind == engine::DiagramItem::Kind::Heading) {
    p.setFont(bold);
    p.setPen(pal.color(QPalette::Text));
    p.drawText(box, Qt::AlignVCenter | Qt::AlignLeft, QString::fromStdString(item.title));
    p.setFont(font());
    return;
  }
  const QColor colour = item.free || item.colour_key.empty()
                            ? pal.color(QPalette::Midlight)
                            : color_for_name(QString::fromStdString(item.colour_key), pal);
  QPen outline(item.emphasised ? QColor::fromHslF(0.0f, 0.7f, is_dark(pal) ? 0.6f : 0.45f) : pal.color(QPalette::Mid),
               item.emphasised ? 2.5 : 1);
  if (chosen) outline = QPen(pal.color(QPalette::Highlight), 3);
  p.setPen(outline);
  p.setBrush(colour);
  p.drawRoundedRect(box.adjusted(1, 1, -1, -1), 5, 5);
  p.setPen(pal.color(QPalette::Text));
  if (item.kind == engine::DiagramItem::Kind::Ribbon) {
    p.drawText(box.adjusted(4, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
               p.fontMetrics().elidedText(QString::fromStdString(item.title), Qt::ElideRight,
                                          static_cast<int>(box.width()) - 6));
    return;
  }
  p.setFont(bold);
  p.drawText(QRectF(box.left() + 6, box.top() + 3, box.width() - 12, 18), Qt::AlignVCenter | Qt::AlignLeft,
             p.fontMetrics().elidedText(QString::fromStdString(item.title), Qt::ElideRight,
                                        static_cast<int>(box.width()) - 12));
  p.setFont(font());
  if (item.emphasised && item.kind == engine::DiagramItem::Kind::Pool) {
    const QString badge = tr("bottleneck");
    const double w = p.fontMetrics().horizontalAdvance(badge) + 8;
    const QRectF tag(box.right() - w - 4, box.top() - 9, w, 16);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor::fromHslF(0.0f, 0.7f, is_dark(pal) ? 0.6f : 0.45f));
    p.drawRoundedRect(tag, 4, 4);
    p.setPen(QColor(Qt::white));
    p.drawText(tag, Qt::AlignCenter, badge);
  }
  // Chips: flowing left to right within the box, wrapping.
  double x = box.left() + 6, y = box.top() + 23;
  const double line = 16;
  QColor chip_fill = pal.color(QPalette::Base);
  chip_fill.setAlphaF(0.75f);
  for (const auto& chip : item.chips) {
    const auto text = QString::fromStdString(chip);
    const double w = std::min(box.width() - 12, p.fontMetrics().horizontalAdvance(text) + 8.0);
    if (x + w > box.right() - 6 && x > box.left() + 6) {
      x = box.left() + 6;
      y += line + 2;
    }
    if (y + line > box.bottom() - (item.load_rps >= 0 ? 8 : 2)) break;
    const QRectF r(x, y, w, line);
    p.setPen(Qt::NoPen);
    p.setBrush(chip_fill);
    p.drawRoundedRect(r, 3, 3);
    p.setPen(pal.color(QPalette::Text));
    p.drawText(r, Qt::AlignCenter, p.fontMetrics().elidedText(text, Qt::ElideRight, static_cast<int>(w) - 4));
    x += w + 4;
  }
  // The load bar: capacity on the shared scale, the load inside it.
  if (item.load_rps >= 0 && capacity_scale_rps_ > 0) {
    const double full = box.width() - 12;
    const QRectF track(box.left() + 6, box.bottom() - 8, full * item.capacity_rps / capacity_scale_rps_, 4);
    p.setPen(Qt::NoPen);
    p.setBrush(pal.color(QPalette::Base));
    p.drawRect(track);
    p.setBrush(pal.color(QPalette::Text));
    const double share = item.capacity_rps > 0 ? std::min(1.0, item.load_rps / item.capacity_rps) : 0;
    p.drawRect(QRectF(track.left(), track.top(), track.width() * share, track.height()));
  }
}

void PlanDiagramView::paint_arrow(QPainter& p, const engine::DiagramArrow& arrow) {
  const auto pal = palette();
  const auto a = item_rect(arrow.from), b = item_rect(arrow.to);
  const QPointF from(a.right(), a.center().y()), to(b.left(), b.center().y());
  const QColor colour =
      arrow.emphasised ? QColor::fromHslF(0.0f, 0.7f, is_dark(pal) ? 0.6f : 0.45f) : pal.color(QPalette::Text);
  const double bend = std::max(16.0, (to.x() - from.x()) / 2);
  QPainterPath path(from);
  path.cubicTo(from + QPointF(bend, 0), to - QPointF(bend, 0), to - QPointF(6, 0));
  p.setPen(QPen(colour, arrow.emphasised ? 2 : 1.2));
  p.setBrush(Qt::NoBrush);
  p.drawPath(path);
  QPainterPath head;
  head.moveTo(to);
  head.lineTo(to - QPointF(8, 4));
  head.lineTo(to - QPointF(8, -4));
  head.closeSubpath();
  p.setBrush(colour);
  p.drawPath(head);
}

void PlanDiagramView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const auto hit = item_at(to_diagram(event->position()));
  select(hit ? diagram_.items[*hit].id : std::string());
  Q_EMIT itemSelected(QString::fromStdString(selected_));
}

bool PlanDiagramView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const auto at = to_diagram(help->pos());
    if (const auto hit = item_at(at))
      QToolTip::showText(help->globalPos(), QString::fromStdString(diagram_.items[*hit].tooltip), this);
    else if (const auto arrow = arrow_at(at); arrow && !diagram_.arrows[*arrow].tooltip.empty())
      QToolTip::showText(help->globalPos(), QString::fromStdString(diagram_.arrows[*arrow].tooltip), this);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(event);
}

}  // namespace servescope::widgets

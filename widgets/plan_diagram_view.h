// A plan, painted (README "The GUI", Plans tab): the engine's PlanDiagram drawn with QPainter in
// palette colours (Hotspot's palette-driven colours, docs gui-anchors): pools, glets and modules
// as boxes with chips, load bars against capacity, arrows with transfer times, the bottleneck
// or critical path outlined. Hovering explains an item; clicking selects it and says which
// (itemSelected with the diagram's selection id). Two views side by side share their scales.
#pragma once

#include <QStringList>
#include <QWidget>
#include <optional>

#include "engine/planning/plan_diagram.h"

namespace servescope::widgets {

class PlanDiagramView : public QWidget {
  Q_OBJECT
 public:
  explicit PlanDiagramView(QWidget* parent = nullptr);

  void set_diagram(engine::PlanDiagram diagram);
  const engine::PlanDiagram& diagram() const { return diagram_; }
  // Load bars are drawn against `capacity_rps` and ribbons against `slo`: the larger of two
  // diagrams' own, so that equal lengths mean equal numbers side by side.
  void set_scales(double capacity_rps, Duration slo);
  static void share_scales(PlanDiagramView& a, PlanDiagramView& b);

  // Selects the item with this id (empty: none) and repaints; no signal.
  void select(const std::string& id);
  const std::string& selected() const { return selected_; }
  // In the diagram's own coordinates (the widget's divided by scale()).
  std::optional<std::size_t> item_at(QPointF pos) const;  // the topmost selectable item
  QRectF item_rect(std::size_t item) const;               // where an item is painted
  // The band between an arrow's two items that holds its label (above the arrow its first part,
  // below it the rest), and the arrow whose band holds `pos`.
  QRectF arrow_band(std::size_t arrow) const;
  std::optional<std::size_t> arrow_at(QPointF pos) const;
  // An arrow's label as painted: a line per part, each elided to its band only where the band is
  // narrower than the text (the tooltip then has it whole).
  QStringList arrow_label_lines(std::size_t arrow) const;

  // A diagram wider than the view is drawn smaller to fit its width, down to kMinScale (then
  // it scrolls): side by side at 1280×800 a cost plan's second column was cut off.
  static constexpr double kMinScale = 0.6;
  double scale() const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return {200, 120}; }

 Q_SIGNALS:
  void itemSelected(const QString& id);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;  // tooltips
  void resizeEvent(QResizeEvent* event) override;

 private:
  void paint_item(QPainter& p, const engine::DiagramItem& item);
  void paint_arrow(QPainter& p, const engine::DiagramArrow& arrow);
  void paint_arrow_label(QPainter& p, std::size_t arrow);
  QPointF to_diagram(QPointF widget_pos) const;  // item_rect's coordinates
  void fit_height();                             // the height the diagram takes at its scale

  engine::PlanDiagram diagram_;
  double capacity_scale_rps_ = 0;
  Duration slo_scale_;
  std::string selected_;
};

}  // namespace servescope::widgets

// The one place ServeScope talks to Qt Charts (docs gui-anchors §0 item 7): a chart is described
// as titled axes and named series of points, and built with animations off, long series
// decimated to about two points per pixel of a 1920-px chart, and colours from the palette.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>
#include <utility>
#include <vector>

#include "engine/analysis/run_series.h"

class QBarCategoryAxis;
class QChart;
class QChartView;
class QPalette;
class QValueAxis;

namespace servescope::widgets {

enum class SeriesKind { Line, Step, Bars, Scatter };

struct ChartSpec {
  QString title;
  QString x_title, y_title;
  SeriesKind kind = SeriesKind::Line;
  std::vector<engine::Series> series;
  std::optional<std::pair<double, double>> y_range;  // fixed, e.g. 0–100 %
  bool x_log = false;
  // Horizontal reference lines (an SLO target), dashed across the x range, named in the legend.
  std::vector<std::pair<double, QString>> thresholds = {};
};

inline constexpr std::size_t kMaxChartPoints = 4000;
// The least a chart view takes for its title, legend and every axis title and label unelided
// ("% o…" at 1280×800 when the Live tab's charts were 200 px high).
inline constexpr int kChartMinWidth = 340, kChartMinHeight = 260;

// A new chart for `spec` (the caller owns it, or hands it to a view).
QChart* build_chart(const ChartSpec& spec, const QPalette& palette);
// Puts `chart` in `view` and deletes the chart it had (QChartView only releases it).
void show_chart(QChartView* view, QChart* chart);

// For charts drawn by hand (the Profile tab's), the rules build_chart follows: round ticks over
// the axis's present range (widgets/nice_scale.h), and category labels thinned to every k-th so
// that they stay flat and legible.
void apply_nice_ticks(QValueAxis* axis);
void set_categories(QBarCategoryAxis* axis, const QStringList& labels);

}  // namespace servescope::widgets

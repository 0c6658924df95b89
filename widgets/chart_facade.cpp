#include "widgets/chart_facade.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>

#include "widgets/model_colors.h"
#include "widgets/nice_scale.h"

namespace servescope::widgets {
namespace {

constexpr std::size_t kMaxBarLabels = 12;  // flat labels a bar chart's axis has room for

}  // namespace

void apply_nice_ticks(QValueAxis* axis) {
  const auto s = nice_scale(axis->min(), axis->max());
  axis->setRange(s.lo, s.hi);
  axis->setTickType(QValueAxis::TicksFixed);
  axis->setTickCount(s.intervals + 1);
  axis->setLabelFormat(QStringLiteral("%.") + QString::number(s.decimals) + QStringLiteral("f"));
}

void set_categories(QBarCategoryAxis* axis, const QStringList& labels) {
  // A category needs a unique name, so the unlabelled ones are named by that many zero-width
  // spaces.
  const auto every = (static_cast<std::size_t>(labels.size()) + kMaxBarLabels - 1) / kMaxBarLabels;
  QStringList shown;
  for (qsizetype k = 0; k < labels.size(); ++k)
    shown << (static_cast<std::size_t>(k) % every == 0 ? labels[k] : QString(k + 1, QChar(0x200B)));
  axis->clear();
  axis->append(shown);
  // A label may spill into its unlabelled neighbours rather than shrink to "…".
  axis->setTruncateLabels(false);
}

QChart* build_chart(const ChartSpec& spec, const QPalette& palette) {
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setTitle(spec.title);
  chart->setBackgroundBrush(palette.color(QPalette::Base));
  chart->setTitleBrush(palette.color(QPalette::Text));
  chart->legend()->setLabelColor(palette.color(QPalette::Text));
  chart->legend()->setVisible(spec.series.size() + spec.thresholds.size() > 1);
  chart->legend()->setAlignment(Qt::AlignBottom);
  const auto style_axis = [&](QAbstractAxis* axis, const QString& title) {
    axis->setTitleText(title);
    // Round tick labels are short; a small chart shows them whole rather than as "…".
    axis->setTruncateLabels(false);
    axis->setTitleBrush(palette.color(QPalette::Text));
    axis->setLabelsColor(palette.color(QPalette::Text));
    axis->setGridLineColor(palette.color(QPalette::Midlight));
  };
  if (spec.kind == SeriesKind::Bars) {
    // Categories from the union of x values (batch sizes), in order.
    std::vector<double> xs;
    for (const auto& s : spec.series)
      for (const auto& p : s.points)
        xs.push_back(p.x);
    std::ranges::sort(xs);
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    auto* bars = new QBarSeries;
    double top = 0;
    for (const auto& s : spec.series) {
      auto* set = new QBarSet(QString::fromStdString(s.name));
      set->setColor(color_for_name(set->label(), palette));
      for (const double x : xs) {
        const auto it = std::ranges::find(s.points, x, &engine::SeriesPoint::x);
        const double y = it == s.points.end() ? 0 : it->y;
        *set << y;
        top = std::max(top, y);
      }
      bars->append(set);
    }
    chart->addSeries(bars);
    auto* x = new QBarCategoryAxis;
    // Many categories (batch sizes 1–64): every k-th is labelled, flat, so labels never shrink to
    // "…".
    QStringList labels;
    for (const double v : xs)
      labels << QString::number(v);
    set_categories(x, labels);
    auto* y = new QValueAxis;
    y->setRange(0, top * 1.05 + 1e-9);
    apply_nice_ticks(y);
    style_axis(x, spec.x_title);
    style_axis(y, spec.y_title);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    bars->attachAxis(x);
    bars->attachAxis(y);
    return chart;
  }
  double x_lo = 1e300, x_hi = -1e300, y_lo = 1e300, y_hi = -1e300;
  std::vector<QXYSeries*> all;
  for (const auto& s : spec.series) {
    QXYSeries* xy = spec.kind == SeriesKind::Scatter ? static_cast<QXYSeries*>(new QScatterSeries)
                                                     : static_cast<QXYSeries*>(new QLineSeries);
    xy->setName(QString::fromStdString(s.name));
    // Two pixels wide: a one-pixel line in a model colour all but vanishes on a dark base.
    QPen pen(color_for_name(xy->name(), palette), spec.kind == SeriesKind::Scatter ? 1 : 2);
    xy->setPen(pen);
    xy->setColor(pen.color());
    QList<QPointF> points;
    const auto kept = engine::decimate(s.points, kMaxChartPoints);
    points.reserve(static_cast<qsizetype>(kept.size() * (spec.kind == SeriesKind::Step ? 2 : 1)));
    for (std::size_t k = 0; k < kept.size(); ++k) {
      if (spec.kind == SeriesKind::Step && k > 0) points.append(QPointF(kept[k].x, kept[k - 1].y));
      points.append(QPointF(kept[k].x, kept[k].y));
      x_lo = std::min(x_lo, kept[k].x);
      x_hi = std::max(x_hi, kept[k].x);
      y_lo = std::min(y_lo, kept[k].y);
      y_hi = std::max(y_hi, kept[k].y);
    }
    xy->replace(points);  // one update, not one per point
    chart->addSeries(xy);
    all.push_back(xy);
  }
  if (x_lo > x_hi) x_lo = 0, x_hi = 1;
  if (y_lo > y_hi) y_lo = 0, y_hi = 1;
  for (const auto& [value, name] : spec.thresholds) {
    auto* line = new QLineSeries;
    line->setName(name);
    QPen pen(palette.color(QPalette::Text), 1.5, Qt::DashLine);
    line->setPen(pen);
    line->replace(QList<QPointF>{QPointF(x_lo, value), QPointF(x_hi > x_lo ? x_hi : x_lo + 1, value)});
    chart->addSeries(line);
    all.push_back(line);
    y_hi = std::max(y_hi, value);
  }
  QAbstractAxis* x = nullptr;
  if (spec.x_log && x_lo > 0) {
    auto* log = new QLogValueAxis;
    log->setBase(10);
    log->setRange(x_lo, x_hi);
    x = log;
  } else {
    auto* lin = new QValueAxis;
    lin->setRange(x_lo, x_hi > x_lo ? x_hi : x_lo + 1);
    apply_nice_ticks(lin);
    x = lin;
  }
  auto* y = new QValueAxis;
  if (spec.y_range)
    y->setRange(spec.y_range->first, spec.y_range->second);
  else
    y->setRange(std::min(0.0, y_lo), y_hi > 0 ? y_hi * 1.05 : 1.0);
  if (!spec.y_range) apply_nice_ticks(y);  // a range the caller chose stays as chosen
  style_axis(x, spec.x_title);
  style_axis(y, spec.y_title);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  for (auto* s : all) {
    s->attachAxis(x);
    s->attachAxis(y);
  }
  return chart;
}

void show_chart(QChartView* view, QChart* chart) {
  QChart* old = view->chart();
  view->setChart(chart);
  delete old;
}

}  // namespace servescope::widgets

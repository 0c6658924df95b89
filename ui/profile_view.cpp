#include "ui/profile_view.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "model/core/error.h"
#include "ui/project_document.h"
#include "widgets/chart_facade.h"
#include "widgets/model_colors.h"

namespace servescope::ui {
namespace {

// The batch sizes a profile answers for on (gpu, share): every size up to 64, or the profiled ones.
std::vector<int> batches_of(const ModelProfile& p, std::string_view gpu, GpuShare share) {
  std::vector<int> out;
  const int lo = std::max(1, p.min_batch(gpu, share)), hi = std::min(p.max_batch(gpu, share), 256);
  for (int b = lo; b <= hi; b = b < 8 ? b + 1 : b * 2)
    out.push_back(b);
  if (!out.empty() && out.back() != hi && hi >= lo) out.push_back(hi);
  return out;
}

// A measured block table's spread at `batches` (interpolated between profiled sizes, as the
// latency is, so the band's lower edge is the line itself): the whole model at every block's
// median (what the planners read) and at every block's 99th percentile. The sum of the blocks'
// 99th percentiles is above the model's own (the blocks seldom all peak in one run), which is
// the side a latency SLO should be read on. Empty without a measured spread.
struct SpreadPoint {
  int batch = 1;
  double p50_ms = 0, p99_ms = 0;
};
std::vector<SpreadPoint> measured_spread(const ModelProfile& p, std::string_view gpu, GpuShare share,
                                         const std::vector<int>& batches) {
  if (p.form != ProfileForm::Blocks) return {};
  const auto table =
      std::ranges::find_if(p.block_tables, [&](const BlockTable& t) { return t.gpu == gpu && t.share == share; });
  if (table == p.block_tables.end() || table->p99.empty() || table->p99.size() != table->blocks.size()) return {};
  std::vector<SpreadPoint> out;
  for (const int b : batches) {
    SpreadPoint point{b, 0, 0};
    for (std::size_t k = 0; k < table->blocks.size(); ++k) {
      const auto median = table->blocks[k].at(b), p99 = table->p99[k].at(b);
      if (!median || !p99) return {};
      point.p50_ms += median->to_ms();
      point.p99_ms += p99->to_ms();
    }
    point.p99_ms = std::max(point.p99_ms, point.p50_ms);
    out.push_back(point);
  }
  return out;
}

const QString& band_legend_name() {
  static const QString name = QObject::tr("p50–p99 (measured)");
  return name;
}

}  // namespace

LinearFitResult fit_linear(const ModelProfile& profile, std::string_view gpu, GpuShare share) {
  const auto batches = batches_of(profile, gpu, share);
  LinearFitResult r;
  if (batches.empty()) return r;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  std::vector<double> ys;
  for (const int b : batches) {
    const double y = profile.latency({gpu, share, b, std::nullopt}).to_us();
    ys.push_back(y);
    sx += b;
    sy += y;
    sxx += static_cast<double>(b) * b;
    sxy += b * y;
  }
  const double n = static_cast<double>(batches.size());
  const double det = n * sxx - sx * sx;
  r.alpha_us = det > 0 ? (n * sxy - sx * sy) / det : 0;
  r.beta_us = (sy - r.alpha_us * sx) / n;
  for (std::size_t k = 0; k < batches.size(); ++k)
    r.max_error = std::max(r.max_error, std::abs(r.alpha_us * batches[k] + r.beta_us - ys[k]) / std::max(1e-9, ys[k]));
  return r;
}

ProfileView::ProfileView(ProjectDocument* document, QWidget* parent) : QWidget(parent), doc_(document) {
  setObjectName(QStringLiteral("profileView"));
  title_ = new QLabel(this);
  chart_view_ = new QChartView(this);
  chart_view_->setRenderHint(QPainter::Antialiasing);
  chart_view_->setMinimumHeight(widgets::kChartMinHeight);
  blocks_view_ = new QChartView(this);
  blocks_view_->setRenderHint(QPainter::Antialiasing);
  blocks_view_->setMinimumHeight(200);
  table_ = new QTableWidget(this);
  table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
  connect(table_, &QTableWidget::cellChanged, this, &ProfileView::cell_edited);
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  connect(table_, &QTableWidget::currentCellChanged, this, [this](int row) { show_points(row); });
  points_title_ = new QLabel(this);
  points_ = new QTableWidget(this);
  points_->setObjectName(QStringLiteral("profilePoints"));
  points_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
  connect(points_, &QTableWidget::cellChanged, this, &ProfileView::point_edited);
  auto* tables = new QHBoxLayout;
  tables->addWidget(table_, 3);
  auto* points_box = new QVBoxLayout;
  points_box->addWidget(points_title_);
  points_box->addWidget(points_, 1);
  tables->addLayout(points_box, 2);
  tables_ = new QWidget(this);
  tables->setContentsMargins(0, 0, 0, 0);
  tables_->setLayout(tables);
  title_->setWordWrap(true);
  slo_ = new QDoubleSpinBox(this);
  slo_->setObjectName(QStringLiteral("modelSlo"));
  slo_->setRange(0, 1e6);
  slo_->setSpecialValueText(tr("none"));  // 0: the model has no default SLO
  slo_->setDecimals(3);
  slo_->setSuffix(tr(" ms"));
  slo_->setToolTip(tr("The model's default SLO: what a workload sending to it gets unless it sets its own"));
  connect(slo_, &QDoubleSpinBox::editingFinished, this, [this] { set_default_slo_ms(slo_->value()); });
  auto* heading = new QHBoxLayout;
  heading->addWidget(title_, 1);
  heading->addWidget(new QLabel(tr("Default SLO"), this));
  heading->addWidget(slo_);
  auto* box = new QVBoxLayout(this);
  box->addLayout(heading);
  box->addWidget(chart_view_, 3);
  box->addWidget(blocks_view_, 2);
  box->addWidget(tables_, 2);
  box->addStretch(0);
  connect(doc_, &ProjectDocument::changed, this, &ProfileView::rebuild);
  connect(doc_, &ProjectDocument::projectReset, this, [this] { show_model(-1); });
  rebuild();
}

QString ProfileView::edit_linear(int row, bool alpha, double value_us) {
  const auto* p = doc_->project();
  QString why;
  if (!p || model_ < 0 || static_cast<std::size_t>(model_) >= p->scenario.profiles.models.size()) {
    why = tr("no model is shown");
  } else {
    auto profile = p->scenario.profiles.models[static_cast<std::size_t>(model_)];
    const auto fit_it = row >= 0 && static_cast<std::size_t>(row) < rows_.size()
                            ? std::ranges::find_if(profile.linear_fits,
                                                   [&](const LinearFit& f) {
                                                     return f.gpu == rows_[static_cast<std::size_t>(row)].first &&
                                                            f.share == rows_[static_cast<std::size_t>(row)].second;
                                                   })
                            : profile.linear_fits.end();
    if (profile.form != ProfileForm::Linear || fit_it == profile.linear_fits.end()) {
      why = tr("only a linear profile's α and β can be edited here");
    } else if (!(value_us >= 0) || !std::isfinite(value_us) || value_us > 1e9) {
      why = tr("%1 must be a latency of 0 µs or more").arg(alpha ? tr("α") : tr("β"));
    } else {
      auto& fit = *fit_it;
      (alpha ? fit.alpha : fit.beta) = Duration::from_us(value_us);
      if (fit.alpha + fit.beta <= Duration()) {
        why = tr("a batch must take some time: α and β cannot both be 0");
      } else {
        why = doc_->set_profile(
            static_cast<std::size_t>(model_), profile,
            tr("Set %1 of %2 on %3 to %4 µs")
                .arg(alpha ? tr("α") : tr("β"), QString::fromStdString(profile.name), QString::fromStdString(fit.gpu))
                .arg(value_us));
      }
    }
  }
  if (!why.isEmpty()) Q_EMIT refused(why);
  return why;
}

QString ProfileView::set_default_slo_ms(double slo_ms) {
  const auto* p = doc_->project();
  QString why;
  if (!p || model_ < 0 || static_cast<std::size_t>(model_) >= p->scenario.profiles.models.size()) {
    why = tr("no model is shown");
  } else if (!(slo_ms > 0) || !std::isfinite(slo_ms)) {
    why = tr("an SLO must be a positive time");
  } else {
    auto profile = p->scenario.profiles.models[static_cast<std::size_t>(model_)];
    profile.default_slo = Duration::from_ms(slo_ms);
    why = doc_->set_profile(static_cast<std::size_t>(model_), profile,
                            tr("Set %1's default SLO to %2 ms").arg(QString::fromStdString(profile.name)).arg(slo_ms));
  }
  if (!why.isEmpty()) Q_EMIT refused(why);
  return why;
}

void ProfileView::cell_edited(int row, int column) {
  if (column != 4 && column != 5) return;
  bool ok = false;
  const double value = table_->item(row, column)->text().toDouble(&ok);
  const auto why =
      ok ? edit_linear(row, column == 4, value) : tr("'%1' is not a number").arg(table_->item(row, column)->text());
  if (!ok) Q_EMIT refused(why);
  if (!why.isEmpty()) rebuild();  // put the shown value back
}

namespace {

// The curve a point edit changes: configuration (gpu, share) of a table profile, or one block of
// a block profile. nullptr when the profile has none.
BatchCurve* curve_of(ModelProfile& profile, const std::pair<std::string, GpuShare>& config, int block) {
  if (profile.form == ProfileForm::Table) {
    const auto it = std::ranges::find_if(
        profile.batch_tables, [&](const BatchTable& t) { return t.gpu == config.first && t.share == config.second; });
    return it == profile.batch_tables.end() || block != 0 ? nullptr : &it->curve;
  }
  if (profile.form == ProfileForm::Blocks) {
    const auto it = std::ranges::find_if(
        profile.block_tables, [&](const BlockTable& t) { return t.gpu == config.first && t.share == config.second; });
    if (it == profile.block_tables.end() || block < 0 || static_cast<std::size_t>(block) >= it->blocks.size())
      return nullptr;
    return &it->blocks[static_cast<std::size_t>(block)];
  }
  return nullptr;
}

QString us_text(Duration d) {
  return QString::number(d.to_us(), 'f', 1);
}

}  // namespace

QString ProfileView::edit_point(int row, int batch_index, int block, double latency_us) {
  const auto* p = doc_->project();
  QString why;
  if (!p || model_ < 0 || static_cast<std::size_t>(model_) >= p->scenario.profiles.models.size() || row < 0 ||
      static_cast<std::size_t>(row) >= rows_.size()) {
    why = tr("no profile configuration is shown");
  } else {
    auto profile = p->scenario.profiles.models[static_cast<std::size_t>(model_)];
    auto* curve = curve_of(profile, rows_[static_cast<std::size_t>(row)], block);
    if (!curve) {
      why = tr("only a table or block profile has measured points to edit");
    } else if (batch_index < 0 || static_cast<std::size_t>(batch_index) >= curve->batches().size()) {
      why = tr("no such profiled batch");
    } else if (!(latency_us > 0) || !std::isfinite(latency_us) || latency_us > 1e9) {
      why = tr("a latency must be more than 0 µs (and at most 1000 s)");
    } else {
      const auto i = static_cast<std::size_t>(batch_index);
      auto latency = curve->latency();
      const auto& batches = curve->batches();
      const auto value = Duration::from_us(latency_us);
      // A larger batch never runs faster: every batch-size search relies on it (batch_curve.h).
      if (i > 0 && value < latency[i - 1]) {
        why = tr("batch %1 cannot be faster than batch %2 (%3 µs)")
                  .arg(batches[i])
                  .arg(batches[i - 1])
                  .arg(us_text(latency[i - 1]));
      } else if (i + 1 < latency.size() && value > latency[i + 1]) {
        why = tr("batch %1 cannot be slower than batch %2 (%3 µs)")
                  .arg(batches[i])
                  .arg(batches[i + 1])
                  .arg(us_text(latency[i + 1]));
      } else {
        latency[i] = value;
        *curve = BatchCurve(batches, latency);
        const auto& [gpu, share] = rows_[static_cast<std::size_t>(row)];
        why = doc_->set_profile(
            static_cast<std::size_t>(model_), profile,
            (profile.form == ProfileForm::Blocks ? tr("Set block %1 of %2 on %3 %4 at batch %5 to %6 µs").arg(block)
                                                 : tr("Set %2 on %3 %4 at batch %5 to %6 µs"))
                .arg(QString::fromStdString(profile.name), QString::fromStdString(gpu),
                     QString::fromStdString(share.to_string()))
                .arg(batches[i])
                .arg(latency_us));
      }
    }
  }
  if (!why.isEmpty()) Q_EMIT refused(why);
  return why;
}

void ProfileView::point_edited(int row, int column) {
  bool ok = false;
  const double value = points_->item(row, column)->text().toDouble(&ok);
  const auto why = ok ? edit_point(points_row_, row, column, value)
                      : tr("'%1' is not a number").arg(points_->item(row, column)->text());
  if (!ok) Q_EMIT refused(why);
  if (!why.isEmpty()) show_points(points_row_);  // put the shown value back
}

void ProfileView::show_points(int row) {
  const QSignalBlocker quiet(points_);
  points_->clear();
  points_->setRowCount(0);
  points_->setColumnCount(0);
  points_row_ = row;
  const auto* p = doc_->project();
  if (!p || model_ < 0 || static_cast<std::size_t>(model_) >= p->scenario.profiles.models.size() || row < 0 ||
      static_cast<std::size_t>(row) >= rows_.size()) {
    points_title_->setText(tr("Select a configuration to see its measured points"));
    return;
  }
  auto profile = p->scenario.profiles.models[static_cast<std::size_t>(model_)];
  const auto& [gpu, share] = rows_[static_cast<std::size_t>(row)];
  const int columns = profile.form == ProfileForm::Blocks ? profile.block_count : 1;
  if (!curve_of(profile, rows_[static_cast<std::size_t>(row)], 0)) {
    points_title_->setText(tr("A linear profile is its α and β: edit them on the left"));
    return;
  }
  const bool editable = profile.origin.empty();
  points_title_->setText(tr("<b>%1 %2</b>: latency in µs%3")
                             .arg(QString::fromStdString(gpu), QString::fromStdString(share.to_string()),
                                  editable
                                      ? tr(" (double-click to edit)")
                                      : tr(" (from %1: edit that file)").arg(QString::fromStdString(profile.origin))));
  const auto& batches = curve_of(profile, rows_[static_cast<std::size_t>(row)], 0)->batches();
  points_->setColumnCount(columns);
  points_->setRowCount(static_cast<int>(batches.size()));
  QStringList rows_labels, column_labels;
  for (const int b : batches)
    rows_labels << tr("batch %1").arg(b);
  for (int c = 0; c < columns; ++c) {
    column_labels << (profile.form == ProfileForm::Blocks ? tr("block %1").arg(c) : tr("latency"));
    const auto* curve = curve_of(profile, rows_[static_cast<std::size_t>(row)], c);
    for (std::size_t k = 0; k < curve->latency().size(); ++k) {
      auto* item = new QTableWidgetItem(us_text(curve->latency()[k]));
      if (!editable) item->setFlags(item->flags() & ~Qt::ItemIsEditable);
      points_->setItem(static_cast<int>(k), c, item);
    }
  }
  points_->setVerticalHeaderLabels(rows_labels);
  points_->setHorizontalHeaderLabels(column_labels);
  points_->resizeColumnsToContents();
}

void ProfileView::show_model(int index) {
  model_ = index;
  points_row_ = -1;
  rebuild();
}

int ProfileView::block_bars() const {
  const auto* chart = blocks_view_->chart();
  if (!chart || chart->series().isEmpty()) return 0;
  const auto* bars = qobject_cast<const QBarSeries*>(chart->series().front());
  return bars && !bars->barSets().isEmpty() ? static_cast<int>(bars->barSets().front()->count()) : 0;
}

void ProfileView::rebuild_blocks(const ModelProfile& profile) {
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->setAlignment(Qt::AlignRight);
  blocks_view_->setVisible(profile.form == ProfileForm::Blocks);
  if (profile.form == ProfileForm::Blocks) {
    chart->setTitle(tr("Each block at batch 1 (where a pipeline may cut)"));
    auto* series = new QBarSeries;
    QStringList categories;
    for (int b = 0; b < profile.block_count; ++b)
      categories << QString::number(b);
    for (const auto& [gpu, share] : profile.configurations()) {
      auto* set = new QBarSet(
          QStringLiteral("%1 %2").arg(QString::fromStdString(gpu), QString::fromStdString(share.to_string())));
      set->setColor(widgets::color_for_name(set->label(), palette()));
      for (int b = 0; b < profile.block_count; ++b)
        *set << profile.latency({gpu, share, 1, BlockRange{b, b + 1}}).to_ms();
      series->append(set);
    }
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    widgets::set_categories(x, categories);
    x->setTitleText(tr("block"));
    auto* y = new QValueAxis;
    y->setTitleText(tr("latency (ms)"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    y->setMin(0);  // attaching fitted it to the bars; round it
    widgets::apply_nice_ticks(y);
  }
  widgets::show_chart(blocks_view_, chart);
}

int ProfileView::curve_count() const {
  if (!chart_view_->chart()) return 0;
  const auto series = chart_view_->chart()->series();
  return static_cast<int>(std::ranges::count_if(
      series, [](const QAbstractSeries* s) { return s->type() == QAbstractSeries::SeriesTypeLine; }));
}

int ProfileView::band_count() const {
  if (!chart_view_->chart()) return 0;
  const auto series = chart_view_->chart()->series();
  return static_cast<int>(std::ranges::count_if(series, [](const QAbstractSeries* s) {
    const auto* area = qobject_cast<const QAreaSeries*>(s);
    return area && area->upperSeries() && area->upperSeries()->count() > 0;
  }));
}

void ProfileView::rebuild() {
  auto* chart = new QChart;
  chart->setAnimationOptions(QChart::NoAnimation);  // gui-anchors: charts without animations
  chart->legend()->setAlignment(Qt::AlignRight);
  const QSignalBlocker quiet(table_);  // filling the table is not an edit
  rows_.clear();
  table_->clear();
  table_->setRowCount(0);
  const auto* p = doc_->project();
  if (!p || model_ < 0 || static_cast<std::size_t>(model_) >= p->scenario.profiles.models.size()) {
    // Nothing picked: say what the tab is for instead of empty charts and tables.
    const auto models = p ? static_cast<int>(p->scenario.profiles.models.size()) : 0;
    title_->setText(models == 0 ? tr("<p><b>No models yet.</b></p><p>Add some with Edit → Add estimated models or "
                                     "File → Import profiles; this tab then shows each one's latency against "
                                     "batch size on every GPU type and share, with its α·b + β fit.</p>")
                                : tr("<p><b>Pick a model</b> under Models in the project tree (this project has "
                                     "%n).</p><p>This tab shows its latency against batch size on every GPU type "
                                     "and share, with the α·b + β fit and its error, per-block latencies for "
                                     "block profiles, and every measured point, editable.</p>",
                                     nullptr, models));
    widgets::show_chart(chart_view_, chart);
    chart_view_->setVisible(false);
    blocks_view_->setVisible(false);
    tables_->setVisible(false);
    {
      const QSignalBlocker still(slo_);
      slo_->setValue(0);
    }
    slo_->setEnabled(false);
    show_points(-1);
    return;
  }
  chart_view_->setVisible(true);
  tables_->setVisible(true);
  const auto& profile = p->scenario.profiles.models[static_cast<std::size_t>(model_)];
  {
    const QSignalBlocker still(slo_);  // showing the SLO is not an edit
    slo_->setValue(profile.default_slo ? profile.default_slo->to_ms() : 0.0);
  }
  slo_->setEnabled(true);
  title_->setText(
      tr("<b>%1</b>: %2 profile%3")
          .arg(QString::fromStdString(profile.name), QString::fromUtf8(to_string(profile.form).data()),
               profile.default_slo ? tr(", default SLO %1 ms").arg(profile.default_slo->to_ms()) : QString()));
  table_->setColumnCount(7);
  table_->setHorizontalHeaderLabels(
      {tr("GPU"), tr("share"), tr("batches"), tr("latency at b=1"), tr("α (µs/item)"), tr("β (µs)"), tr("fit error")});
  auto* axis_x = new QLogValueAxis;
  axis_x->setBase(2);
  axis_x->setTitleText(tr("batch size"));
  axis_x->setLabelFormat(QStringLiteral("%d"));
  auto* axis_y = new QValueAxis;
  axis_y->setTitleText(tr("latency (ms)"));
  chart->addAxis(axis_x, Qt::AlignBottom);
  chart->addAxis(axis_y, Qt::AlignLeft);
  double top = 0;
  int bands = 0;
  for (const auto& [gpu, share] : profile.configurations()) {
    const auto batches = batches_of(profile, gpu, share);
    if (batches.empty()) continue;
    const auto label =
        QStringLiteral("%1 %2").arg(QString::fromStdString(gpu), QString::fromStdString(share.to_string()));
    const auto color = widgets::color_for_name(label, palette());
    if (const auto spread = measured_spread(profile, gpu, share, batches); !spread.empty()) {
      // Added before its line, so the line is drawn over it.
      auto* lower = new QLineSeries;
      auto* upper = new QLineSeries;
      for (const auto& point : spread) {
        lower->append(point.batch, point.p50_ms);
        upper->append(point.batch, point.p99_ms);
        top = std::max(top, point.p99_ms);
      }
      auto* band = new QAreaSeries(upper, lower);
      band->setName(band_legend_name());
      auto fill = color;
      fill.setAlpha(70);
      band->setBrush(fill);
      band->setPen(QPen(color, 1, Qt::DotLine));
      chart->addSeries(band);
      upper->setParent(band);  // the area series does not own its edges
      lower->setParent(band);
      band->attachAxis(axis_x);
      band->attachAxis(axis_y);
      // One legend entry says what every band is, in a neutral tone: each band takes its
      // line's colour.
      for (auto* marker : chart->legend()->markers(band)) {
        marker->setVisible(bands == 0);
        auto neutral = palette().color(QPalette::WindowText);
        neutral.setAlpha(70);
        marker->setBrush(neutral);
        marker->setPen(Qt::NoPen);
      }
      ++bands;
    }
    auto* series = new QLineSeries;
    series->setName(label);
    series->setPen(QPen(color, 2));  // as build_chart's lines: one pixel of a pale colour vanishes
    for (const int b : batches) {
      const double ms = profile.latency({gpu, share, b, std::nullopt}).to_ms();
      series->append(b, ms);
      top = std::max(top, ms);
    }
    chart->addSeries(series);
    series->attachAxis(axis_x);
    series->attachAxis(axis_y);
    const auto fit = fit_linear(profile, gpu, share);
    rows_.emplace_back(gpu, share);
    const int row = table_->rowCount();
    table_->insertRow(row);
    const QStringList cells{
        QString::fromStdString(gpu),
        QString::fromStdString(share.to_string()),
        QStringLiteral("%1–%2").arg(batches.front()).arg(batches.back()),
        QStringLiteral("%1 ms").arg(profile.latency({gpu, share, 1, std::nullopt}).to_ms(), 0, 'f', 3),
        QString::number(fit.alpha_us, 'f', 1),
        QString::number(fit.beta_us, 'f', 1),
        QStringLiteral("%1 %").arg(100 * fit.max_error, 0, 'f', 1)};
    const bool editable = profile.form == ProfileForm::Linear && profile.origin.empty();
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (!(editable && (c == 4 || c == 5))) item->setFlags(item->flags() & ~Qt::ItemIsEditable);
      table_->setItem(row, c, item);
    }
  }
  axis_y->setRange(0, top * 1.05 + 1e-6);
  widgets::apply_nice_ticks(axis_y);
  widgets::show_chart(chart_view_, chart);
  rebuild_blocks(profile);
  table_->resizeColumnsToContents();
  show_points(points_row_ >= 0 && static_cast<std::size_t>(points_row_) < rows_.size() ? points_row_ : 0);
}

void ProfileView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  // Its scene or charts take their colours when built.
  if (event->type() == QEvent::PaletteChange) rebuild();
}

}  // namespace servescope::ui

#include "ui/charts_view.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>

#include "engine/analysis/run_headline.h"
#include "engine/analysis/run_series.h"
#include "engine/analysis/saved_artifacts.h"
#include "model/core/error.h"
#include "ui/project_document.h"
#include "widgets/chart_facade.h"

namespace servescope::ui {
namespace {

enum Chart : std::size_t { Attainment, Goodput, Busy, Gpus, Batches, Latency, Sweeps, kCharts };

bool is_run(const SavedArtifact& a) {
  return engine::artifact_kind(a) == engine::ArtifactKind::RunResult;
}

}  // namespace

ChartsView::ChartsView(ProjectDocument* document, QWidget* parent) : QWidget(parent), doc_(document) {
  setObjectName(QStringLiteral("chartsView"));
  runs_ = new QComboBox(this);
  runs_->setMinimumContentsLength(16);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  // The charts keep a legible size and scroll when the window is smaller, so this tab never
  // sets the window's minimum size (a 1280×800 screen holds the window with its docks).
  auto* charts = new QWidget(this);
  grid_ = new QGridLayout(charts);
  grid_->setContentsMargins(0, 0, 0, 0);
  for (std::size_t c = 0; c < kCharts; ++c) {
    auto* view = new QChartView(charts);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumSize(widgets::kChartMinWidth, widgets::kChartMinHeight);
    views_.push_back(view);
  }
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Run"), this));
  top->addWidget(runs_);
  top->addWidget(status_, 1);
  auto* box = new QVBoxLayout(this);
  box->addLayout(top);
  scroll_ = new QScrollArea(this);
  scroll_->setObjectName(QStringLiteral("chartsScroll"));
  scroll_->setFrameShape(QFrame::NoFrame);
  scroll_->setWidgetResizable(true);
  scroll_->setWidget(charts);
  box->addWidget(scroll_, 1);
  scroll_->viewport()->installEventFilter(this);
  reflow();
  connect(runs_, &QComboBox::activated, this, [this] { show_run(runs_->currentText()); });
  connect(doc_, &ProjectDocument::changed, this, &ChartsView::refresh);
  connect(doc_, &ProjectDocument::projectReset, this, &ChartsView::refresh);
  refresh();
}

bool ChartsView::eventFilter(QObject* watched, QEvent* event) {
  // The viewport's own size, once the layout has given it (the tab's resize comes before it).
  if (watched == scroll_->viewport() && event->type() == QEvent::Resize) reflow();
  return QWidget::eventFilter(watched, event);
}

void ChartsView::reflow() {
  // Three columns at 1920 px, two at 1280 with the docks open, one on a narrow window: the
  // charts scroll down, never sideways (a third column half cut off read as a missing chart).
  const int room = scroll_->viewport()->width();
  const int spacing = std::max(0, grid_->horizontalSpacing());
  const int columns = std::clamp((room + spacing) / (widgets::kChartMinWidth + spacing), 1, 3);
  if (columns == columns_) return;
  columns_ = columns;
  for (auto* view : views_)
    grid_->removeWidget(view);
  for (std::size_t c = 0; c < views_.size(); ++c)
    grid_->addWidget(views_[c], static_cast<int>(c) / columns, static_cast<int>(c) % columns);
}

void ChartsView::refresh() {
  const auto* p = doc_->project();
  const auto shown = runs_->currentText();
  runs_->clear();
  if (p)
    for (const auto& run : p->runs)
      if (is_run(run)) runs_->addItem(QString::fromStdString(run.name));
  if (runs_->count() == 0) {
    for (auto* view : views_)
      widgets::show_chart(view, new QChart);
    status_->setText(tr("No simulated run yet: simulate one in the Run tab."));
    draw_sweeps();
    return;
  }
  // The newest run unless one was chosen.
  show_run(runs_->findText(shown) >= 0 ? shown : runs_->itemText(runs_->count() - 1));
}

bool ChartsView::show_run(const QString& name) {
  const auto* p = doc_->project();
  if (!p) return false;
  const auto it =
      std::ranges::find_if(p->runs, [&](const SavedArtifact& a) { return is_run(a) && a.name == name.toStdString(); });
  if (it == p->runs.end()) return false;
  runs_->setCurrentIndex(runs_->findText(name));
  engine::RunSeries s;
  try {
    s = engine::run_series(it->body, it->name);
  } catch (const Error& e) {
    status_->setText(QString::fromStdString(e.what()));
    return false;
  }
  const auto pal = palette();
  using widgets::ChartSpec;
  using widgets::SeriesKind;
  const auto draw = [&](std::size_t chart, const ChartSpec& spec) {
    widgets::show_chart(views_[chart], widgets::build_chart(spec, pal));
  };
  draw(Attainment, {tr("SLO attainment over time"),
                    tr("time (s)"),
                    tr("% on time"),
                    SeriesKind::Line,
                    {s.attainment_pct},
                    std::pair{0.0, 100.0},
                    false,
                    {{99.0, tr("99 % target")}}});
  draw(Goodput, {tr("Goodput over time"),
                 tr("time (s)"),
                 tr("req/s on time"),
                 SeriesKind::Line,
                 {s.goodput_rps},
                 std::nullopt,
                 false});
  draw(Busy, {tr("GPU busy time per class"), tr("time (s)"), tr("% busy"), SeriesKind::Line, s.busy_by_type,
              std::pair{0.0, 100.0}, false});
  std::vector<engine::Series> gpus{s.used_gpus};
  if (!s.advised_gpus.points.empty()) gpus.push_back(s.advised_gpus);
  // Only Symphony's data plane advises how many GPUs to keep; say so instead of a missing line.
  draw(Gpus, {gpus.size() > 1 ? tr("GPUs in use and autoscaling advice") : tr("GPUs in use (no autoscaling advice)"),
              tr("time (s)"), tr("GPUs"), SeriesKind::Step, gpus, std::nullopt, false});
  draw(Batches,
       {tr("Batch sizes"), tr("batch size"), tr("batches"), SeriesKind::Bars, {s.batch_sizes}, std::nullopt, false});
  draw(Latency, {tr("Latency CDF"),
                 tr("latency (ms)"),
                 tr("share of requests"),
                 SeriesKind::Line,
                 {s.latency_cdf},
                 std::pair{0.0, 1.0},
                 true});
  // The run was read in full when it joined the project; its headline reads the same way.
  try {
    const auto h = engine::run_headline(it->body, p->scenario.catalog(), it->name);
    status_->setText(tr("%1: %2 % on time, goodput %3 req/s, p99 %4 ms")
                         .arg(name)
                         .arg(100 * h.summary.slo_attainment, 0, 'f', 2)
                         .arg(h.summary.goodput_rps, 0, 'f', 1)
                         .arg(h.summary.p99.to_ms(), 0, 'f', 2));
  } catch (const Error& e) {
    status_->setText(QString::fromStdString(e.what()));
  }
  draw_sweeps();
  return true;
}

void ChartsView::draw_sweeps() {
  std::vector<engine::Series> curves;
  if (const auto* p = doc_->project())
    for (const auto& a : p->runs)
      if (engine::artifact_kind(a) == engine::ArtifactKind::LoadSweep) try {
          curves.push_back(engine::attainment_vs_load(a.body, a.name));
        } catch (const Error&) {
          // A sweep that does not read is left out; the Run tab reports such files when made.
        }
  widgets::show_chart(
      views_[Sweeps],
      widgets::build_chart(
          {curves.empty() ? tr("SLO attainment vs load (Run tab: Sweep load)") : tr("SLO attainment vs load factor"),
           tr("load factor"), tr("% on time"), widgets::SeriesKind::Line, curves, std::nullopt, false},
          palette()));
}

int ChartsView::chart_count() const {
  return static_cast<int>(
      std::ranges::count_if(views_, [](const QChartView* v) { return v->chart() && !v->chart()->series().isEmpty(); }));
}

int ChartsView::sweep_curves() const {
  const auto* chart = views_[Sweeps]->chart();
  return chart ? static_cast<int>(chart->series().size()) : 0;
}

void ChartsView::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  // Its scene or charts take their colours when built.
  if (event->type() == QEvent::PaletteChange) refresh();
}

}  // namespace servescope::ui

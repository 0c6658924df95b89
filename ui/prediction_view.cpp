#include "ui/prediction_view.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <sstream>
#include <utility>

#include "engine/analysis/calibration_report.h"
#include "engine/analysis/live_run_source.h"
#include "engine/analysis/prediction_report.h"
#include "engine/analysis/run_calibration.h"
#include "engine/analysis/saved_artifacts.h"
#include "model/core/error.h"
#include "ui/project_document.h"
#include "ui/run_view.h"
#include "widgets/timeline_view.h"

namespace servescope::ui {
namespace {

const SavedArtifact* find_run(const Project* p, const QString& name) {
  if (!p) return nullptr;
  const auto it = std::ranges::find(p->runs, name.toStdString(), &SavedArtifact::name);
  return it == p->runs.end() ? nullptr : &*it;
}

QString percent(double fraction) {
  return QStringLiteral("%1 %").arg(100 * fraction, 0, 'f', 2);
}

}  // namespace

PredictionView::PredictionView(ProjectDocument* document, RunView* runs, QWidget* parent)
    : QWidget(parent), doc_(document), runs_(runs) {
  setObjectName(QStringLiteral("predictionView"));
  live_runs_ = new QComboBox(this);
  live_runs_->setObjectName(QStringLiteral("predictionLiveRuns"));
  live_runs_->setMinimumContentsLength(24);
  predict_ = new QPushButton(tr("Predict"), this);
  predict_->setToolTip(tr("Simulate the live run's system or plan at its rate, seed and length, and compare"));
  calibrate_ = new QPushButton(tr("Calibrate…"), this);
  calibrate_->setToolTip(tr("Fit the project's profiles to the live run's batches (servescope-cli calibrate)"));
  status_ = new QLabel(tr("Keep a live run on the Live tab, then predict it here."), this);
  status_->setWordWrap(true);
  table_ = new QTableWidget(0, 7, this);
  table_->setHorizontalHeaderLabels({tr("Model"), tr("On time, live"), tr("predicted"), tr("Goodput, live (req/s)"),
                                     tr("predicted"), tr("p99, live (ms)"), tr("predicted")});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setMaximumHeight(150);
  differences_ = new QLabel(this);
  differences_->setObjectName(QStringLiteral("predictionDifferences"));
  differences_->setWordWrap(true);
  differences_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  differences_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  // One window for both timelines: zooming or panning one moves the other.
  state_ = new widgets::TimelineViewState(this);
  live_view_ = new widgets::TimelineView(this);
  predicted_view_ = new widgets::TimelineView(this);
  // Small minimums (the splitters give them the room): the tab fits a 1280×800 screen.
  table_->setMinimumHeight(60);
  for (auto* view : {live_view_, predicted_view_}) {
    view->setMinimumHeight(60);
    view->set_state(state_);
    view->set_empty_text(tr("Predict a kept live run to see it here."));
  }
  live_label_ = new QLabel(tr("Live"), this);
  predicted_label_ = new QLabel(tr("Predicted"), this);
  auto* stack = new QSplitter(Qt::Vertical, this);
  for (auto [label, view] : {std::pair{live_label_, live_view_}, std::pair{predicted_label_, predicted_view_}}) {
    auto* pane = new QWidget(stack);
    auto* box = new QVBoxLayout(pane);
    box->setContentsMargins(0, 0, 0, 0);
    box->addWidget(label);
    box->addWidget(view, 1);
    stack->addWidget(pane);
  }
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Live run"), this));
  top->addWidget(live_runs_, 1);
  top->addWidget(predict_);
  top->addWidget(calibrate_);
  auto* upper = new QWidget(this);
  auto* upper_box = new QVBoxLayout(upper);
  upper_box->setContentsMargins(0, 0, 0, 0);
  upper_box->addWidget(table_);
  // However many differences there are, the tab fits a laptop screen: they scroll.
  auto* scroll = new QScrollArea(upper);
  scroll->setWidget(differences_);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setMinimumHeight(40);
  upper_box->addWidget(scroll, 1);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(upper);
  split->addWidget(stack);
  split->setStretchFactor(1, 3);
  auto* box = new QVBoxLayout(this);
  box->addLayout(top);
  box->addWidget(status_);
  box->addWidget(split, 1);
  connect(predict_, &QPushButton::clicked, this, [this] { predict(); });
  connect(calibrate_, &QPushButton::clicked, this, &PredictionView::show_calibrate_dialog);
  connect(live_runs_, &QComboBox::currentTextChanged, this, [this](const QString& name) {
    if (const auto prediction = prediction_for(name); !prediction.isEmpty()) show_pair(name, prediction);
  });
  connect(runs_, &RunView::predicted, this, [this](const QString& live, const QString& prediction) {
    choose_live_run(live);
    show_pair(live, prediction);
  });
  connect(runs_, &RunView::finished, this, [this] {
    predict_->setEnabled(live_runs_->count() > 0 && !runs_->busy());
    // A prediction that failed or was stopped says why here; one that landed is shown next.
    if (std::exchange(waiting_, false)) status_->setText(runs_->status_text());
  });
  connect(doc_, &ProjectDocument::changed, this, &PredictionView::refresh);
  connect(doc_, &ProjectDocument::projectReset, this, &PredictionView::refresh);
  refresh();
}

QString PredictionView::status_text() const {
  return status_->text();
}

QString PredictionView::differences_text() const {
  return differences_->text();
}

void PredictionView::choose_live_run(const QString& name) {
  live_runs_->setCurrentIndex(std::max(0, live_runs_->findText(name)));
}

void PredictionView::refresh() {
  const auto shown = live_runs_->currentText();
  {
    const QSignalBlocker quiet(live_runs_);
    live_runs_->clear();
    if (const auto* p = doc_->project())
      for (const auto& run : p->runs)
        if (engine::artifact_kind(run) == engine::ArtifactKind::RunResult && engine::is_live_run(run.body))
          live_runs_->addItem(QString::fromStdString(run.name));
    live_runs_->setCurrentIndex(std::max(0, live_runs_->findText(shown)));
  }
  const bool any = live_runs_->count() > 0;
  predict_->setEnabled(any && !runs_->busy());
  calibrate_->setEnabled(any);
  if (!any) status_->setText(tr("Keep a live run on the Live tab (Keep run), then predict it here."));
}

QString PredictionView::prediction_for(const QString& live) const {
  const auto* p = doc_->project();
  if (!p) return {};
  // The newest: a later prediction (other options, a calibrated project) supersedes earlier ones.
  for (auto it = p->runs.rbegin(); it != p->runs.rend(); ++it)
    if (it->body.is_object() && it->body.value("prediction_of", std::string()) == live.toStdString())
      return QString::fromStdString(it->name);
  return {};
}

bool PredictionView::predict() {
  const auto live = live_runs_->currentText();
  if (live.isEmpty()) {
    status_->setText(tr("No live run kept in the project: keep one on the Live tab first."));
    return false;
  }
  if (!runs_->predict(live)) {
    status_->setText(runs_->status_text());
    return false;
  }
  status_->setText(runs_->status_text());
  predict_->setEnabled(false);
  waiting_ = true;
  return true;
}

bool PredictionView::show_pair(const QString& live, const QString& prediction) {
  const auto* p = doc_->project();
  const auto* l = find_run(p, live);
  const auto* s = find_run(p, prediction);
  if (!l || !s) {
    status_->setText(tr("The project has no run named '%1'").arg(!l ? live : prediction));
    return false;
  }
  engine::PredictionReport report;
  try {
    report = engine::compare_with_prediction(l->body, s->body, l->name, s->name);
  } catch (const Error& e) {
    status_->setText(tr("Cannot compare: %1").arg(QString::fromStdString(e.what())));
    return false;
  }
  auto rows = report.models;
  if (rows.size() > 1) rows.insert(rows.begin(), report.total);
  table_->setRowCount(static_cast<int>(rows.size()));
  for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
    const auto& row = rows[static_cast<std::size_t>(r)];
    const QStringList cells = {QString::fromStdString(row.model),
                               percent(row.live_attainment),
                               percent(row.predicted_attainment),
                               QString::number(row.live_goodput_rps, 'f', 1),
                               QString::number(row.predicted_goodput_rps, 'f', 1),
                               QString::number(row.live_p99_ms, 'f', 2),
                               QString::number(row.predicted_p99_ms, 'f', 2)};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(r, c, item);
    }
  }
  table_->resizeColumnsToContents();
  QString text = tr("<b>Largest differences</b> (live against predicted)<ul>");
  if (report.differences.empty()) text += tr("<li>none above 0.1 point, 3 % of batch time or 2 % of shared time</li>");
  constexpr std::size_t kShown = 8;
  for (std::size_t i = 0; i < std::min(kShown, report.differences.size()); ++i)
    text += QStringLiteral("<li>%1</li>").arg(QString::fromStdString(report.differences[i].text).toHtmlEscaped());
  text += QStringLiteral("</ul>");
  for (const auto& note : report.notes)
    text += tr("<i>Note: %1</i><br>").arg(QString::fromStdString(note).toHtmlEscaped());
  differences_->setText(text);
  // The timelines, lined up at their first batch: the live one is timed from its scheduler's
  // start, the prediction from its first arrival.
  QString why_live, why_predicted;
  const auto live_timeline = runs_->timeline_for(live, &why_live);
  const auto predicted_timeline = runs_->timeline_for(prediction, &why_predicted);
  std::shared_ptr<const engine::TimelineData> aligned = live_timeline;
  if (live_timeline && predicted_timeline && !live_timeline->spans.empty() && !predicted_timeline->spans.empty())
    aligned = std::make_shared<const engine::TimelineData>(
        engine::shifted(*live_timeline, predicted_timeline->spans.front().start - live_timeline->spans.front().start));
  live_view_->set_timeline(aligned);
  predicted_view_->set_timeline(predicted_timeline);
  live_label_->setText(aligned ? tr("Live: %1").arg(live) : tr("Live: %1 (no timeline: %2)").arg(live, why_live));
  predicted_label_->setText(predicted_timeline ? tr("Predicted: %1").arg(prediction)
                                               : tr("Predicted: %1 (no timeline: %2)").arg(prediction, why_predicted));
  std::int64_t end = 0;
  for (const auto& t : {aligned, predicted_timeline})
    if (t) end = std::max(end, t->end.count_ns());
  state_->reset(end);
  status_->setText(
      tr("%1 beside %2: %3 on time live, %4 predicted")
          .arg(live, prediction, percent(report.total.live_attainment), percent(report.total.predicted_attainment)));
  return true;
}

bool PredictionView::calibrate(bool apply, QString* report) {
  const auto* p = doc_->project();
  const auto live = live_runs_->currentText();
  const auto* run = find_run(p, live);
  if (!run) {
    status_->setText(tr("No live run kept in the project: keep one on the Live tab first."));
    return false;
  }
  QString why;
  const auto timeline = runs_->timeline_for(live, &why);
  if (!timeline) {
    status_->setText(tr("Cannot calibrate on '%1': %2").arg(live, why));
    return false;
  }
  engine::Calibration calibration;
  try {
    const auto source = engine::live_run_source(*p, *run);
    engine::CalibrationOptions options;
    options.skip_before = engine::run_warmup(run->body, run->name);
    calibration = engine::calibrate_run(p->scenario, source.spec, *timeline, options);
  } catch (const Error& e) {
    status_->setText(tr("Cannot calibrate on '%1': %2").arg(live, QString::fromStdString(e.what())));
    return false;
  }
  std::ostringstream text;
  engine::write_calibration_report(text, calibration, run->name);
  if (report) *report = QString::fromStdString(text.str());
  if (!apply) {
    status_->setText(tr("Calibrated on %1 batches of '%2'").arg(calibration.batches_used).arg(live));
    return true;
  }
  const auto failed = doc_->replace_profiles(calibration.profiles, tr("Calibrate profiles on %1").arg(live));
  if (!failed.isEmpty()) {
    status_->setText(tr("Calibrated profiles not applied: %1").arg(failed));
    return false;
  }
  status_->setText(tr("The project's profiles are calibrated on %1 batches of '%2' (Undo puts them back); predict "
                      "again to see how close they come")
                       .arg(calibration.batches_used)
                       .arg(live));
  Q_EMIT message(status_->text());
  return true;
}

void PredictionView::show_calibrate_dialog() {
  QString report;
  if (!calibrate(false, &report)) return;
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Calibrate on %1").arg(live_runs_->currentText()));
  auto* text = new QPlainTextEdit(report, &dialog);
  text->setReadOnly(true);
  text->setMinimumSize(text->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 100,
                       text->fontMetrics().height() * 20);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, &dialog);
  buttons->addButton(tr("Apply to the project"), QDialogButtonBox::AcceptRole);
  auto* box = new QVBoxLayout(&dialog);
  box->addWidget(new QLabel(tr("What the live run's batches say about the project's profiles:"), &dialog));
  box->addWidget(text, 1);
  box->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() == QDialog::Accepted) calibrate(true);
}

}  // namespace servescope::ui

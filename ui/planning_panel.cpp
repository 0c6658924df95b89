#include "ui/planning_panel.h"

#include <QAction>
#include <QComboBox>
#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "engine/milp/milp_problem.h"
#include "engine/systems/scenario_planner.h"
#include "engine/systems/system_registry.h"
#include "model/core/error.h"
#include "ui/background_job.h"
#include "ui/exception_guard.h"
#include "ui/plan_comparison_model.h"
#include "ui/project_document.h"
#include "widgets/family_option_tabs.h"

namespace servescope::ui {

PlanningPanel::PlanningPanel(ProjectDocument* document, QWidget* parent)
    : QWidget(parent), doc_(document), comparison_(new PlanComparisonModel(this)) {
  setObjectName(QStringLiteral("planningPanel"));
  job_ = new BackgroundJob(doc_, this);
  connect(job_, &BackgroundJob::finished, this, &PlanningPanel::job_finished);
  systems_ = new QListWidget(this);
  systems_->setObjectName(QStringLiteral("planners"));
  for (const auto& [family, name] : engine::scenario_planners()) {
    auto* item =
        new QListWidgetItem(QStringLiteral("%1  (%2)")
                                .arg(QString::fromStdString(name), QString::fromUtf8(engine::to_string(family).data())),
                            systems_);
    item->setData(Qt::UserRole, QString::fromStdString(name));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
  }
  workload_ = new QComboBox(this);
  run_ = new QPushButton(tr("Run"), this);
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setEnabled(false);
  progress_ = new QProgressBar(this);
  connect(job_, &BackgroundJob::progress, progress_, &QProgressBar::setValue);
  progress_->setTextVisible(true);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  table_ = new QTableView(this);
  table_->setObjectName(QStringLiteral("planComparison"));
  table_->setModel(comparison_);
  table_->horizontalHeader()->setStretchLastSection(true);
  // Narrow enough for the dock: the kind is in each row's tool tip and its throughput's label.
  table_->hideColumn(PlanComparisonModel::Family);
  table_->horizontalHeader()->setToolTip(tr("Hover a row for what its numbers are"));
  table_->verticalHeader()->hide();
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);

  options_ = new QTabWidget(this);
  options_->setObjectName(QStringLiteral("plannerOptions"));
  options_->setDocumentMode(true);
  forms_ = std::make_unique<widgets::FamilyOptionTabs<engine::ScenarioPlanRequest>>(options_);
  for (const auto& family : engine::SystemRegistry::instance().families())
    if (!family->planners().empty()) forms_->add(*family, family->planner_options());
  auto* controls = new QHBoxLayout;
  controls->addWidget(workload_, 1);
  controls->addWidget(run_);
  controls->addWidget(cancel_);
  auto* box = new QVBoxLayout(this);
  box->addWidget(systems_, 1);
  box->addWidget(options_, 1);
  box->addLayout(controls);
  box->addWidget(progress_);
  box->addWidget(status_);
  box->addWidget(table_, 2);

  run_action_ = new QAction(tr("Run &planners"), this);
  run_action_->setShortcut(QKeySequence(Qt::Key_F6));
  connect(run_action_, &QAction::triggered, run_, &QPushButton::click);
  connect(run_, &QPushButton::clicked, this, [this] {
    QStringList chosen;
    for (int i = 0; i < systems_->count(); ++i)
      if (systems_->item(i)->checkState() == Qt::Checked) chosen << systems_->item(i)->data(Qt::UserRole).toString();
    if (chosen.isEmpty()) {
      status_->setText(tr("Tick at least one planner."));
      return;
    }
    run_planners(chosen, workload_->currentData().toString());
  });
  // Ticking a planner shows its family's options.
  connect(systems_, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
    if (item->checkState() != Qt::Checked) return;
    forms_->show(engine::planning_family(item->data(Qt::UserRole).toString().toStdString()));
  });
  connect(cancel_, &QPushButton::clicked, this, &PlanningPanel::cancel);
  connect(doc_, &ProjectDocument::changed, this, &PlanningPanel::refresh);
  connect(doc_, &ProjectDocument::projectReset, this, &PlanningPanel::refresh);
  refresh();
}

PlanningPanel::~PlanningPanel() {
  delete job_;  // stops after the planner that is running and waits: before the members it names
}

bool PlanningPanel::busy() const {
  return job_->busy();
}

void PlanningPanel::refresh() {
  const auto* p = doc_->project();
  comparison_->set_project(p);
  table_->resizeColumnsToContents();
  const auto current = workload_->currentData().toString();
  workload_->clear();
  workload_->addItem(tr("All workloads"), QString());
  if (p)
    for (const auto& w : p->scenario.workloads)
      workload_->addItem(QString::fromStdString(w.name), QString::fromStdString(w.name));
  workload_->setCurrentIndex(std::max(0, workload_->findData(current)));
  QStringList gpu_types;
  if (p)
    for (const auto& [type, count] : p->scenario.cluster.gpus_by_type())
      gpu_types << QString::fromStdString(type);
  forms_->set_gpu_types(gpu_types);
  run_->setEnabled(p != nullptr && !job_->busy());
}

bool PlanningPanel::run_planners(const QStringList& systems, const QString& workload) {
  if (job_->busy() || !doc_->project() || systems.isEmpty()) return false;
  // The worker plans a copy: edits made meanwhile do not reach a solver halfway through.
  auto scenario = std::make_shared<const Scenario>(doc_->project()->scenario);
  std::vector<std::string> names;
  for (const auto& s : systems)
    names.push_back(s.toStdString());
  const auto chosen_workload = workload.toStdString();
  // Each planner gets its own family's options: one request per family.
  std::vector<std::pair<const engine::ServingFamily*, engine::ScenarioPlanRequest>> requests;
  for (const auto* family : forms_->families()) {
    engine::ScenarioPlanRequest request;
    if (const auto why = forms_->apply(*family, request); !why.isEmpty()) {
      status_->setText(why);
      return false;
    }
    requests.emplace_back(family, std::move(request));
  }
  progress_->setRange(0, static_cast<int>(names.size()));
  progress_->setValue(0);
  failures_.clear();
  status_->setText(tr("Planning with %1…").arg(systems.join(QStringLiteral(", "))));
  run_->setEnabled(false);
  cancel_->setEnabled(true);
  job_->start([this, scenario, names, chosen_workload, requests](BackgroundJob::Context& context) {
    const int total = static_cast<int>(names.size());
    for (int k = 0; k < total && !context.stop_requested(); ++k) {
      const auto& system = names[static_cast<std::size_t>(k)];
      // The plan and its summary travel to the UI thread as they are: never printed and parsed again.
      auto planned = std::make_shared<engine::ScenarioPlanResult>();
      const QString error = run_guarded([&] {
        const auto& family = engine::planning_family(system);
        const auto own = std::ranges::find(requests, &family, [](const auto& r) { return r.first; });
        auto request = own == requests.end() ? engine::ScenarioPlanRequest{} : own->second;
        request.system = system;
        if (!chosen_workload.empty()) request.workloads = {chosen_workload};
        *planned = engine::plan_scenario(*scenario, request);
      });
      context.post([this, system = QString::fromStdString(system), planned, error, k, total] {
        plan_done(system, std::move(*planned), error, k + 1, total);
      });
      context.progress(k + 1, total);
    }
    engine::release_solver_thread();
  });
  return true;
}

void PlanningPanel::cancel() {
  if (!job_->busy()) return;
  job_->stop();
  status_->setText(tr("Cancelling after the planner that is running…"));
}

void PlanningPanel::plan_done(const QString& system, engine::ScenarioPlanResult planned, const QString& error, int done,
                              int total) {
  if (!error.isEmpty()) {
    failures_ << tr("%1 could not plan: %2").arg(system, error);
    Q_EMIT message(failures_.back());
    return;
  }
  SavedArtifact artifact;
  artifact.system = system.toStdString();
  artifact.created_utc = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
  artifact.body = std::move(planned.plan);
  if (const auto* p = doc_->project()) artifact.name = unique_artifact_name(p->plans, artifact.system);
  const auto& summary = planned.summary;
  const auto why = doc_->add_plan(std::move(artifact));
  Q_EMIT message(why.isEmpty()
                     ? tr("%1: %2 (%3 of %4)")
                           .arg(system, summary.feasible ? (summary.family == engine::PlannerFamily::Cost
                                                                ? tr("sized for %1 req/s on %2 machines, %3 $/h")
                                                                      .arg(summary.throughput_rps, 0, 'f', 1)
                                                                      .arg(summary.gpus)
                                                                      .arg(summary.cost, 0, 'f', 3)
                                                                : tr("planned %1 req/s on %2 GPUs")
                                                                      .arg(summary.throughput_rps, 0, 'f', 1)
                                                                      .arg(summary.gpus))
                                                         : tr("no feasible plan"))
                           .arg(done)
                           .arg(total)
                     : tr("%1: plan not kept: %2").arg(system, why));
}

void PlanningPanel::job_finished(const QString& error, bool discarded) {
  if (discarded) Q_EMIT message(tr("Plans not kept: their project was closed while they were planned"));
  if (!error.isEmpty()) failures_ << error;  // the loop itself failed, not a planner
  if (discarded)
    status_->setText(tr("Discarded: the project was closed."));
  else if (job_->stop_requested())
    status_->setText(tr("Cancelled."));
  else if (failures_.isEmpty())
    status_->setText(tr("Done."));
  else  // the first reason in full: usually what the user has to change
    status_->setText(failures_.size() == 1
                         ? failures_.front()
                         : tr("%1 (and %2 more in the log)").arg(failures_.front()).arg(failures_.size() - 1));
  cancel_->setEnabled(false);
  run_->setEnabled(doc_->project() != nullptr);
  Q_EMIT finished();
}

QString PlanningPanel::status_text() const {
  return status_->text();
}

}  // namespace servescope::ui

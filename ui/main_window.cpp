#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QBuffer>
#include <QCloseEvent>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QIcon>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QTreeView>
#include <filesystem>
#include <optional>

#include "engine/analysis/run_csv.h"
#include "engine/analysis/saved_artifacts.h"
#include "engine/estimate/cnn_architectures.h"
#include "engine/estimate/profile_estimator.h"
#include "engine/timeline/chrome_trace.h"
#include "model/core/error.h"
#include "model/core/text.h"
#include "model/import/alphabeta_import.h"
#include "model/import/nexus_import.h"
#include "model/import/ppipe_import.h"
#include "model/io/document.h"
#include "model/io/file_io.h"
#include "model/io/json_cursor.h"
#include "model/io/json_text.h"
#include "ui/charts_view.h"
#include "ui/cluster_editor.h"
#include "ui/compare_view.h"
#include "ui/dag_editor.h"
#include "ui/disk_file_watch.h"
#include "ui/exception_guard.h"
#include "ui/item_details.h"
#include "ui/live_view.h"
#include "ui/plan_view.h"
#include "ui/planning_panel.h"
#include "ui/prediction_view.h"
#include "ui/profile_model_dialog.h"
#include "ui/profile_view.h"
#include "ui/project_document.h"
#include "ui/project_tree_model.h"
#include "ui/recovery_store.h"
#include "ui/run_view.h"
#include "ui/save_dialog.h"
#include "ui/workload_dialog.h"
#include "widgets/timeline_view.h"

namespace servescope::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowIcon(QIcon(QStringLiteral(":/packaging/org.servescope.ServeScope.svg")));  // the desktop file's
  setObjectName(QStringLiteral("MainWindow"));
  document_ = new ProjectDocument(this);
  recovery_ = std::make_unique<RecoveryStore>();
  connect(document_, &ProjectDocument::changed, this, &MainWindow::refresh_views);
  connect(document_->undo_stack(), &QUndoStack::cleanChanged, this, &MainWindow::update_title);
  connect(document_->undo_stack(), &QUndoStack::indexChanged, this, [this] {
    const auto* stack = document_->undo_stack();
    if (stack->index() > 0) log(tr("edit: %1").arg(stack->text(stack->index() - 1)));
  });
  details_ = new QTextBrowser(this);
  details_->setObjectName(QStringLiteral("details"));
  details_->setOpenLinks(false);
  dag_ = new DagEditor(document_, this);
  connect(dag_, &DagEditor::refused, this, &MainWindow::report_refusal);
  tabs_ = new QTabWidget(this);
  tabs_->setObjectName(QStringLiteral("centralTabs"));
  tabs_->setDocumentMode(true);
  tabs_->addTab(details_, tr("Details"));
  tabs_->addTab(dag_, tr("Application"));
  cluster_ = new ClusterEditor(document_, this);
  connect(cluster_, &ClusterEditor::refused, this, &MainWindow::report_refusal);
  tabs_->addTab(cluster_, tr("Cluster"));
  profile_view_ = new ProfileView(document_, this);
  tabs_->addTab(profile_view_, tr("Profile"));
  connect(profile_view_, &ProfileView::refused, this, &MainWindow::report_refusal);
  plan_view_ = new PlanView(document_, this);
  tabs_->addTab(plan_view_, tr("Plans"));
  connect(plan_view_, &PlanView::itemSelected, this, &MainWindow::show_plan_item);
  run_view_ = new RunView(document_, this);
  tabs_->addTab(run_view_, tr("Run"));
  connect(run_view_, &RunView::message, this, &MainWindow::log);
  charts_view_ = new ChartsView(document_, this);
  tabs_->addTab(charts_view_, tr("Charts"));
  compare_view_ = new CompareView(document_, run_view_, this);
  tabs_->addTab(compare_view_, tr("Compare"));
  live_view_ = new LiveView(document_, this);
  tabs_->addTab(live_view_, tr("Live"));
  connect(live_view_, &LiveView::message, this, &MainWindow::log);
  connect(live_view_, &LiveView::statusChanged, this, [this](const QString& text) {
    if (tabs_->currentWidget() == live_view_) statusBar()->showMessage(text);
  });
  prediction_view_ = new PredictionView(document_, run_view_, this);
  tabs_->addTab(prediction_view_, tr("Prediction"));
  connect(prediction_view_, &PredictionView::message, this, &MainWindow::log);
  // A prediction that lands is shown at once: the user asked for it on this tab.
  connect(run_view_, &RunView::predicted, this, [this] { tabs_->setCurrentWidget(prediction_view_); });
  setCentralWidget(tabs_);
  build_docks();
  build_actions();
  statusBar()->showMessage(tr("No project"));
  // What the application's exception guard caught goes to the Log dock; the document stays.
  set_error_reporter(this, [this](const QString& message) {
    log(tr("error: %1").arg(message));
    statusBar()->showMessage(message, 8000);
  });
  disk_ = new DiskFileWatch(this);
  connect(disk_, &DiskFileWatch::changed_on_disk, this, &MainWindow::changed_on_disk);
  autosave_timer_ = new QTimer(this);
  autosave_timer_->setInterval(60'000);
  connect(autosave_timer_, &QTimer::timeout, this, &MainWindow::autosave);
  autosave_timer_->start();
  QSettings settings;
  if (!restoreGeometry(settings.value(QStringLiteral("mainwindow/geometry")).toByteArray())) resize(1200, 760);
  if (!restoreState(settings.value(QStringLiteral("mainwindow/state")).toByteArray())) {
    // First start: the central tabs get the height, the log a few lines, the tree its headings.
    if (auto* log_dock = findChild<QDockWidget*>(QStringLiteral("logDock")))
      resizeDocks({log_dock}, {6 * fontMetrics().height()}, Qt::Vertical);
  }
  update_title();
}

MainWindow::~MainWindow() {
  clear_error_reporter(this);
  // The document is a child, deleted after this body while the window is no longer a
  // MainWindow: its undo stack's last signals must not reach our slots then.
  document_->undo_stack()->disconnect();
  document_->disconnect();
}

void MainWindow::report_refusal(const QString& why) {
  log(tr("refused: %1").arg(why));
  statusBar()->showMessage(why, 8000);
}

const Project* MainWindow::project() const {
  return document_->project();
}
const QString& MainWindow::location() const {
  return document_->location();
}

void MainWindow::remember_recent(const QString& location) {
  if (recovery_->is_copy(location)) return;  // offered at start-up, never a file of the user's
  QSettings settings;
  auto recent = settings.value(QStringLiteral("recentFiles")).toStringList();
  recent.removeAll(location);
  recent.prepend(location);
  while (recent.size() > 10)
    recent.removeLast();
  settings.setValue(QStringLiteral("recentFiles"), recent);
}

void MainWindow::fill_recent_menu() {
  recent_menu_->clear();
  auto recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
  recent.removeIf([this](const QString& l) { return recovery_->is_copy(l); });  // kept by versions that listed it
  for (const auto& location : recent)
    recent_menu_->addAction(location, this, [this, location] { open_location(location); });
  if (recent.isEmpty()) recent_menu_->addAction(tr("(none)"))->setEnabled(false);
}

void MainWindow::new_project() {
  auto project = std::make_unique<Project>();
  project->name = "untitled";
  project->scenario.name = "untitled";
  project->scenario.cluster.name = "cluster";
  install_project(std::move(project), QString());
  log(tr("new project"));
  update_title();
}

QString MainWindow::add_estimated_models(const QStringList& architectures, const QStringList& gpus) {
  const auto* p = document_->project();
  if (!p) return tr("no project is open");
  std::vector<std::string> archs, types;
  for (const auto& a : architectures)
    archs.push_back(a.trimmed().toStdString());
  for (const auto& g : gpus)
    types.push_back(g.trimmed().toStdString());
  if (types.empty())
    for (const auto& [gpu, count] : p->scenario.cluster.gpus_by_type())
      types.push_back(gpu);
  if (types.empty()) return tr("the cluster has no GPUs yet: add nodes or pick a template first");
  QString why;
  try {
    auto profiles = engine::estimate_profiles(archs, types, p->scenario.catalog());
    why = document_->add_profiles(profiles, tr("Add estimated %1").arg(architectures.join(QStringLiteral(", "))));
  } catch (const Error& e) {
    why = QString::fromStdString(e.what());
  }
  if (!why.isEmpty()) log(tr("refused: %1").arg(why));
  return why;
}

bool MainWindow::open_demo(bool interactive, double seconds) {
  if (!open_location(QString::fromLatin1(kDemoLocation), interactive)) return false;
  if (document_->project()->runs.empty())
    start_demo_runs({QStringLiteral("symphony"), QStringLiteral("nexus")}, seconds);
  return true;
}

bool MainWindow::start_demo_runs(const QStringList& systems, double seconds) {
  if (systems.isEmpty() || run_view_->busy()) return false;
  // Each finished run starts the next; the last one fills the Compare tab. Runs the demo makes of
  // a project just opened are part of what it opens as: it stays unmodified, so New, Open and Quit
  // do not ask to save a built-in file (an edit meanwhile keeps it modified).
  const bool opened_clean = !document_->is_modified();
  const int index_before = document_->undo_stack()->index();
  auto left = std::make_shared<QStringList>(systems.mid(1));
  auto names = std::make_shared<QStringList>();
  auto chain = std::make_shared<QMetaObject::Connection>();
  const auto generation = document_->generation();
  *chain = connect(run_view_, &RunView::finished, this,
                   [this, left, names, chain, seconds, opened_clean, index_before, generation] {
                     if (const auto* p = document_->project(); p && !p->runs.empty())
                       *names << QString::fromStdString(p->runs.back().name);
                     if (!left->isEmpty() && run_view_->simulate(left->takeFirst(), seconds)) return;
                     disconnect(*chain);
                     auto* undo = document_->undo_stack();
                     if (opened_clean && generation == document_->generation() &&
                         undo->index() == index_before + static_cast<int>(names->size()))
                       undo->setClean();
                     if (!names->isEmpty()) run_view_->show_run(names->front());
                     compare_view_->compare(*names);
                   });
  if (run_view_->simulate(systems.front(), seconds)) {
    tabs_->setCurrentWidget(run_view_);
    return true;
  }
  disconnect(*chain);
  return false;
}

QString MainWindow::add_poisson_workload(const QString& target, double rate_rps, bool application) {
  const auto* p = document_->project();
  if (!p) return tr("no project is open");
  Workload w;
  w.name = target.toStdString();
  w.rate_rps = rate_rps;
  WorkloadTarget t;
  t.kind = application ? TargetKind::Application : TargetKind::Model;
  t.name = target.toStdString();
  w.targets.push_back(std::move(t));
  return keep_workload(p->scenario.workloads.size(), std::move(w));
}

QString MainWindow::keep_workload(std::size_t index, Workload workload) {
  const auto* p = document_->project();
  if (!p) return tr("no project is open");
  const auto& existing = p->scenario.workloads;
  const bool adding = index >= existing.size();
  // A new one (or a renamed one) takes a name no other workload has.
  workload.name = unique_name(
      workload.name,
      [&](const std::string& name) {
        for (std::size_t k = 0; k < existing.size(); ++k)
          if (k != index && existing[k].name == name) return true;
        return false;
      },
      "-");
  const auto name = QString::fromStdString(workload.name);
  auto why = document_->set_workload(adding ? existing.size() : index, std::move(workload),
                                     adding ? tr("Add workload %1").arg(name) : tr("Edit workload %1").arg(name));
  if (!why.isEmpty()) log(tr("refused: %1").arg(why));
  return why;
}

void MainWindow::workload_dialog(std::optional<std::size_t> editing) {
  const auto* p = document_->project();
  if (!p || (editing && *editing >= p->scenario.workloads.size())) return;
  WorkloadDialog dialog(p->scenario, editing ? &p->scenario.workloads[*editing] : nullptr, this);
  // Until it is kept or given up: a refusal (the scenario's checks) leaves it open to correct.
  while (dialog.exec() == QDialog::Accepted) {
    QString why;
    auto workload = dialog.workload(&why);
    if (workload) why = keep_workload(editing.value_or(document_->project()->scenario.workloads.size()), *workload);
    if (why.isEmpty()) return;
    QMessageBox::warning(this, tr("Cannot keep the workload"), why);
  }
}

void MainWindow::install_project(std::unique_ptr<Project> project, const QString& location) {
  // One reset of the tree, which stops reading the old project before the document drops it.
  tree_model_->replace_project([&] {
    document_->reset(std::move(project), location);
    return document_->project();
  });
  refresh_details();
}

void MainWindow::refresh_views() {
  tree_model_->set_project(document_->project());
  refresh_details();
}

void MainWindow::refresh_details() {
  const auto* p = document_->project();
  if (!p) return;
  details_->setHtml(project_overview_html(*p));
  statusBar()->showMessage(tr("%1 GPUs, %2 models, %3 plans")
                               .arg(p->scenario.cluster.total_gpus())
                               .arg(p->scenario.profiles.models.size())
                               .arg(p->plans.size()));
}

void MainWindow::build_docks() {
  tree_model_ = new ProjectTreeModel(this);
  tree_ = new QTreeView(this);
  tree_->setObjectName(QStringLiteral("projectTree"));
  tree_->setModel(tree_model_);
  tree_->header()->hide();
  tree_->setUniformRowHeights(true);
  // Wide enough that the headings and counts show whole ("Applications (12)"), not "Applicat…".
  tree_->setMinimumWidth(tree_->fontMetrics().horizontalAdvance(QStringLiteral("Applications (999)")) +
                         3 * tree_->indentation());
  // The user's pick, not the tree's current index: a tree that takes the focus (as when the page
  // that held it is hidden by a tab change) makes its first row current without selecting it, and
  // following that switched to Details in the middle of the tab change, which then painted two
  // pages at once.
  connect(tree_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] { show_selection(); });
  // A workload has no tab of its own: a double-click opens its dialog.
  connect(tree_, &QTreeView::doubleClicked, this, [this](const QModelIndex& index) {
    const int entry = index.data(ProjectTreeModel::EntryIndexRole).toInt();
    if (entry >= 0 && static_cast<ProjectTreeModel::Section>(index.data(ProjectTreeModel::SectionRole).toInt()) ==
                          ProjectTreeModel::Section::Workloads)
      workload_dialog(static_cast<std::size_t>(entry));
  });
  auto* tree_dock = new QDockWidget(tr("Project"), this);
  tree_dock->setObjectName(QStringLiteral("projectDock"));
  tree_dock->setWidget(tree_);
  addDockWidget(Qt::LeftDockWidgetArea, tree_dock);

  log_ = new QPlainTextEdit(this);
  log_->setObjectName(QStringLiteral("log"));
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(5000);
  planning_ = new PlanningPanel(document_, this);
  connect(planning_, &PlanningPanel::message, this, &MainWindow::log);
  // After a run, the two newest plans side by side.
  connect(planning_, &PlanningPanel::finished, this, [this] {
    const auto* p = document_->project();
    if (!p || p->plans.empty()) return;
    const int last = static_cast<int>(p->plans.size()) - 1;
    plan_view_->show_plans(last > 0 ? last - 1 : last, last > 0 ? last : -1);
    tabs_->setCurrentWidget(plan_view_);
  });
  auto* planning_dock = new QDockWidget(tr("Planning"), this);
  planning_dock->setObjectName(QStringLiteral("planningDock"));
  planning_dock->setWidget(planning_);
  addDockWidget(Qt::RightDockWidgetArea, planning_dock);

  auto* log_dock = new QDockWidget(tr("Log"), this);
  log_dock->setObjectName(QStringLiteral("logDock"));
  log_dock->setWidget(log_);
  addDockWidget(Qt::BottomDockWidgetArea, log_dock);
}

QString MainWindow::log_text() const {
  return log_->toPlainText();
}

void MainWindow::log(const QString& line) {
  log_->appendPlainText(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss  ")) + line);
}

bool MainWindow::may_discard_changes() {
  if (!interactive_ || !document_->is_modified()) return true;
  const auto answer = QMessageBox::question(
      this, tr("Unsaved changes"),
      tr("%1 has unsaved changes. Save them?")
          .arg(location().isEmpty() ? QString::fromStdString(document_->project()->name) : location()),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) {
    // A built-in resource or a new project has no file of its own: ask where.
    if (location().isEmpty() || location().startsWith(QStringLiteral("builtin:")))
      save_as_dialog();
    else
      save_to(location());
  }
  return answer == QMessageBox::Discard || !document_->is_modified();
}

bool MainWindow::follow_live(const QString& address) {
  tabs_->setCurrentWidget(live_view_);
  const auto file = [](const char* variable) { return qEnvironmentVariable(variable).toStdString(); };
  return live_view_->connect_to(address, qEnvironmentVariable("SERVESCOPE_TOKEN"),
                                {file("SERVESCOPE_TLS_CERT"), file("SERVESCOPE_TLS_KEY"), file("SERVESCOPE_TLS_CA")});
}

bool MainWindow::open_location(const QString& location, bool interactive) {
  // Opening replaces the project: unsaved changes are asked about first, as on New and on close.
  // (Asked once: the scenario a run file opens on is not asked about again.)
  if (interactive && !opening_run_ && !may_discard_changes()) return false;
  std::unique_ptr<Project> loaded;
  try {
    const auto json = parse_json_text(read_document_text(location.toStdString()), location.toStdString());
    // A run file opens on the scenario it names, the run kept in it.
    if (engine::artifact_kind(json) == engine::ArtifactKind::RunResult)
      return open_run_file(
          location, QString::fromStdString(JsonCursor(json, location.toStdString()).string_or("scenario_file", "")),
          interactive);
    auto doc = document_from_json(json, location.toStdString());
    for (const auto& w : doc.warnings)
      log(tr("warning: %1").arg(QString::fromStdString(w)));
    loaded = std::make_unique<Project>(project_from_document(std::move(doc), location.toStdString()));
    engine::check_saved_artifacts(*loaded, location.toStdString());
  } catch (const Error& e) {
    const auto message = QString::fromStdString(e.what());
    log(tr("error: %1").arg(message));
    if (interactive) QMessageBox::warning(this, tr("Cannot open"), message);
    return false;
  }
  install_project(std::move(loaded), location);
  disk_->follow(location);
  tree_->expand(tree_model_->index(static_cast<int>(ProjectTreeModel::Section::Cluster), 0));
  log(tr("opened %1").arg(location));
  remember_recent(location);
  update_title();
  return true;
}

bool MainWindow::open_run_file(const QString& location, const QString& scenario, bool interactive) {
  // A run is shown on the scenario it ran: open that, then keep the run in it.
  const auto refuse = [&](const QString& why) {
    log(tr("error: %1").arg(why));
    if (interactive) QMessageBox::warning(this, tr("Cannot open"), why);
    return false;
  };
  if (scenario.isEmpty())
    return refuse(tr("%1 is a run that does not name the scenario it ran (no scenario_file): open that "
                     "scenario, then File → Import run")
                      .arg(location));
  if (!scenario.startsWith(QString::fromLatin1(kBuiltinPrefix.data())) && !QFileInfo::exists(scenario))
    return refuse(tr("%1 is a run of %2, which is not there any more: open its scenario, then File → Import run")
                      .arg(location, scenario));
  // A scenario_file that names a run (itself, or another) is refused, never followed.
  if (opening_run_) return refuse(tr("%1 names a run file as its scenario").arg(location));
  opening_run_ = true;
  const bool opened = open_location(scenario, interactive);
  opening_run_ = false;
  if (!opened) return false;
  const auto why = import_run(location);
  if (!why.isEmpty()) return refuse(why);
  return true;
}

bool MainWindow::save_to(const QString& path, bool interactive) {
  if (!document_->project()) return false;
  if (!may_overwrite(path, interactive)) return false;
  try {
    Project copy = *document_->project();
    rebase_profile_includes(copy.scenario, document_->include_base().toStdString(), path.toStdString());
    save_project(path.toStdString(), copy);
    // Includes now point relative to the new file: that is the project from here on.
    document_->replace_part([&copy](Project& p) { p = std::move(copy); });
  } catch (const std::exception& e) {
    const auto message = QString::fromStdString(e.what());
    log(tr("error: %1").arg(message));
    if (interactive) QMessageBox::warning(this, tr("Cannot save"), message);
    return false;
  }
  document_->mark_saved(path);
  disk_->follow(path);
  recovery_->remove_own();  // saved: nothing left to recover
  remember_recent(path);
  log(tr("saved %1").arg(path));
  update_title();
  return true;
}

void MainWindow::open_dialog() {
  const auto path = QFileDialog::getOpenFileName(this, tr("Open project or scenario"), QString(),
                                                 tr("ServeScope files (*.servescope *.json);;All files (*)"));
  if (!path.isEmpty()) open_location(path);
}

void MainWindow::save_as_dialog() {
  // The project's own extension by default, so that the desktop opens it with ServeScope.
  const auto path =
      ask_save_path(this, tr("Save project"), QString(), tr("ServeScope project (*.servescope);;JSON (*.json)"));
  if (!path.isEmpty()) save_to(path);
}

QString MainWindow::remove_selected() {
  const auto current = tree_->currentIndex();
  const int entry = current.isValid() ? current.data(ProjectTreeModel::EntryIndexRole).toInt() : -1;
  if (!document_->project() || entry < 0) return tr("select an application, workload, plan or run to remove");
  const auto index = static_cast<std::size_t>(entry);
  const auto why = [&]() -> std::optional<QString> {
    switch (static_cast<ProjectTreeModel::Section>(current.data(ProjectTreeModel::SectionRole).toInt())) {
      case ProjectTreeModel::Section::Applications:
        return document_->remove_application(index);
      case ProjectTreeModel::Section::Workloads:
        return document_->remove_workload(index);
      case ProjectTreeModel::Section::Plans:
        return document_->remove_plan(index);
      case ProjectTreeModel::Section::Runs:
        return document_->remove_run(index);
      default:
        return std::nullopt;
    }
  }();
  if (!why)
    return tr("%1 cannot be removed here: edit the cluster, GPU types and models in their tabs")
        .arg(current.data(Qt::DisplayRole).toString());
  if (!why->isEmpty()) log(tr("not removed: %1").arg(*why));  // a removal logs itself as an edit
  return *why;
}

void MainWindow::show_selection() {
  const auto* p = document_->project();
  if (!p) return;
  const auto current = tree_->currentIndex();
  if (!current.isValid()) return;
  const int section = current.data(ProjectTreeModel::SectionRole).toInt();
  const int entry = current.data(ProjectTreeModel::EntryIndexRole).toInt();
  details_->setHtml(item_details_html(*p, section, entry));
  // Picking an entry shows it in its own tab; a heading, or an entry without one, in Details.
  using Section = ProjectTreeModel::Section;
  QWidget* shown = details_;
  if (entry >= 0) {
    switch (static_cast<Section>(section)) {
      case Section::Applications:
        dag_->show_application(entry);
        shown = dag_;
        break;
      case Section::Plans:
        plan_view_->show_plans(entry, -1);
        shown = plan_view_;
        break;
      case Section::Models:
        profile_view_->show_model(entry);
        shown = profile_view_;
        break;
      case Section::Cluster:
        shown = cluster_;
        break;
      case Section::Runs:
        // A load sweep has no timeline: its details stay in view (the Charts tab draws it).
        if (run_view_->show_run(QString::fromStdString(p->runs[static_cast<std::size_t>(entry)].name)))
          shown = run_view_;
        break;
      default:
        break;
    }
  }
  tabs_->setCurrentWidget(shown);
}

void MainWindow::update_title() {
  const auto* p = document_->project();
  if (!p) {
    setWindowTitle(tr("ServeScope"));
    return;
  }
  // "[*]" is where Qt puts the modified mark. A project never saved has no file to name.
  const auto name = QString::fromStdString(p->name);
  setWindowTitle(location().isEmpty() ? tr("%1[*] (not saved) — ServeScope").arg(name)
                                      : tr("%1[*] — %2 — ServeScope").arg(name, location()));
  setWindowModified(document_->is_modified());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!may_discard_changes()) {
    event->ignore();
    return;
  }
  recovery_->remove_own();
  set_presentation(false);  // the docks as the user keeps them, not as presentation hid them
  QSettings settings;
  settings.setValue(QStringLiteral("mainwindow/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("mainwindow/state"), saveState());
  event->accept();
}

}  // namespace servescope::ui

// The main window's menus: File (projects, imports, exports), Edit (undo, models, workloads,
// removal), Live, View and Help.
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
#include "ui/charts_view.h"
#include "ui/cluster_editor.h"
#include "ui/compare_view.h"
#include "ui/dag_editor.h"
#include "ui/estimated_models_dialog.h"
#include "ui/exception_guard.h"
#include "ui/help_dialogs.h"
#include "ui/item_details.h"
#include "ui/live_view.h"
#include "ui/main_window.h"
#include "ui/plan_view.h"
#include "ui/planning_panel.h"
#include "ui/profile_model_dialog.h"
#include "ui/profile_view.h"
#include "ui/project_document.h"
#include "ui/project_tree_model.h"
#include "ui/run_view.h"
#include "ui/save_dialog.h"
#include "ui/video_export_dialog.h"
#include "widgets/timeline_view.h"

namespace servescope::ui {

void MainWindow::build_actions() {
  build_file_menu();
  build_edit_menu();
  build_live_view_help_menus();
}

void MainWindow::build_file_menu() {
  auto* file = menuBar()->addMenu(tr("&File"));
  auto* new_action = file->addAction(tr("&New"), this, [this] {
    if (may_discard_changes()) new_project();
  });
  new_action->setShortcut(QKeySequence::New);
  auto* open = file->addAction(tr("&Open…"), this, &MainWindow::open_dialog);
  open->setShortcut(QKeySequence::Open);
  file->addAction(tr("Open &Demo"), this, [this] { open_demo(); })->setObjectName(QStringLiteral("openDemoAction"));
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  connect(recent_menu_, &QMenu::aboutToShow, this, &MainWindow::fill_recent_menu);
  auto* import_menu = file->addMenu(tr("&Import profiles"));
  import_menu->addAction(tr("PPipe data folder…"), this, [this] {
    const auto dir = QFileDialog::getExistingDirectory(this, tr("PPipe artifact data folder"));
    if (!dir.isEmpty()) import_profiles(ImportKind::PPipe, {dir});
  });
  import_menu->addAction(tr("Nexus profiles…"), this, [this] {
    const auto files = QFileDialog::getOpenFileNames(this, tr("Nexus model-database profiles"), QString(),
                                                     tr("Nexus profiles (*.txt);;All files (*)"));
    if (!files.isEmpty()) import_profiles(ImportKind::Nexus, files);
  });
  import_menu->addAction(tr("α/β table…"), this, [this] {
    const auto table =
        QFileDialog::getOpenFileName(this, tr("Latency = α·b + β table"), QString(), tr("CSV (*.csv);;All files (*)"));
    if (!table.isEmpty()) import_profiles(ImportKind::AlphaBeta, {table});
  });
  file->addAction(tr("Import &run…"), this, [this] {
    const auto path = QFileDialog::getOpenFileName(this, tr("A run file (simulate -o, live scheduler --record)"),
                                                   QString(), tr("Run files (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    const auto why = import_run(path);
    if (!why.isEmpty()) QMessageBox::warning(this, tr("Cannot import the run"), why);
  });
  file->addAction(tr("Import PPipe &authors' plan…"), this, [this] {
    if (!may_discard_changes()) return;
    const auto path = QFileDialog::getOpenFileName(this, tr("A plan file of the PPipe artifact (data/plans/…)"),
                                                   QString(), tr("PPipe plans (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    const auto why = import_ppipe_plan(path);
    if (!why.isEmpty()) QMessageBox::warning(this, tr("Cannot import the plan"), why);
  });
  auto* exports = file->addMenu(tr("&Export"));
  exports->addAction(tr("View as PNG or SVG…"), this, [this] {
    const auto how = ask_picture_options(this, tabs_->currentWidget());
    if (!how) return;
    const auto path = ask_save_path(this, tr("Export view"), QString(), tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty()) return;
    const auto why = export_view(path, *how);
    if (!why.isEmpty()) QMessageBox::warning(this, tr("Cannot export"), why);
  });
  exports->addAction(tr("Plan as JSON…"), this, [this] {
    const auto* p = document_->project();
    if (!p || p->plans.empty()) return;
    QStringList names;
    for (const auto& plan : p->plans)
      names << QString::fromStdString(plan.name);
    bool ok = false;
    const auto name = QInputDialog::getItem(this, tr("Export plan"), tr("Plan:"), names, 0, false, &ok);
    if (!ok) return;
    const auto path = ask_save_path(this, tr("Export plan"), name + QStringLiteral(".json"), tr("JSON (*.json)"));
    if (path.isEmpty()) return;
    const auto why = export_plan(static_cast<int>(names.indexOf(name)), path);
    if (!why.isEmpty()) QMessageBox::warning(this, tr("Cannot export"), why);
  });
  exports->addAction(tr("Run metrics as CSV…"), this, [this] {
    const auto* p = document_->project();
    QStringList names;
    if (p)
      for (const auto& run : p->runs)
        if (engine::artifact_kind(run) == engine::ArtifactKind::RunResult) names << QString::fromStdString(run.name);
    if (names.isEmpty()) return;
    bool ok = false;
    const auto name = QInputDialog::getItem(this, tr("Export run metrics"), tr("Run:"), names, 0, false, &ok);
    if (!ok) return;
    const auto path = ask_save_path(this, tr("Export run metrics"), name + QStringLiteral(".csv"), tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    const auto why = export_metrics_csv(name, path);
    if (!why.isEmpty()) QMessageBox::warning(this, tr("Cannot export"), why);
  });
  exports->addAction(tr("Run timeline as Chrome trace…"), this, [this] {
    const auto path =
        ask_save_path(this, tr("Export Chrome trace"), QStringLiteral("trace.json"), tr("Trace-event JSON (*.json)"));
    if (path.isEmpty()) return;
    const auto why = export_trace(path);
    if (!why.isEmpty()) QMessageBox::warning(this, tr("Cannot export"), why);
  });
  exports->addAction(tr("Playback as video (MP4 or GIF)…"), this, [this] {
    const auto why = ask_and_export_video(this, *run_view()->timeline());
    if (!why.isEmpty()) QMessageBox::warning(this, tr("Cannot export the video"), why);
  });
  auto* save = file->addAction(tr("&Save"), this, [this] {
    // A built-in resource cannot be written back: save it somewhere first.
    if (location().isEmpty() || location().startsWith(QStringLiteral("builtin:")))
      save_as_dialog();
    else
      save_to(location());
  });
  save->setShortcut(QKeySequence::Save);
  auto* save_as = file->addAction(tr("Save &As…"), this, &MainWindow::save_as_dialog);
  // Some platform themes bind no key to Save As or Quit: then the common ones.
  const auto standard_or = [](QKeySequence::StandardKey key, const QKeySequence& fallback) {
    const auto bound = QKeySequence::keyBindings(key);
    return bound.isEmpty() ? QList<QKeySequence>{fallback} : bound;
  };
  save_as->setShortcuts(standard_or(QKeySequence::SaveAs, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)));
  file->addSeparator();
  auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcuts(standard_or(QKeySequence::Quit, QKeySequence(Qt::CTRL | Qt::Key_Q)));
}

void MainWindow::build_edit_menu() {
  auto* edit = menuBar()->addMenu(tr("&Edit"));
  auto* undo = document_->undo_stack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  undo->setObjectName(QStringLiteral("undoAction"));
  auto* redo = document_->undo_stack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcut(QKeySequence::Redo);
  redo->setObjectName(QStringLiteral("redoAction"));
  edit->addAction(undo);
  edit->addAction(redo);
  edit->addSeparator();
  // Delete only where the project tree has focus: elsewhere the key edits text and tables.
  new_application_action_ = edit->addAction(tr("New &application…"), this, &MainWindow::new_application_dialog);
  new_application_action_->setObjectName(QStringLiteral("newApplicationAction"));
  new_application_action_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
  connect(dag_, &DagEditor::newApplicationRequested, new_application_action_, &QAction::trigger);
  rename_action_ = edit->addAction(tr("Re&name…"), this, &MainWindow::rename_dialog);
  rename_action_->setObjectName(QStringLiteral("renameAction"));
  rename_action_->setShortcut(QKeySequence(Qt::Key_F2));
  rename_action_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  tree_->addAction(rename_action_);
  remove_action_ = edit->addAction(tr("Re&move"), this, [this] {
    const auto why = remove_selected();
    if (!why.isEmpty()) statusBar()->showMessage(why, 5000);
  });
  remove_action_->setObjectName(QStringLiteral("removeAction"));
  remove_action_->setShortcut(QKeySequence::Delete);
  remove_action_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  tree_->addAction(remove_action_);
  tree_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(tree_, &QWidget::customContextMenuRequested, this, &MainWindow::tree_context_menu);
  edit->addSeparator();
  edit->addAction(tr("Add &estimated models…"), this, [this] {
    const auto* p = document_->project();
    if (!p) return;
    QStringList types;
    for (const auto& [gpu, count] : p->scenario.cluster.gpus_by_type())
      types << QString::fromStdString(gpu);
    if (types.isEmpty()) {
      QMessageBox::warning(this, tr("Cannot add models"),
                           tr("The cluster has no GPUs yet: add nodes or pick a template first"));
      return;
    }
    const auto chosen = ask_estimated_models(this, types);
    if (!chosen) return;
    const auto why = add_estimated_models(chosen->first, chosen->second);
    if (!why.isEmpty()) QMessageBox::warning(this, tr("Cannot add models"), why);
  });
  edit->addAction(tr("&Profile a model…"), this, [this] {
    if (!document_->project()) return;
    // One profiler at a time: two would share the CPU and each measure the other.
    if (auto* running = findChild<ProfileModelDialog*>()) {
      running->show();
      running->raise();
      running->activateWindow();
      return;
    }
    auto* dialog = new ProfileModelDialog(document_, default_profiler_program(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->set_interactive(interactive_);
    connect(dialog, &ProfileModelDialog::message, this, &MainWindow::log);
    connect(dialog, &ProfileModelDialog::measured, this, [this] {
      profile_view_->show_model(static_cast<int>(document_->project()->scenario.profiles.models.size()) - 1);
      tabs_->setCurrentWidget(profile_view_);
    });
    dialog->show();
  });
  edit->addAction(tr("Add &workload…"), this, [this] { workload_dialog(std::nullopt); })
      ->setObjectName(QStringLiteral("addWorkloadAction"));
}

void MainWindow::build_live_view_help_menus() {
  // What the Planning dock and the Run tab do, with keys that work wherever the focus is.
  auto* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(planning_->run_action());
  run->addSeparator();
  run->addActions(run_view_->run_actions());
  auto* live = menuBar()->addMenu(tr("&Live"));
  live->addAction(tr("&Connect to a deployment…"), this, [this] {
    tabs_->setCurrentWidget(live_view_);
    live_view_->findChild<QPushButton*>(QStringLiteral("liveConnect"))->click();
  });
  live->addAction(tr("&Disconnect"), live_view_, &LiveView::disconnect_from);
  live->addAction(tr("&Keep the live run in the project"), this, [this] {
    QString timeline_note;
    const auto why = live_view_->keep_run(&timeline_note);
    if (!why.isEmpty())
      QMessageBox::warning(this, tr("Live run not kept"), why);
    else if (!timeline_note.isEmpty())
      QMessageBox::information(this, tr("Live run kept without its timeline"), timeline_note);
  });
  auto* view = menuBar()->addMenu(tr("&View"));
  for (auto* dock : findChildren<QDockWidget*>())
    view->addAction(dock->toggleViewAction());
  presentation_action_ = view->addAction(tr("&Presentation mode"), this, [this](bool on) { set_presentation(on); });
  presentation_action_->setObjectName(QStringLiteral("presentationMode"));
  presentation_action_->setCheckable(true);
  presentation_action_->setShortcut(QKeySequence(Qt::Key_F11));
  presentation_action_->setToolTip(tr("Larger fonts, no docks: the run's timeline and its SLO attainment"));
  view->addSeparator();
  // Ctrl+1 … Ctrl+9: the tabs in their order.
  for (int i = 0; i < tabs_->count() && i < 9; ++i) {
    auto* go = view->addAction(tr("Show %1").arg(tabs_->tabText(i)), this, [this, i] { tabs_->setCurrentIndex(i); });
    go->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
  }
  auto* help = menuBar()->addMenu(tr("&Help"));
  auto* guide = help->addAction(tr("User &guide"), this, [this] { show_user_guide(this); });
  guide->setShortcut(QKeySequence::HelpContents);
  help->addAction(tr("&Keyboard shortcuts"), this, [this] {
    QList<QAction*> all;  // each once: the tree's actions are also the Edit menu's
    for (const auto* menu : menuBar()->findChildren<QMenu*>())
      for (auto* action : menu->actions())
        if (!all.contains(action)) all << action;
    show_keys(this, all);
  });
  help->addAction(tr("&Licence"), this, [this] { show_licence(this); });
  help->addSeparator();
  help->addAction(tr("&About ServeScope"), this, [this] {
    QMessageBox::about(this, tr("About ServeScope"),
                       tr("<b>ServeScope %1</b><p>Plan, simulate and watch DNN inference serving on "
                          "heterogeneous GPU clusters.</p>")
                           .arg(QApplication::applicationVersion()));
  });
}

}  // namespace servescope::ui

#include "ui/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QFileDialog>
#include <QHeaderView>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTextBrowser>
#include <QTreeView>

#include "model/core/error.h"
#include "model/io/document.h"
#include "ui/item_details.h"
#include "ui/project_tree_model.h"

namespace servescope::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("MainWindow"));
  details_ = new QTextBrowser(this);
  details_->setObjectName(QStringLiteral("details"));
  details_->setOpenLinks(false);
  setCentralWidget(details_);
  build_docks();
  build_actions();
  statusBar()->showMessage(tr("No project"));
  QSettings settings;
  if (!restoreGeometry(settings.value(QStringLiteral("mainwindow/geometry")).toByteArray())) resize(1200, 800);
  restoreState(settings.value(QStringLiteral("mainwindow/state")).toByteArray());
  update_title();
}

MainWindow::~MainWindow() = default;

void MainWindow::build_docks() {
  tree_model_ = new ProjectTreeModel(this);
  tree_ = new QTreeView(this);
  tree_->setObjectName(QStringLiteral("projectTree"));
  tree_->setModel(tree_model_);
  tree_->header()->hide();
  tree_->setUniformRowHeights(true);
  connect(tree_->selectionModel(), &QItemSelectionModel::currentChanged, this, [this] { show_selection(); });
  auto* tree_dock = new QDockWidget(tr("Project"), this);
  tree_dock->setObjectName(QStringLiteral("projectDock"));
  tree_dock->setWidget(tree_);
  addDockWidget(Qt::LeftDockWidgetArea, tree_dock);

  log_ = new QPlainTextEdit(this);
  log_->setObjectName(QStringLiteral("log"));
  log_->setReadOnly(true);
  log_->setMaximumBlockCount(5000);
  auto* log_dock = new QDockWidget(tr("Log"), this);
  log_dock->setObjectName(QStringLiteral("logDock"));
  log_dock->setWidget(log_);
  addDockWidget(Qt::BottomDockWidgetArea, log_dock);
}

void MainWindow::build_actions() {
  auto* file = menuBar()->addMenu(tr("&File"));
  auto* open = file->addAction(tr("&Open…"), this, &MainWindow::open_dialog);
  open->setShortcut(QKeySequence::Open);
  file->addAction(tr("Open &Demo"), this, [this] { open_location(QStringLiteral("builtin:projects/demo.json")); });
  auto* save_as = file->addAction(tr("Save &As…"), this, &MainWindow::save_as_dialog);
  save_as->setShortcut(QKeySequence::SaveAs);
  file->addSeparator();
  auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
  auto* view = menuBar()->addMenu(tr("&View"));
  for (auto* dock : findChildren<QDockWidget*>())
    view->addAction(dock->toggleViewAction());
  auto* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About ServeScope"), this, [this] {
    QMessageBox::about(this, tr("About ServeScope"),
                       tr("<b>ServeScope %1</b><p>Plan, simulate and watch DNN inference serving on "
                          "heterogeneous GPU clusters.</p>")
                           .arg(QApplication::applicationVersion()));
  });
}

QString MainWindow::log_text() const {
  return log_->toPlainText();
}

void MainWindow::log(const QString& line) {
  log_->appendPlainText(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss  ")) + line);
}

bool MainWindow::open_location(const QString& location, bool interactive) {
  std::unique_ptr<Project> loaded;
  try {
    auto doc = load_document(location.toStdString());
    for (const auto& w : doc.warnings)
      log(tr("warning: %1").arg(QString::fromStdString(w)));
    loaded = std::make_unique<Project>(project_from_document(std::move(doc), location.toStdString()));
  } catch (const Error& e) {
    const auto message = QString::fromStdString(e.what());
    log(tr("error: %1").arg(message));
    if (interactive) QMessageBox::warning(this, tr("Cannot open"), message);
    return false;
  }
  tree_model_->set_project(nullptr);
  project_ = std::move(loaded);
  location_ = location;
  tree_model_->set_project(project_.get());
  tree_->expand(tree_model_->index(static_cast<int>(ProjectTreeModel::Section::Cluster), 0));
  details_->setHtml(project_overview_html(*project_));
  log(tr("opened %1").arg(location));
  statusBar()->showMessage(tr("%1 GPUs, %2 models")
                               .arg(project_->scenario.cluster.total_gpus())
                               .arg(project_->scenario.profiles.models.size()));
  update_title();
  return true;
}

bool MainWindow::save_to(const QString& path, bool interactive) {
  if (!project_) return false;
  try {
    Project copy = *project_;
    rebase_profile_includes(copy.scenario, location_.toStdString(), path.toStdString());
    save_project(path.toStdString(), copy);
    *project_ = std::move(copy);
    tree_model_->set_project(project_.get());
  } catch (const Error& e) {
    const auto message = QString::fromStdString(e.what());
    log(tr("error: %1").arg(message));
    if (interactive) QMessageBox::warning(this, tr("Cannot save"), message);
    return false;
  }
  location_ = path;
  log(tr("saved %1").arg(path));
  update_title();
  return true;
}

void MainWindow::open_dialog() {
  const auto path = QFileDialog::getOpenFileName(this, tr("Open project or scenario"), QString(),
                                                 tr("ServeScope files (*.json);;All files (*)"));
  if (!path.isEmpty()) open_location(path);
}

void MainWindow::save_as_dialog() {
  const auto path =
      QFileDialog::getSaveFileName(this, tr("Save project"), QString(), tr("ServeScope project (*.json)"));
  if (!path.isEmpty()) save_to(path);
}

void MainWindow::show_selection() {
  if (!project_) return;
  const auto current = tree_->currentIndex();
  if (!current.isValid()) return;
  details_->setHtml(item_details_html(*project_, current.data(ProjectTreeModel::SectionRole).toInt(),
                                      current.data(ProjectTreeModel::EntryIndexRole).toInt()));
}

void MainWindow::update_title() {
  if (!project_) {
    setWindowTitle(tr("ServeScope"));
    return;
  }
  setWindowTitle(tr("%1 — %2 — ServeScope").arg(QString::fromStdString(project_->name), location_));
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue(QStringLiteral("mainwindow/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("mainwindow/state"), saveState());
  event->accept();
}

}  // namespace servescope::ui

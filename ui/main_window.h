// The application window: project tree on the left, the selected item's properties in the
// middle, a log at the bottom. The document is a Project; it is replaced only when a new one
// has loaded completely, so a broken file never leaves the window half-filled.
#pragma once

#include <QMainWindow>
#include <memory>

#include "model/scenario/scenario.h"

class QTextBrowser;
class QPlainTextEdit;
class QTreeView;
class QLabel;

namespace servescope::ui {

class ProjectTreeModel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens a project or scenario file, or a "builtin:" resource. On failure the current project
  // stays open, the error goes to the log and (when `interactive`) to a message box.
  bool open_location(const QString& location, bool interactive = true);
  bool save_to(const QString& path, bool interactive = true);

  const Project* project() const { return project_.get(); }
  const QString& location() const { return location_; }
  ProjectTreeModel* tree_model() const { return tree_model_; }
  QTextBrowser* details_view() const { return details_; }
  QString log_text() const;

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void build_actions();
  void build_docks();
  void show_selection();
  void log(const QString& line);
  void update_title();
  void open_dialog();
  void save_as_dialog();

  std::unique_ptr<Project> project_;
  QString location_;
  ProjectTreeModel* tree_model_ = nullptr;
  QTreeView* tree_ = nullptr;
  QTextBrowser* details_ = nullptr;
  QPlainTextEdit* log_ = nullptr;
};

}  // namespace servescope::ui

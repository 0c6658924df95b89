// The application window: project tree on the left, the selected item's properties in the
// middle, a log at the bottom. The document is an undoable Project (ProjectDocument); it is
// replaced only when a new one has loaded completely, so a broken file never leaves the window
// half-filled, and unsaved edits are flagged in the title and asked about on close.
#pragma once

#include <QFont>
#include <QMainWindow>
#include <memory>
#include <optional>
#include <vector>

#include "model/scenario/scenario.h"
#include "ui/project_tree_model.h"
#include "ui/view_picture.h"

class QDockWidget;
class QTextBrowser;
class QPlainTextEdit;
class QTreeView;
class QLabel;
class QMenu;
class QTabWidget;
class QTimer;

namespace servescope::ui {

class ProjectDocument;
class DagEditor;
class PlanningPanel;
class ClusterEditor;
class PlanView;
class ProfileView;
class RunView;
class ChartsView;
class CompareView;
class PredictionView;
class LiveView;
class RecoveryStore;
class DiskFileWatch;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens a project or scenario file, or a "builtin:" resource. On failure the current project
  // stays open, the error goes to the log and (when `interactive`) to a message box.
  // A project, a scenario, or a run file (opened on the scenario it names, the run kept in it).
  bool open_location(const QString& location, bool interactive = true);
  bool save_to(const QString& path, bool interactive = true);

  const Project* project() const;
  const QString& location() const;
  ProjectDocument* document() const { return document_; }
  DagEditor* dag_editor() const { return dag_; }
  PlanningPanel* planning() const { return planning_; }
  ClusterEditor* cluster_editor() const { return cluster_; }
  PlanView* plan_view() const { return plan_view_; }
  ProfileView* profile_view() const { return profile_view_; }
  RunView* run_view() const { return run_view_; }
  ChartsView* charts_view() const { return charts_view_; }
  CompareView* compare_view() const { return compare_view_; }
  PredictionView* prediction_view() const { return prediction_view_; }
  LiveView* live_view() const { return live_view_; }
  // Shows the Live tab following `address` (HOST:PORT) with the token in SERVESCOPE_TOKEN and
  // the TLS files in SERVESCOPE_TLS_CERT, _KEY and _CA; false, with the reason in the tab's status
  // line, when it cannot start.
  bool follow_live(const QString& address);

  // What File → New and Edit → Add … do, without their dialogs (for scripted sessions).
  void new_project();
  // Estimated block profiles (docs/estimator.md) of built-in CNNs on `gpus` (empty: the
  // cluster's GPU types); returns the reason when refused.
  QString add_estimated_models(const QStringList& architectures, const QStringList& gpus = {});
  // At start-up: the recovery copies of unsaved work that windows which are gone left behind
  // (each window autosaves its own every minute and removes it on save and on a normal close;
  // a running window's copy is never offered), newest first, each named with its project and
  // time. `choice` answers for the user (scripted sessions, tests): Open opens the newest (the
  // rest wait for the next start), Discard deletes them, Keep leaves them. True when one opened.
  enum class RecoveryChoice { Ask, Open, Discard, Keep };
  bool offer_recovery(RecoveryChoice choice = RecoveryChoice::Ask);
  // Writes this window's recovery copy now when there are unsaved changes (the timer does it
  // every minute).
  void autosave();
  RecoveryStore& recovery() const { return *recovery_; }
  // Reads the open project's file again (after it changed on disk), dropping unsaved edits.
  bool reload();

  // File → Export: the central tab's content as PNG (or SVG when the path ends in .svg; see
  // ui/view_picture.h), and a plan of the project as its JSON. The reason when it could not be
  // written.
  QString export_view(const QString& path, const ViewPictureOptions& options = {});
  // Adds a run file (`simulate -o`, a live scheduler's `--record`) to the project's runs; the
  // reason when it is not one or cannot be added.
  QString import_run(const QString& path);
  // File → Import PPipe authors' plan: one of the artifact's plan files (data/plans/…) becomes a
  // new project, the scenario it implies (cluster, profiles, a workload at the plan's rates and
  // SLOs) with the plan in it, ready to simulate as "plan:NAME". The reason when refused.
  QString import_ppipe_plan(const QString& path);
  QString export_plan(int index, const QString& path);
  // What the built-in demo opens on: `systems` simulated one after another for `seconds` each,
  // then compared; the Run tab shows the first. False when a simulation is already running.
  bool start_demo_runs(const QStringList& systems, double seconds);
  // The built-in demo as it opens at start and from File → Open Demo: on something to watch, its
  // models served by Symphony and by Nexus for `seconds` each, on the timeline, in the charts
  // and side by side (unless the project already keeps runs).
  bool open_demo(bool interactive = true, double seconds = kDemoRunSeconds);
  static constexpr double kDemoRunSeconds = 20;
  static constexpr const char* kDemoLocation = "builtin:projects/demo.json";
  // A simulated run's chart curves as CSV (servescope-cli export metrics-csv).
  QString export_metrics_csv(const QString& run, const QString& path);
  // The Run tab's timeline as Chrome trace-event JSON (servescope-cli export chrome-trace).
  QString export_trace(const QString& path);

  enum class ImportKind { PPipe, Nexus, AlphaBeta };
  // File → Import profiles: a PPipe artifact's data folder (every model in it), Nexus profile
  // files, or an α/β table; the profiles join the project undoably. The reason when refused.
  QString import_profiles(ImportKind kind, const QStringList& paths);
  // Edit → Remove (Delete, and the project tree's context menu): the selected application,
  // workload, plan or run leaves the project, undoably. The reason when nothing removable is
  // selected or the edit is refused (a workload of an application the scenario needs, …).
  QString remove_selected();
  // Edit → New application (a button of the Application tab, the tree's context menu): adds one
  // with a first module (ProjectDocument::add_application), selects it and shows it in the
  // Application tab. Edit → Rename: the selected application, with the workloads sending to it.
  // Each returns the reason when refused.
  QString new_application(const QString& name = {});
  QString rename_selected(const QString& name);
  // A Poisson workload sending `rate_rps` to a model (or an application).
  QString add_poisson_workload(const QString& target, double rate_rps, bool application = false);
  // Keeps `workload` as workload `index` (the count adds it, under a name of its own); the
  // reason when refused. Edit → Add workload… and a double-click on a workload open its dialog.
  QString keep_workload(std::size_t index, Workload workload);
  void workload_dialog(std::optional<std::size_t> editing);
  // A pool, glet or module of `plan` picked in the Plans tab (PlanView::itemSelected): its shares
  // outlined on the cluster's chips, its rows marked on the shown run's timeline, the plan and
  // its models selected in the project tree. Returns the status line it showed.
  QString show_plan_item(const QString& plan, const QString& id);
  // Presentation mode (View → Presentation mode, F11): fonts ×kPresentationFontScale, no docks,
  // the Run tab's timeline over its run's SLO attainment; off puts the window back as it was.
  void set_presentation(bool on);
  bool presenting() const { return before_presentation_.has_value(); }
  static constexpr double kPresentationFontScale = 1.4;
  // Whether closing with unsaved changes asks first (off in tests).
  void set_interactive(bool on) { interactive_ = on; }
  ProjectTreeModel* tree_model() const { return tree_model_; }
  QTreeView* project_tree() const { return tree_; }
  QTextBrowser* details_view() const { return details_; }
  QString log_text() const;

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  struct Presenting {  // what presentation mode put aside
    QFont font;
    int tab = 0;
    std::vector<QDockWidget*> docks;
  };
  std::optional<Presenting> before_presentation_;
  QAction* presentation_action_ = nullptr;
  // A run file, on `scenario`, the scenario it names ("" when it names none).
  bool open_run_file(const QString& location, const QString& scenario, bool interactive);
  void build_actions();  // the menus, below
  void build_file_menu();
  void build_edit_menu();
  void build_live_view_help_menus();
  void build_docks();
  void show_selection();
  void log(const QString& line);
  void update_title();
  void open_dialog();
  void save_as_dialog();
  void new_application_dialog();
  void rename_dialog();
  void tree_context_menu(const QPoint& at);
  void select_entry(ProjectTreeModel::Section section, int entry);
  void remember_recent(const QString& location);
  void fill_recent_menu();
  // Unsaved changes and an interactive window: asks Save / Discard / Cancel; true when the
  // project may be replaced or closed now.
  bool may_discard_changes();

  void refresh_views();
  void refresh_details();
  void install_project(std::unique_ptr<Project> project, const QString& location);
  // An editor refused an edit: the log and the status bar say why.
  void report_refusal(const QString& why);
  // Before a save over the open file: true to go on. When it changed on disk since it was opened
  // or saved here, asks Reload / Overwrite / Save As (a scripted window refuses, saying why).
  bool may_overwrite(const QString& path, bool interactive);
  void changed_on_disk(const QString& path);

  ProjectDocument* document_ = nullptr;
  DagEditor* dag_ = nullptr;
  PlanningPanel* planning_ = nullptr;
  ClusterEditor* cluster_ = nullptr;
  PlanView* plan_view_ = nullptr;
  ProfileView* profile_view_ = nullptr;
  RunView* run_view_ = nullptr;
  ChartsView* charts_view_ = nullptr;
  CompareView* compare_view_ = nullptr;
  PredictionView* prediction_view_ = nullptr;
  LiveView* live_view_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QAction* new_application_action_ = nullptr;
  QAction* rename_action_ = nullptr;
  QAction* remove_action_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QTimer* autosave_timer_ = nullptr;
  std::unique_ptr<RecoveryStore> recovery_;
  DiskFileWatch* disk_ = nullptr;
  bool asking_about_disk_ = false;
  bool interactive_ = true;
  ProjectTreeModel* tree_model_ = nullptr;
  QTreeView* tree_ = nullptr;
  QTextBrowser* details_ = nullptr;
  QPlainTextEdit* log_ = nullptr;
  bool opening_run_ = false;  // open_run_file is opening the scenario a run names
};

}  // namespace servescope::ui

// The planning workflow (README "The GUI", Planning dock): tick planners, pick a workload, Run. The
// planners run one after another on a worker thread, on a copy of the scenario taken when Run was
// pressed, so the window stays responsive; each plan lands in the project through the undo stack as
// it finishes, and the comparison table below shows every plan of the project side by side. Cancel
// stops after the planner that is running (a solver cannot be interrupted halfway).
#pragma once

#include <QStringList>
#include <QWidget>
#include <memory>

#include "engine/serving/option_schema.h"
#include "engine/systems/scenario_planner.h"

class QAction;
class QListWidget;
class QComboBox;
class QLineEdit;
class QPushButton;
class QProgressBar;
class QLabel;
class QTableView;
class QTabWidget;

namespace servescope::widgets {
template <class Target>
class FamilyOptionTabs;
}

namespace servescope::ui {

class BackgroundJob;
class ProjectDocument;
class PlanComparisonModel;

class PlanningPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PlanningPanel(ProjectDocument* document, QWidget* parent = nullptr);
  ~PlanningPanel() override;

  // Runs `systems` on the selected workload ("" for all); false when a run is already going.
  bool run_planners(const QStringList& systems, const QString& workload = {});
  void cancel();
  bool busy() const;
  PlanComparisonModel* comparison() const { return comparison_; }
  // Run (F6), for the main window's Run menu: the ticked planners on the chosen workload.
  QAction* run_action() const { return run_action_; }
  QString status_text() const;

 Q_SIGNALS:
  void message(const QString& line);  // for the log
  void finished();

 private:
  void refresh();
  void plan_done(const QString& system, engine::ScenarioPlanResult planned, const QString& error, int done, int total);
  void job_finished(const QString& error, bool discarded);

  ProjectDocument* doc_;
  QListWidget* systems_;
  QComboBox* workload_;
  QPushButton* run_;
  QPushButton* cancel_;
  QAction* run_action_;
  QProgressBar* progress_;
  QLabel* status_;
  QTableView* table_;
  // One tab per planning family with its options, made from the family's schema
  // (engine/serving/option_schema.h) as `plan`'s flags are.
  QTabWidget* options_;
  std::unique_ptr<widgets::FamilyOptionTabs<engine::ScenarioPlanRequest>> forms_;
  PlanComparisonModel* comparison_;
  BackgroundJob* job_;    // the planners, one after another
  QStringList failures_;  // of the current run, for the status line
};

}  // namespace servescope::ui

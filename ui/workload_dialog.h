// A workload made or edited in the GUI (README "The GUI", Edit → Add workload…; double-click a
// workload in the project tree): the models and applications it sends to, each with an SLO of
// its own or the model's default (the application's), its total rate, and its arrival process
// (Poisson, gamma with its coefficient of variation, a trace file, or piecewise-constant
// segments; model/workload/workload.h). The scenario's own checks run when it is kept.
#pragma once

#include <QDialog>
#include <optional>

#include "model/scenario/scenario.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace servescope::ui {

class WorkloadDialog : public QDialog {
  Q_OBJECT
 public:
  // `editing`: the workload to start from (its fields filled in); none for a new one.
  WorkloadDialog(const Scenario& scenario, const Workload* editing, QWidget* parent = nullptr);

  // The workload the fields make, or nullopt with the reason in `why`.
  std::optional<Workload> workload(QString* why) const;

  // The fields, for tests and scripts: the targets table has a row per model and application
  // (column 0 checkable: sent to; 1 kind; 2 name; 3 its SLO in ms, 0 for the default).
  QLineEdit* name_field() const { return name_; }
  QTableWidget* targets() const { return targets_; }
  QDoubleSpinBox* rate_field() const { return rate_; }
  QComboBox* process_field() const { return process_; }
  QDoubleSpinBox* cv_field() const { return cv_; }
  QLineEdit* trace_field() const { return trace_; }
  QLineEdit* segments_field() const { return segments_; }
  // Checks the row whose target is `name` (a model or an application) and sets its SLO (0: default).
  bool choose_target(const QString& name, double slo_ms = 0);

  void accept() override;  // only a workload the fields make

 private:
  void show_process_fields();

  QLineEdit* name_;
  QTableWidget* targets_;
  QDoubleSpinBox* rate_;
  QComboBox* process_;
  QDoubleSpinBox* cv_;
  QLineEdit* trace_;
  QLineEdit* segments_;
  QLabel* problem_;
};

}  // namespace servescope::ui

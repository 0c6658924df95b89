// The plans kept in the project side by side (README "The GUI", Planning dock): one row per
// plan with its system, whether it is feasible, its rate (a pipeline plan's capacity, or the
// rate a glet or cost plan was sized for: two columns, since they are not one quantity), its cost
// in $/h and the GPUs or machines it takes, read from the plan's JSON by the engine's
// summarize_plan.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "engine/systems/scenario_planner.h"
#include "model/scenario/scenario.h"

namespace servescope::ui {

class PlanComparisonModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Name, System, Family, Feasible, Capacity, SizedFor, Cost, Gpus, Note, kColumnCount };

  explicit PlanComparisonModel(QObject* parent = nullptr);
  void set_project(const Project* project);  // not owned; re-read on every call

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::vector<QString> names_;
  std::vector<engine::PlanSummary> rows_;
};

}  // namespace servescope::ui

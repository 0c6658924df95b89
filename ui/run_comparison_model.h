// Runs of one project side by side (README "The GUI", Compare tab): one row per chosen simulated run
// with its headline figures (engine/analysis/run_headline.h), and the highest load factor at 99 %
// attainment when the project holds a load sweep of the same source ("sweep NAME" for run NAME).
#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <vector>

#include "engine/analysis/run_headline.h"
#include "model/scenario/scenario.h"

namespace servescope::ui {

class RunComparisonModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Name, System, Attainment, Goodput, P99, MeanBatch, GpusUsed, LeastBusy, Price, MaxLoad, kColumnCount };

  explicit RunComparisonModel(QObject* parent = nullptr);
  // The runs named in `runs`, in that order; names that are not simulated runs are skipped.
  void set_runs(const Project* project, const QStringList& runs);
  QStringList runs() const { return names_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QStringList names_;
  std::vector<engine::RunHeadline> rows_;
  std::vector<QString> errors_;  // per row, why its figures are missing
};

}  // namespace servescope::ui

// The project tree beside every view: the scenario's cluster, GPU types, models, applications
// and workloads, then the saved plans and runs. Two levels (section, entry), read-only; editing
// arrives with the editors. Items carry their section and index (Roles) so views can open them.
#pragma once

#include <QAbstractItemModel>
#include <functional>

#include "model/scenario/scenario.h"

namespace servescope::ui {

class ProjectTreeModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum class Section { Cluster, GpuTypes, Models, Applications, Workloads, Plans, Runs };
  static constexpr int kSectionCount = 7;
  enum Roles { SectionRole = Qt::UserRole + 1, EntryIndexRole };

  explicit ProjectTreeModel(QObject* parent = nullptr);

  void set_project(const Project* project);  // not owned; nullptr clears
  // Replaces the project in one model reset: `swap` drops the old project and returns the new
  // one while no view reads the model.
  void replace_project(const std::function<const Project*()>& swap);
  const Project* project() const { return project_; }

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  static QString section_title(Section s);
  // GPU types the scenario uses (cluster and profiles), in catalog order.
  const std::vector<GpuSpec>& used_gpu_types() const { return used_gpus_; }

 private:
  int entry_count(Section s) const;
  QVariant entry_data(Section s, int row, int role) const;

  const Project* project_ = nullptr;
  std::vector<GpuSpec> used_gpus_;
};

}  // namespace servescope::ui

#include "ui/project_tree_model.h"

#include <QApplication>
#include <QPalette>
#include <algorithm>

#include "widgets/model_colors.h"

namespace servescope::ui {
namespace {

// internalId: 0 for section rows; (section + 1) for entries, so parent() is one lookup.
constexpr quintptr kSectionId = 0;

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

QString ms_short(Duration d) {
  return QString::number(d.to_ms(), 'g', 4) + QStringLiteral(" ms");
}

}  // namespace

ProjectTreeModel::ProjectTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void ProjectTreeModel::set_project(const Project* project) {
  replace_project([project] { return project; });
}

void ProjectTreeModel::replace_project(const std::function<const Project*()>& swap) {
  beginResetModel();
  project_ = nullptr;
  used_gpus_.clear();
  const auto* project = swap();
  project_ = project;
  if (project) {
    const auto catalog = project->scenario.catalog();
    for (const auto& id : project->scenario.gpu_types_in_use())
      used_gpus_.push_back(*catalog.find(id));
  }
  endResetModel();
}

QString ProjectTreeModel::section_title(Section s) {
  switch (s) {
    case Section::Cluster:
      return tr("Cluster");
    case Section::GpuTypes:
      return tr("GPU types");
    case Section::Models:
      return tr("Models");
    case Section::Applications:
      return tr("Applications");
    case Section::Workloads:
      return tr("Workloads");
    case Section::Plans:
      return tr("Plans");
    case Section::Runs:
      return tr("Runs");
  }
  return {};
}

int ProjectTreeModel::entry_count(Section s) const {
  if (!project_) return 0;
  const auto& sc = project_->scenario;
  switch (s) {
    case Section::Cluster:
      return static_cast<int>(sc.cluster.nodes.size());
    case Section::GpuTypes:
      return static_cast<int>(used_gpus_.size());
    case Section::Models:
      return static_cast<int>(sc.profiles.models.size());
    case Section::Applications:
      return static_cast<int>(sc.applications.size());
    case Section::Workloads:
      return static_cast<int>(sc.workloads.size());
    case Section::Plans:
      return static_cast<int>(project_->plans.size());
    case Section::Runs:
      return static_cast<int>(project_->runs.size());
  }
  return 0;
}

QModelIndex ProjectTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (column != 0 || row < 0) return {};
  if (!parent.isValid()) return row < kSectionCount ? createIndex(row, 0, kSectionId) : QModelIndex();
  if (parent.internalId() != kSectionId) return {};
  if (row >= entry_count(static_cast<Section>(parent.row()))) return {};
  return createIndex(row, 0, static_cast<quintptr>(parent.row() + 1));
}

QModelIndex ProjectTreeModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == kSectionId) return {};
  return createIndex(static_cast<int>(child.internalId() - 1), 0, kSectionId);
}

int ProjectTreeModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return kSectionCount;
  if (parent.column() != 0 || parent.internalId() != kSectionId) return 0;
  return entry_count(static_cast<Section>(parent.row()));
}

int ProjectTreeModel::columnCount(const QModelIndex&) const {
  return 1;
}

QVariant ProjectTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal && role == Qt::DisplayRole && section == 0) return tr("Project");
  return {};
}

QVariant ProjectTreeModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  if (index.internalId() == kSectionId) {
    const auto s = static_cast<Section>(index.row());
    switch (role) {
      case Qt::DisplayRole:
        return QStringLiteral("%1 (%2)").arg(section_title(s)).arg(entry_count(s));
      case SectionRole:
        return index.row();
      case EntryIndexRole:
        return -1;
      default:
        return {};
    }
  }
  const auto s = static_cast<Section>(index.internalId() - 1);
  if (role == SectionRole) return static_cast<int>(s);
  if (role == EntryIndexRole) return index.row();
  return entry_data(s, index.row(), role);
}

QVariant ProjectTreeModel::entry_data(Section s, int row, int role) const {
  const auto& sc = project_->scenario;
  const auto r = static_cast<std::size_t>(row);
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole && role != Qt::DecorationRole) return {};
  switch (s) {
    case Section::Cluster: {
      const auto& n = sc.cluster.nodes[r];
      if (role == Qt::DisplayRole)
        return n.count > 1 ? tr("%1 ×%2: %3× %4").arg(qs(n.name)).arg(n.count).arg(n.gpu_count).arg(qs(n.gpu))
                           : tr("%1: %2× %3").arg(qs(n.name)).arg(n.gpu_count).arg(qs(n.gpu));
      if (role == Qt::ToolTipRole) return tr("NIC %1 Gbps up, %2 Gbps down").arg(n.nic_up_gbps).arg(n.nic_down_gbps);
      if (role == Qt::DecorationRole) return widgets::color_for_name(qs(n.gpu), QApplication::palette());
      return {};
    }
    case Section::GpuTypes: {
      const auto* g = &used_gpus_[r];
      if (role == Qt::DisplayRole) return qs(g->id);
      if (role == Qt::ToolTipRole) {
        // "—" for a figure the type's entry leaves out (0: unknown).
        const auto figure = [](double v) { return v > 0 ? QString::number(v) : QStringLiteral("—"); };
        return tr("%1: %2 SMs, %3 GiB, %4 TFLOP/s FP16%5")
            .arg(qs(g->name))
            .arg(figure(g->sm_count))
            .arg(figure(g->memory_gib))
            .arg(figure(g->fp16_tflops))
            .arg(g->mps ? tr(", MPS") : QString());
      }
      if (role == Qt::DecorationRole) return widgets::color_for_name(qs(g->id), QApplication::palette());
      return {};
    }
    case Section::Models: {
      const auto& m = sc.profiles.models[r];
      if (role == Qt::DisplayRole) return qs(m.name);
      if (role == Qt::ToolTipRole) {
        QString tip = tr("%1 profile").arg(QString::fromUtf8(to_string(m.form)));
        if (m.default_slo) tip += tr(", SLO %1").arg(ms_short(*m.default_slo));
        if (!m.origin.empty()) tip += tr("\nfrom %1").arg(qs(m.origin));
        return tip;
      }
      if (role == Qt::DecorationRole) return widgets::color_for_name(qs(m.name), QApplication::palette());
      return {};
    }
    case Section::Applications: {
      const auto& a = sc.applications[r];
      if (role == Qt::DisplayRole) return qs(a.name);
      if (role == Qt::ToolTipRole) return tr("%1 modules, SLO %2").arg(a.modules.size()).arg(ms_short(a.slo));
      return {};
    }
    case Section::Workloads: {
      const auto& w = sc.workloads[r];
      if (role == Qt::DisplayRole) return tr("%1: %2 req/s").arg(qs(w.name)).arg(w.rate_rps);
      if (role == Qt::ToolTipRole) return qs(describe(w.arrivals));
      return {};
    }
    case Section::Plans:
    case Section::Runs: {
      const auto& a = s == Section::Plans ? project_->plans[r] : project_->runs[r];
      if (role == Qt::DisplayRole) return tr("%1 (%2)").arg(qs(a.name), qs(a.system));
      if (role == Qt::ToolTipRole) return qs(a.created_utc);
      return {};
    }
  }
  return {};
}

}  // namespace servescope::ui

#include "ui/plan_comparison_model.h"

#include "model/core/error.h"

namespace servescope::ui {

PlanComparisonModel::PlanComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void PlanComparisonModel::set_project(const Project* project) {
  beginResetModel();
  names_.clear();
  rows_.clear();
  if (project)
    for (const auto& plan : project->plans) {
      engine::PlanSummary s;
      try {
        s = engine::summarize_plan(plan.body);
      } catch (const Error& e) {
        s.system = plan.system;
        s.note = e.what();
      }
      names_.push_back(QString::fromStdString(plan.name));
      rows_.push_back(std::move(s));
    }
  endResetModel();
}

int PlanComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int PlanComparisonModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant PlanComparisonModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumnCount) return {};
  const auto& s = rows_[static_cast<std::size_t>(index.row())];
  if (role == Qt::TextAlignmentRole)
    return index.column() >= Capacity && index.column() <= Gpus ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                                : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  // A pipeline plan's rate is the most it serves within the SLOs; a glet or cost plan's, the
  // workload's rate it was sized for.
  const bool capacity = s.family == engine::PlannerFamily::Pipeline;
  if (role == Qt::UserRole) {  // raw values, for sorting and tests (0 where the column does not apply)
    switch (index.column()) {
      case Capacity:
        return capacity ? s.throughput_rps : 0.0;
      case SizedFor:
        return capacity ? 0.0 : s.throughput_rps;
      case Cost:
        return s.cost;
      case Gpus:
        return s.gpus;
      case Feasible:
        return s.feasible;
      default:
        break;
    }
  }
  if (role == Qt::ToolTipRole) {
    // What the numbers of this row are: the families plan for different things.
    QString what;
    switch (s.family) {
      case engine::PlannerFamily::Pipeline:
        what = tr("Capacity: the most the pipelines serve within their SLOs, req/s in all. GPUs: whole GPUs used.");
        break;
      case engine::PlannerFamily::Glet:
        what = tr("Sized for: the rate the glets were given of what the workloads ask, req/s. GPUs: GPUs split.");
        break;
      case engine::PlannerFamily::Cost:
        what =
            tr("Sized for: the application's rate the plan serves, req/s. Cost: its machines × their price "
               "per hour, billed for the share of a machine used. GPUs: the machines it rents.");
        break;
    }
    return s.note.empty() ? what : what + QStringLiteral("\n") + QString::fromStdString(s.note);
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Name:
      return names_[static_cast<std::size_t>(index.row())];
    case System:
      return QString::fromStdString(s.system);
    case Family:
      return QString::fromUtf8(engine::to_string(s.family).data());
    case Feasible:
      return s.feasible ? tr("yes") : tr("no");
    case Capacity:
      return capacity ? QString::number(s.throughput_rps, 'f', 1) : QString();
    case SizedFor:
      return capacity ? QString() : QString::number(s.throughput_rps, 'f', 1);
    case Cost:
      return s.family == engine::PlannerFamily::Cost ? tr("%1 $/h").arg(s.cost, 0, 'f', 3) : QString();
    case Gpus:
      return s.gpus;
    case Note:
      return QString::fromStdString(s.note);
    default:
      return {};
  }
}

QVariant PlanComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name:
      return tr("Plan");
    case System:
      return tr("System");
    case Family:
      return tr("Kind");
    case Feasible:
      return tr("OK");
    case Capacity:
      return tr("Capacity, req/s");
    case SizedFor:
      return tr("Sized for, req/s");
    case Cost:
      return tr("Cost");
    case Gpus:
      return tr("GPUs");
    case Note:
      return tr("Note");
    default:
      return {};
  }
}

}  // namespace servescope::ui

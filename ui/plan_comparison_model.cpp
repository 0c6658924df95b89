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
    return index.column() >= Throughput && index.column() <= Gpus ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                                  : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  if (role == Qt::UserRole) {  // raw values, for sorting and tests
    switch (index.column()) {
      case Throughput:
        return s.throughput_rps;
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
        what = tr("Throughput: the capacity the pipelines were planned for, req/s in all. GPUs: whole GPUs used.");
        break;
      case engine::PlannerFamily::Glet:
        what = tr("Throughput: the rate the glets were given of what the workloads ask, req/s. GPUs: GPUs split.");
        break;
      case engine::PlannerFamily::Cost:
        what = tr("Throughput: the rate the plan serves, req/s. Cost: its occupancy cost. Machines: those it rents.");
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
    case Throughput: {
      // Not one quantity across families: say which this is.
      const auto number = QString::number(s.throughput_rps, 'f', 1);
      switch (s.family) {
        case engine::PlannerFamily::Pipeline:
          return tr("%1 capacity").arg(number);
        case engine::PlannerFamily::Glet:
          return tr("%1 placed").arg(number);
        case engine::PlannerFamily::Cost:
          return tr("%1 served").arg(number);
      }
      return number;
    }
    case Cost:
      return s.family == engine::PlannerFamily::Cost ? QString::number(s.cost, 'f', 3) : QString();
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
    case Throughput:
      return tr("req/s");
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

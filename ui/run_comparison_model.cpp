#include "ui/run_comparison_model.h"

#include <QRegularExpression>

#include "engine/analysis/saved_artifacts.h"
#include "model/core/error.h"

namespace servescope::ui {

RunComparisonModel::RunComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunComparisonModel::set_runs(const Project* project, const QStringList& runs) {
  beginResetModel();
  names_.clear();
  rows_.clear();
  errors_.clear();
  if (project) {
    const auto catalog = project->scenario.catalog();
    for (const auto& name : runs) {
      const auto it = std::ranges::find(project->runs, name.toStdString(), &SavedArtifact::name);
      if (it == project->runs.end() || engine::artifact_kind(*it) != engine::ArtifactKind::RunResult) continue;
      engine::RunHeadline h;
      QString error;
      try {
        h = engine::run_headline(it->body, catalog, it->name);
      } catch (const Error& e) {
        error = QString::fromStdString(e.what());
      }
      // The sweep of the same source: "sweep ppipe" for "ppipe" and "ppipe #2".
      auto base = name;
      base.remove(QRegularExpression(QStringLiteral(" #\\d+$")));
      const auto sweep = std::ranges::find(project->runs, QString(QStringLiteral("sweep ") + base).toStdString(),
                                           &SavedArtifact::name);
      if (sweep != project->runs.end() && engine::artifact_kind(*sweep) == engine::ArtifactKind::LoadSweep)
        h.max_load_factor = engine::sweep_max_load_factor(sweep->body, sweep->name);
      names_ << name;
      rows_.push_back(std::move(h));
      errors_.push_back(error);
    }
  }
  endResetModel();
}

int RunComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int RunComparisonModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant RunComparisonModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= kColumnCount) return {};
  const auto row = static_cast<std::size_t>(index.row());
  const auto& h = rows_[row];
  if (role == Qt::TextAlignmentRole)
    return index.column() >= Attainment ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                        : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  if (role == Qt::UserRole) {  // raw values, for sorting and tests
    switch (index.column()) {
      case Attainment:
        return h.summary.slo_attainment;
      case Goodput:
        return h.summary.goodput_rps;
      case P99:
        return h.summary.p99.to_ms();
      case MeanBatch:
        return h.summary.mean_batch;
      case GpusUsed:
        return h.summary.gpus_used;
      case LeastBusy:
        return h.least_busy;
      case Price:
        return h.price_per_hour ? QVariant(*h.price_per_hour) : QVariant();
      case MaxLoad:
        return h.max_load_factor ? QVariant(*h.max_load_factor) : QVariant();
      default:
        break;
    }
  }
  if (role == Qt::ToolTipRole && !errors_[row].isEmpty()) return errors_[row];
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Name:
      return names_[index.row()];
    case System:
      return QString::fromStdString(h.system);
    case Attainment:
      return QStringLiteral("%1 %").arg(100 * h.summary.slo_attainment, 0, 'f', 2);
    case Goodput:
      return QString::number(h.summary.goodput_rps, 'f', 1);
    case P99:
      return QString::number(h.summary.p99.to_ms(), 'f', 2);
    case MeanBatch:
      return QString::number(h.summary.mean_batch, 'f', 2);
    case GpusUsed:
      return h.summary.gpus_used;
    case LeastBusy:
      return h.least_busy_type.empty() ? QString()
                                       : QStringLiteral("%1 %2 %")
                                             .arg(QString::fromStdString(h.least_busy_type))
                                             .arg(100 * h.least_busy, 0, 'f', 1);
    case Price:
      return h.price_per_hour ? QString::number(*h.price_per_hour, 'f', 2) : tr("—");
    case MaxLoad:
      return h.max_load_factor ? QStringLiteral("%1 %").arg(100 * *h.max_load_factor, 0, 'f', 0) : tr("—");
    default:
      return {};
  }
}

QVariant RunComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name:
      return tr("Run");
    case System:
      return tr("System");
    case Attainment:
      return tr("SLO attainment");
    case Goodput:
      return tr("Goodput (req/s)");
    case P99:
      return tr("p99 (ms)");
    case MeanBatch:
      return tr("Mean batch");
    case GpusUsed:
      return tr("GPUs used");
    case LeastBusy:
      return tr("Least busy class");
    case Price:
      return tr("Price of busy GPUs (/h)");
    case MaxLoad:
      return tr("Max load at 99 %");
    default:
      return {};
  }
}

}  // namespace servescope::ui

#include "ui/compare_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "engine/analysis/saved_artifacts.h"
#include "ui/project_document.h"
#include "ui/run_comparison_model.h"
#include "ui/run_view.h"
#include "widgets/timeline_view.h"

namespace servescope::ui {
namespace {

constexpr int kMaxTimelines = 4;  // more would leave each too few rows to read

}  // namespace

CompareView::CompareView(ProjectDocument* document, RunView* runs, QWidget* parent)
    : QWidget(parent), doc_(document), runs_view_(runs) {
  setObjectName(QStringLiteral("compareView"));
  runs_ = new QListWidget(this);
  runs_->setMaximumWidth(220);
  model_ = new RunComparisonModel(this);
  table_view_ = new QTableView(this);
  table_view_->setModel(model_);
  table_view_->verticalHeader()->hide();
  table_view_->setMaximumHeight(170);
  stack_ = new QSplitter(Qt::Vertical, this);
  // One window, history, range and filter for every timeline: zooming one moves them all.
  state_ = new widgets::TimelineViewState(this);
  status_ = new QLabel(tr("Tick two or more runs to compare them."), this);
  status_->setWordWrap(true);
  auto* left = new QVBoxLayout;
  left->addWidget(new QLabel(tr("Runs"), this));
  left->addWidget(runs_, 1);
  auto* right = new QVBoxLayout;
  right->addWidget(status_);
  right->addWidget(table_view_);
  right->addWidget(stack_, 1);
  auto* box = new QHBoxLayout(this);
  box->addLayout(left);
  box->addLayout(right, 1);
  connect(runs_, &QListWidget::itemChanged, this, &CompareView::rebuild);
  connect(doc_, &ProjectDocument::changed, this, &CompareView::refresh);
  connect(doc_, &ProjectDocument::projectReset, this, &CompareView::refresh);
  refresh();
}

void CompareView::refresh() {
  QStringList ticked;
  for (int i = 0; i < runs_->count(); ++i)
    if (runs_->item(i)->checkState() == Qt::Checked) ticked << runs_->item(i)->text();
  {
    const QSignalBlocker quiet(runs_);
    runs_->clear();
    if (const auto* p = doc_->project())
      for (const auto& run : p->runs) {
        if (engine::artifact_kind(run) != engine::ArtifactKind::RunResult) continue;
        auto* item = new QListWidgetItem(QString::fromStdString(run.name), runs_);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(ticked.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
      }
  }
  rebuild();
}

bool CompareView::compare(const QStringList& runs) {
  {
    const QSignalBlocker quiet(runs_);
    for (int i = 0; i < runs_->count(); ++i)
      runs_->item(i)->setCheckState(runs.contains(runs_->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
  }
  rebuild();
  return model_->rowCount() >= 1;
}

void CompareView::rebuild() {
  QStringList ticked;
  for (int i = 0; i < runs_->count(); ++i)
    if (runs_->item(i)->checkState() == Qt::Checked) ticked << runs_->item(i)->text();
  model_->set_runs(doc_->project(), ticked);
  table_view_->resizeColumnsToContents();
  for (auto* view : views_)
    delete view;
  views_.clear();
  QStringList missing;
  for (const auto& name : ticked) {
    if (static_cast<int>(views_.size()) == kMaxTimelines) {
      missing << tr("%1 (at most %2 timelines at once)").arg(name).arg(kMaxTimelines);
      continue;
    }
    QString why;
    const auto timeline = runs_view_->timeline_for(name, &why);
    if (!timeline) {
      missing << why;
      continue;
    }
    auto* view = new widgets::TimelineView(stack_);
    view->set_state(state_);
    view->set_timeline(timeline);
    stack_->addWidget(view);
    views_.push_back(view);
  }
  // One time axis for all: the widest run's, fitted.
  std::int64_t end = 0;
  for (auto* view : views_)
    end = std::max(end, view->timeline()->end.count_ns());
  state_->reset(end);
  if (ticked.size() < 2)
    status_->setText(tr("Tick two or more runs to compare them."));
  else
    status_->setText(missing.isEmpty() ? tr("Zoom or pan any timeline: the others follow.")
                                       : tr("Not shown: %1").arg(missing.join(QStringLiteral("; "))));
}

}  // namespace servescope::ui

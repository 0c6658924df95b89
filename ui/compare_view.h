// The Compare tab (README "The GUI"): tick two or more runs of the project to see their headline
// figures side by side (max load at 99 %, goodput, price, GPUs used, least busy class) and their
// timelines stacked, with one time axis: zooming or panning one moves them all.
#pragma once

#include <QWidget>
#include <vector>

class QListWidget;
class QSplitter;
class QTableView;
class QLabel;

namespace servescope::widgets {
class TimelineView;
class TimelineViewState;
}  // namespace servescope::widgets

namespace servescope::ui {

class ProjectDocument;
class RunComparisonModel;
class RunView;

class CompareView : public QWidget {
  Q_OBJECT
 public:
  // `runs` gives the timelines (this session's, or those the project keeps).
  CompareView(ProjectDocument* document, RunView* runs, QWidget* parent = nullptr);

  // Compares the named runs (ticks them); false when fewer than one of them is a simulated run.
  bool compare(const QStringList& runs);
  RunComparisonModel* table() const { return model_; }
  const std::vector<widgets::TimelineView*>& timelines() const { return views_; }
  widgets::TimelineViewState* view_state() const { return state_; }

 private:
  void refresh();
  void rebuild();

  ProjectDocument* doc_;
  RunView* runs_view_;
  QListWidget* runs_;
  RunComparisonModel* model_;
  QTableView* table_view_;
  QSplitter* stack_;
  QLabel* status_;
  std::vector<widgets::TimelineView*> views_;
  widgets::TimelineViewState* state_;
};

}  // namespace servescope::ui

// Reading plans (README "The GUI", Plans tab): any plan the project keeps, painted as a diagram
// (widgets/plan_diagram_view.h: pools, glets or the module DAG) above its page of figures, and
// two plans side by side on shared scales; an item picked on one side is picked on the other.
#pragma once

#include <QString>
#include <QWidget>
#include <nlohmann/json.hpp>

#include "model/cluster/cluster.h"

class QTextBrowser;
class QComboBox;

namespace servescope::widgets {
class PlanDiagramView;
}

namespace servescope::ui {

class ProjectDocument;

// The page for one plan (a pipeline-plan, glet-plan or cost-plan body).
// `cluster`: the project's, so a plan that uses part of it says of how much.
QString plan_html(const nlohmann::json& plan, const Cluster& cluster);

class PlanView : public QWidget {
  Q_OBJECT
 public:
  explicit PlanView(ProjectDocument* document, QWidget* parent = nullptr);
  // Which of the project's plans each side shows (−1: none).
  void show_plans(int left, int right);
  QString left_text() const;
  QString right_text() const;
  widgets::PlanDiagramView* left_diagram() const { return left_side_.diagram; }
  widgets::PlanDiagramView* right_diagram() const { return right_side_.diagram; }

 Q_SIGNALS:
  // A pool ("pool:MODEL/PIPELINE/PARTITION"), glet ("glet:GPU/K") or module ("module:ID") of
  // the plan named `plan` was picked (engine/planning/plan_item_id.h); `id` is empty when the pick
  // was cleared.
  void itemSelected(const QString& plan, const QString& id);

 private:
  void refresh();

  struct Side {
    QComboBox* pick = nullptr;
    widgets::PlanDiagramView* diagram = nullptr;
    QTextBrowser* text = nullptr;
  };
  ProjectDocument* doc_;
  Side left_side_, right_side_;
  QComboBox* left_pick_ = nullptr;
  QComboBox* right_pick_ = nullptr;
};

}  // namespace servescope::ui

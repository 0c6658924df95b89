// Reading plans (README "The GUI", Plans tab): any plan the project keeps, as a page — pooled
// pipelines as chains of pools per model with the bottleneck pool marked, gpu-let layouts as one
// row per GPU split into its glets, cost plans as each module's tiers of machines with its budget —
// and two plans side by side for comparison.
#pragma once

#include <QString>
#include <QWidget>
#include <nlohmann/json.hpp>

class QTextBrowser;
class QComboBox;

namespace servescope::ui {

class ProjectDocument;

// The page for one plan (a pipeline-plan, glet-plan or cost-plan body).
QString plan_html(const nlohmann::json& plan);

class PlanView : public QWidget {
  Q_OBJECT
 public:
  explicit PlanView(ProjectDocument* document, QWidget* parent = nullptr);
  // Which of the project's plans each side shows (−1: none).
  void show_plans(int left, int right);
  QString left_text() const;
  QString right_text() const;

 private:
  void refresh();

  ProjectDocument* doc_;
  QComboBox* left_pick_;
  QComboBox* right_pick_;
  QTextBrowser* left_;
  QTextBrowser* right_;
};

}  // namespace servescope::ui

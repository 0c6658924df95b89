// A plan part picked in the Plans tab shown everywhere it lives (README "The GUI", Plans tab):
// its shares outlined on the cluster's chips, its rows marked on the shown run's timeline, and
// its plan and models selected in the project tree. Everything is found through the placement
// (engine/planning/plan_placement.h) and the part's id (plan_item_id.h), never by name matching
// in a view.
#include <QItemSelectionModel>
#include <QStatusBar>
#include <QTreeView>
#include <set>
#include <variant>

#include "engine/analysis/saved_artifacts.h"
#include "engine/planning/plan_item_id.h"
#include "engine/planning/plan_placement.h"
#include "engine/serving/stored_plan.h"
#include "model/core/error.h"
#include "ui/cluster_editor.h"
#include "ui/main_window.h"
#include "ui/project_document.h"
#include "ui/run_view.h"
#include "widgets/timeline_view.h"

namespace servescope::ui {
namespace {

// "a + b" (two models sharing a glet) as its models.
void add_models(std::set<std::string>& models, const std::string& names) {
  for (std::size_t at = 0; at <= names.size();) {
    const auto plus = names.find(" + ", at);
    models.insert(names.substr(at, plus == std::string::npos ? std::string::npos : plus - at));
    if (plus == std::string::npos) break;
    at = plus + 3;
  }
}

}  // namespace

QString MainWindow::show_plan_item(const QString& plan, const QString& id) {
  const auto* p = document_->project();
  auto* timeline = run_view_->timeline();
  if (!p) return {};
  const auto it = std::ranges::find(p->plans, plan.toStdString(), &SavedArtifact::name);
  if (it == p->plans.end() || id.isEmpty()) {  // a cleared pick clears the marks
    timeline->mark_rows({});
    if (it != p->plans.end() && engine::places_on_the_cluster(engine::artifact_kind(*it)))
      cluster_->show_plan_shares(plan);
    return {};
  }
  std::set<std::string> models;
  std::vector<std::uint32_t> rows;
  int chips = 0;
  try {
    if (const auto module = engine::module_of_item(id.toStdString())) {
      const auto stored = engine::read_plan(it->body, it->name);
      if (const auto* cost = std::get_if<engine::CostPlanRecord>(&stored))
        for (const auto& m : cost->modules)
          if (m.id == *module && !m.model.empty()) models.insert(m.model);
    } else if (engine::places_on_the_cluster(engine::artifact_kind(*it))) {
      chips = cluster_->pick_plan_item(plan, id);
      const auto shown = timeline->timeline();
      const auto placement = engine::place_plan(p->scenario, it->body);  // the shares point into it
      for (const auto* share : placement.shares_of(id.toStdString())) {
        add_models(models, share->model);
        // Only rows that are this share's slot: a run of another plan names its rows otherwise.
        if (shown && share->slot < shown->gpus.size() && shown->gpus[share->slot] == share->slot_name)
          rows.push_back(share->slot);
      }
    }
  } catch (const Error& e) {
    return tr("%1 of %2 cannot be shown: %3").arg(id, plan, QString::fromUtf8(e.what()));
  }
  timeline->mark_rows(rows);

  // The tree: the plan and the part's models, selected without changing the shown tab.
  auto* selection = tree_->selectionModel();
  selection->clearSelection();
  const auto select_entry = [&](ProjectTreeModel::Section section, std::size_t entry) {
    const auto parent = tree_model_->index(static_cast<int>(section), 0);
    const auto item = tree_model_->index(static_cast<int>(entry), 0, parent);
    tree_->expand(parent);
    selection->select(item, QItemSelectionModel::Select);
    tree_->scrollTo(item);
  };
  select_entry(ProjectTreeModel::Section::Plans, static_cast<std::size_t>(it - p->plans.begin()));
  const auto& profiles = p->scenario.profiles.models;
  for (std::size_t m = 0; m < profiles.size(); ++m)
    if (models.contains(profiles[m].name)) select_entry(ProjectTreeModel::Section::Models, m);

  auto line =
      tr("%1 of %2: %3 share(s) on the cluster, %4 row(s) of the shown run").arg(id, plan).arg(chips).arg(rows.size());
  statusBar()->showMessage(line, 8000);
  return line;
}

}  // namespace servescope::ui

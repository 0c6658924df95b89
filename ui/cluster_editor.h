// The cluster editor (README "The GUI", Cluster tab): each node entry is a server box with its GPU
// chips (one per GPU, coloured by type) and NIC figures, laid out on a canvas that zooms
// (Ctrl+wheel) and pans; a form edits the selected node (name, GPU type, GPUs per server, servers,
// NIC up/down); nodes are added, duplicated (Ctrl+D) and deleted (Delete), and a template replaces
// the whole cluster with one of the papers' (HC1–HC4 S/L, the glet servers, 64 and 512 A100s). Every
// edit goes through the document's undo stack and is checked there; refusals are reported. Boxes are
// dragged anywhere (the position is kept in the project), and the chips can show the MPS shares
// a plan puts on each GPU, placed as the simulator places them (engine/planning/plan_placement.h).
#pragma once

#include <QGraphicsView>
#include <QWidget>
#include <map>
#include <string>
#include <vector>

#include "engine/planning/plan_placement.h"
#include "model/cluster/cluster.h"

class QComboBox;
class QDoubleSpinBox;
class QGraphicsScene;
class QLineEdit;
class QSpinBox;
class QLabel;

namespace servescope::ui {

class ProjectDocument;

// Zooms around the cursor with Ctrl+wheel, pans by dragging the background.
class ZoomingView : public QGraphicsView {
  Q_OBJECT
 public:
  using QGraphicsView::QGraphicsView;

 protected:
  void wheelEvent(QWheelEvent* event) override;
};

class ClusterEditor : public QWidget {
  Q_OBJECT
 public:
  explicit ClusterEditor(ProjectDocument* document, QWidget* parent = nullptr);
  ~ClusterEditor() override;

  // Built-in cluster templates ("clusters/hc3-s.json" …) and their display names.
  static std::vector<std::pair<QString, QString>> templates();

  QString apply_template(const QString& resource);  // replaces the cluster
  QString add_node(const QString& gpu);             // and selects it
  QString duplicate_node(int index);                // and selects the copy
  QString remove_node(int index);
  QString set_node(int index, const Node& node);
  QString move_node(int index, QPointF to);  // where the node's box is drawn, kept in the project
  // Draws the MPS shares the named plan puts on each GPU ("" for chips by GPU type); false when
  // the project has no such pipeline or gpu-let plan.
  bool show_plan_shares(const QString& plan);
  // Shows `plan`'s shares with the part `item` picked (plan_item_id.h): its shares outlined and
  // the first brought into view. Returns how many chips show it (0: the plan does not place it).
  int pick_plan_item(const QString& plan, const QString& item);
  int picked_shares() const { return picked_shares_; }
  int shared_gpus() const { return shared_gpus_; }  // GPUs the shown plan uses, 0 without one
  int selected_node() const { return selected_; }
  QGraphicsScene* scene() const { return scene_; }
  const QString& last_refusal() const { return refusal_; }

 Q_SIGNALS:
  void refused(const QString& why);

 protected:
  void changeEvent(QEvent* event) override;  // a new palette (dark mode) draws it again

 private:
  QString edit(const std::function<Cluster(Cluster)>& change, const QString& what);
  void rebuild();
  void select_node(int index);  // its box selected and its figures in the form
  // Places the plan chosen under "Shares of": per node entry its GPUs, the models for the legend;
  // what the summary line adds (the GPUs it uses, or why it does not fit).
  QString place_chosen_plan(std::map<std::size_t, std::vector<engine::PlacedGpu>>& placed,
                            std::vector<std::string>& legend);
  void add_node_box(int index, const Node& n, QPointF at, const std::vector<engine::PlacedGpu>* gpus);
  void refresh_share_choices();
  void fill_form();
  void apply_form();

  ProjectDocument* doc_;
  QGraphicsScene* scene_;
  ZoomingView* view_;
  QComboBox* templates_;
  QComboBox* shares_;
  QLineEdit* name_;
  QComboBox* gpu_;       // the selected node's GPU type
  QComboBox* add_type_;  // the GPU type Add node gives a new node
  QWidget* apply_;
  QSpinBox* gpus_;
  QSpinBox* servers_;
  QDoubleSpinBox* up_;
  QDoubleSpinBox* down_;
  QLabel* summary_;
  int selected_ = -1;
  int shared_gpus_ = 0;
  std::string picked_item_;  // outlined on the chips (pick_plan_item)
  int picked_shares_ = 0;
  QString refusal_;
};

}  // namespace servescope::ui

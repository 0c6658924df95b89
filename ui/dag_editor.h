// The application DAG editor (README "The GUI", Application tab): modules as boxes with an input
// port on top and an output port below, edges dragged from an output port onto another module,
// placed by the layered layout of model/app/application_editing.h. The graph lives in the
// ProjectDocument; the scene is only its picture, rebuilt on every change, and every edit goes
// through the document's undo stack (refused edits are reported, not applied).
#pragma once

#include <QGraphicsScene>
#include <QPointF>
#include <QWidget>
#include <functional>
#include <optional>
#include <vector>

#include "model/app/application.h"

class QGraphicsView;
class QGraphicsLineItem;
class QDoubleSpinBox;
class QLabel;
class QComboBox;
class QLineEdit;

namespace servescope::ui {

class ProjectDocument;

class DagScene : public QGraphicsScene {
  Q_OBJECT
 public:
  using QGraphicsScene::QGraphicsScene;
 Q_SIGNALS:
  void connectRequested(const QString& from, const QString& to);

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseMoveEvent(QGraphicsSceneMouseEvent* event) override;
  void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override;

 private:
  QString drag_from_;
  QGraphicsLineItem* rubber_ = nullptr;
};

class DagEditor : public QWidget {
  Q_OBJECT
 public:
  explicit DagEditor(ProjectDocument* document, QWidget* parent = nullptr);
  ~DagEditor() override;

  void show_application(int index);  // −1: none
  int application() const { return app_; }

  // The editing operations the scene and the toolbar use; each returns the reason when refused.
  QString add_module(const QString& model);  // a DNN module running `model`
  QString add_cpu_step(double latency_ms);
  QString connect_modules(const QString& from, const QString& to);
  QString remove_module(const QString& id);
  QString remove_edge(const QString& from, const QString& to);
  QString rename_module(const QString& id, const QString& new_id);
  QString set_slo_ms(double slo_ms);
  QString set_rate_scale(const QString& id, double scale);

  // Where a module's box is in the scene (its centre), for tests and tooltips.
  std::optional<QPointF> module_center(const QString& id) const;
  QPointF output_port(const QString& id) const;
  QGraphicsView* view() const { return view_; }
  DagScene* scene() const { return scene_; }
  const QString& last_refusal() const { return refusal_; }

 Q_SIGNALS:
  void refused(const QString& why);
  void newApplicationRequested();  // its "New application…" button

 protected:
  void changeEvent(QEvent* event) override;  // a new palette (dark mode) draws it again

 private:
  void rebuild();
  QString apply(const std::function<Application(Application)>& edit, const QString& what);
  void delete_selection();
  void selection_changed();
  void apply_module_form();

  ProjectDocument* doc_;
  int app_ = -1;
  DagScene* scene_;
  QGraphicsView* view_;
  QLabel* title_;
  QDoubleSpinBox* slo_;
  QComboBox* models_;
  // The selected module's id and requests per application request.
  QLineEdit* module_id_;
  QDoubleSpinBox* rate_scale_;
  std::vector<QWidget*> app_controls_;  // shown only with an application to edit
  QWidget* module_label_ = nullptr;
  QString selected_;
  QString refusal_;
};

}  // namespace servescope::ui

#include "ui/dag_editor.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGraphicsEllipseItem>
#include <QGraphicsLineItem>
#include <QGraphicsPathItem>
#include <QGraphicsSceneMouseEvent>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QPainterPath>
#include <QPushButton>
#include <QShortcut>
#include <QVBoxLayout>
#include <cmath>

#include "model/app/application_editing.h"
#include "model/core/error.h"
#include "model/scenario/scenario_editing.h"
#include "ui/project_document.h"
#include "widgets/model_colors.h"

namespace servescope::ui {
namespace {

// What an item stands for, kept in the item's data so the scene needs no side tables.
enum ItemKey { kKind = 0, kId = 1, kFrom = 2, kTo = 3 };
const QString kModule = QStringLiteral("module");
const QString kOutPort = QStringLiteral("out");
const QString kEdge = QStringLiteral("edge");

constexpr double kBoxW = 160, kBoxH = 54, kColumn = 200, kRow = 120, kPort = 10;

QPointF box_origin(const LayoutSlot& s) {
  return {s.position * kColumn, s.layer * kRow};
}

// The module a scene point falls on (its box or anything on it), if any.
QString module_at(const QGraphicsScene& scene, QPointF at) {
  for (auto* item : scene.items(at)) {
    for (auto* i = item; i; i = i->parentItem())
      if (i->data(kKind).toString() == kModule) return i->data(kId).toString();
  }
  return {};
}

}  // namespace

void DagScene::mousePressEvent(QGraphicsSceneMouseEvent* event) {
  for (auto* item : items(event->scenePos()))
    if (item->data(kKind).toString() == kOutPort && event->button() == Qt::LeftButton) {
      drag_from_ = item->data(kId).toString();
      rubber_ = addLine(QLineF(item->sceneBoundingRect().center(), event->scenePos()), QPen(Qt::DashLine));
      event->accept();
      return;
    }
  QGraphicsScene::mousePressEvent(event);
}

void DagScene::mouseMoveEvent(QGraphicsSceneMouseEvent* event) {
  if (rubber_) {
    auto line = rubber_->line();
    line.setP2(event->scenePos());
    rubber_->setLine(line);
    event->accept();
    return;
  }
  QGraphicsScene::mouseMoveEvent(event);
}

void DagScene::mouseReleaseEvent(QGraphicsSceneMouseEvent* event) {
  if (!rubber_) {
    QGraphicsScene::mouseReleaseEvent(event);
    return;
  }
  delete rubber_;
  rubber_ = nullptr;
  const auto from = std::exchange(drag_from_, QString());
  const auto to = module_at(*this, event->scenePos());
  event->accept();
  if (!to.isEmpty()) Q_EMIT connectRequested(from, to);
}

DagEditor::~DagEditor() {
  scene_->disconnect(this);  // as ClusterEditor: the scene outlives this part of the object
}

DagEditor::DagEditor(ProjectDocument* document, QWidget* parent)
    : QWidget(parent), doc_(document), scene_(new DagScene(this)), view_(new QGraphicsView(scene_, this)) {
  setObjectName(QStringLiteral("dagEditor"));
  view_->setObjectName(QStringLiteral("dagView"));
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setDragMode(QGraphicsView::RubberBandDrag);
  title_ = new QLabel(this);
  models_ = new QComboBox(this);
  models_->setObjectName(QStringLiteral("dagModels"));
  auto* add = new QPushButton(tr("Add module"), this);
  auto* add_cpu = new QPushButton(tr("Add CPU step"), this);
  auto* layout_button = new QPushButton(tr("Lay out"), this);
  auto* new_app = new QPushButton(tr("New application…"), this);
  new_app->setObjectName(QStringLiteral("dagNewApplication"));
  new_app->setToolTip(tr("Add an application to the project and draw it here"));
  slo_ = new QDoubleSpinBox(this);
  slo_->setObjectName(QStringLiteral("dagSlo"));
  slo_->setRange(0.001, 1e7);
  slo_->setDecimals(3);
  slo_->setSuffix(tr(" ms SLO"));
  module_id_ = new QLineEdit(this);
  module_id_->setObjectName(QStringLiteral("dagModuleId"));
  module_id_->setPlaceholderText(tr("module"));
  rate_scale_ = new QDoubleSpinBox(this);
  rate_scale_->setObjectName(QStringLiteral("dagRateScale"));
  rate_scale_->setRange(0.001, 1000);
  rate_scale_->setDecimals(3);
  rate_scale_->setPrefix(QStringLiteral("×"));
  rate_scale_->setToolTip(tr("Requests this module receives per application request"));
  auto* apply_module = new QPushButton(tr("Apply"), this);
  connect(apply_module, &QPushButton::clicked, this, &DagEditor::apply_module_form);
  connect(module_id_, &QLineEdit::returnPressed, this, &DagEditor::apply_module_form);
  // Two rows, so the tab fits beside the docks on a 1280-pixel screen: the application (its SLO,
  // adding modules); the selected module's name and rate, the layout, a new application.
  title_->setWordWrap(true);
  auto* bar = new QHBoxLayout;
  bar->addWidget(title_, 1);
  bar->addWidget(slo_);
  bar->addWidget(models_);
  bar->addWidget(add);
  bar->addWidget(add_cpu);
  auto* module_bar = new QHBoxLayout;
  module_bar->addWidget(new QLabel(tr("Selected module"), this));
  module_bar->addWidget(module_id_);
  module_bar->addWidget(rate_scale_);
  module_bar->addWidget(apply_module);
  module_bar->addStretch(1);
  module_bar->addWidget(layout_button);
  module_bar->addWidget(new_app);
  auto* box = new QVBoxLayout(this);
  box->addLayout(bar);
  box->addLayout(module_bar);
  box->addWidget(view_, 1);
  // Shown only with an application to edit: without one they would edit nothing.
  app_controls_ = {slo_, models_, add, add_cpu, module_id_, rate_scale_, apply_module, layout_button};
  module_label_ = module_bar->itemAt(0)->widget();

  connect(add, &QPushButton::clicked, this, [this] { add_module(models_->currentText()); });
  connect(add_cpu, &QPushButton::clicked, this, [this] { add_cpu_step(1.0); });
  connect(layout_button, &QPushButton::clicked, this, &DagEditor::rebuild);
  connect(new_app, &QPushButton::clicked, this, &DagEditor::newApplicationRequested);
  connect(slo_, &QDoubleSpinBox::editingFinished, this, [this] { set_slo_ms(slo_->value()); });
  connect(scene_, &DagScene::connectRequested, this,
          [this](const QString& from, const QString& to) { connect_modules(from, to); });
  auto* del = new QShortcut(QKeySequence::Delete, view_);
  connect(del, &QShortcut::activated, this, &DagEditor::delete_selection);
  connect(scene_, &QGraphicsScene::selectionChanged, this, &DagEditor::selection_changed);
  connect(doc_, &ProjectDocument::changed, this, &DagEditor::rebuild);
  connect(doc_, &ProjectDocument::projectReset, this, [this] { show_application(-1); });
  rebuild();
}

void DagEditor::show_application(int index) {
  app_ = index;
  rebuild();
}

QString DagEditor::apply(const std::function<Application(Application)>& edit, const QString& what) {
  const auto* p = doc_->project();
  QString why;
  if (!p || app_ < 0 || static_cast<std::size_t>(app_) >= p->scenario.applications.size()) {
    why =
        tr("no application is open in the editor: pick one in the project tree, or make one with New "
           "application");
  } else {
    try {
      const auto& current = p->scenario.applications[static_cast<std::size_t>(app_)];
      auto edited = edit(current);
      // An SLO nobody set follows the DAG: the one derived from its modules before the edit
      // becomes the one derived after it (model/scenario/scenario_editing.h).
      if (edited.slo == current.slo && current.slo == derived_slo(current, p->scenario.profiles))
        edited.slo = derived_slo(edited, p->scenario.profiles);
      why = doc_->set_application(static_cast<std::size_t>(app_), std::move(edited), what);
    } catch (const Error& e) {
      why = QString::fromStdString(e.what());
    }
  }
  refusal_ = why;
  if (!why.isEmpty()) Q_EMIT refused(why);
  return why;
}

QString DagEditor::add_module(const QString& model) {
  if (model.isEmpty())
    return apply([](const Application&) -> Application { throw QueryError("pick a model first"); }, {});
  const auto m = model.toStdString();
  return apply(
      [&](Application a) {
        auto module = AppModule{unique_module_id(a, m), ModuleKind::Dnn, m, {}, 1};
        return with_module(std::move(a), std::move(module));
      },
      tr("Add module running %1").arg(model));
}

QString DagEditor::add_cpu_step(double latency_ms) {
  return apply(
      [&](Application a) {
        auto module = AppModule{unique_module_id(a, "cpu"), ModuleKind::Cpu, {}, Duration::from_ms(latency_ms), 1};
        return with_module(std::move(a), std::move(module));
      },
      tr("Add CPU step"));
}

QString DagEditor::connect_modules(const QString& from, const QString& to) {
  return apply([&](Application a) { return with_edge(std::move(a), from.toStdString(), to.toStdString()); },
               tr("Connect %1 → %2").arg(from, to));
}

QString DagEditor::remove_module(const QString& id) {
  return apply([&](Application a) { return without_module(std::move(a), id.toStdString()); },
               tr("Remove module %1").arg(id));
}

QString DagEditor::remove_edge(const QString& from, const QString& to) {
  return apply([&](Application a) { return without_edge(std::move(a), from.toStdString(), to.toStdString()); },
               tr("Disconnect %1 → %2").arg(from, to));
}

QString DagEditor::rename_module(const QString& id, const QString& new_id) {
  return apply([&](Application a) { return with_renamed_module(std::move(a), id.toStdString(), new_id.toStdString()); },
               tr("Rename module %1 to %2").arg(id, new_id));
}

QString DagEditor::set_slo_ms(double slo_ms) {
  return apply(
      [&](Application a) {
        if (!(slo_ms > 0)) throw QueryError("the SLO must be positive");
        a.slo = Duration::from_ms(slo_ms);
        return a;
      },
      tr("Set SLO to %1 ms").arg(slo_ms));
}

QString DagEditor::set_rate_scale(const QString& id, double scale) {
  return apply(
      [&](Application a) {
        const auto it = std::ranges::find(a.modules, id.toStdString(), &AppModule::id);
        if (it == a.modules.end()) throw QueryError("no module '" + id.toStdString() + "'");
        if (it->kind != ModuleKind::Dnn) throw QueryError("a CPU step runs once per request");
        if (!(scale > 0)) throw QueryError("requests per application request must be positive");
        it->rate_scale = scale;
        return a;
      },
      tr("Set %1 to %2 requests per application request").arg(id).arg(scale));
}

void DagEditor::selection_changed() {
  selected_.clear();
  for (auto* item : scene_->selectedItems())
    if (item->data(kKind).toString() == kModule) selected_ = item->data(kId).toString();
  const auto* p = doc_->project();
  const AppModule* module = nullptr;
  if (p && !selected_.isEmpty() && app_ >= 0 && static_cast<std::size_t>(app_) < p->scenario.applications.size())
    module = p->scenario.applications[static_cast<std::size_t>(app_)].find(selected_.toStdString());
  module_id_->setEnabled(module != nullptr);
  rate_scale_->setEnabled(module != nullptr && module->kind == ModuleKind::Dnn);
  module_id_->setText(module ? selected_ : QString());
  const QSignalBlocker block(rate_scale_);
  rate_scale_->setValue(module ? module->rate_scale : 1.0);
}

void DagEditor::apply_module_form() {
  const auto* p = doc_->project();
  if (selected_.isEmpty() || !p || app_ < 0) return;
  const auto* module = p->scenario.applications[static_cast<std::size_t>(app_)].find(selected_.toStdString());
  if (!module) return;
  const QString id = selected_;
  const QString new_id = module_id_->text().trimmed();
  if (module->kind == ModuleKind::Dnn && std::abs(module->rate_scale - rate_scale_->value()) > 1e-12 &&
      !set_rate_scale(id, rate_scale_->value()).isEmpty())
    return;
  if (new_id != id) rename_module(id, new_id);
}

void DagEditor::delete_selection() {
  // Collect first: every edit rebuilds the scene.
  std::vector<std::pair<QString, QString>> edges;
  std::vector<QString> modules;
  for (auto* item : scene_->selectedItems()) {
    const auto kind = item->data(kKind).toString();
    if (kind == kModule) modules.push_back(item->data(kId).toString());
    if (kind == kEdge) edges.emplace_back(item->data(kFrom).toString(), item->data(kTo).toString());
  }
  for (const auto& [from, to] : edges)
    remove_edge(from, to);
  for (const auto& id : modules)
    remove_module(id);
}

std::optional<QPointF> DagEditor::module_center(const QString& id) const {
  for (auto* item : scene_->items())
    if (item->data(kKind).toString() == kModule && item->data(kId).toString() == id)
      return item->sceneBoundingRect().center();
  return std::nullopt;
}

QPointF DagEditor::output_port(const QString& id) const {
  for (auto* item : scene_->items())
    if (item->data(kKind).toString() == kOutPort && item->data(kId).toString() == id)
      return item->sceneBoundingRect().center();
  return {};
}

void DagEditor::rebuild() {
  scene_->clear();
  const auto* p = doc_->project();
  models_->clear();
  if (p)
    for (const auto& m : p->scenario.profiles.models)
      models_->addItem(QString::fromStdString(m.name));
  const bool editing = p && app_ >= 0 && static_cast<std::size_t>(app_) < p->scenario.applications.size();
  for (auto* w : app_controls_)
    w->setVisible(editing);
  module_label_->setVisible(editing);
  if (!editing) {
    const auto apps = p ? static_cast<int>(p->scenario.applications.size()) : 0;
    title_->setText(apps == 0 ? tr("<b>No applications yet.</b> Create one with New application…")
                              : tr("<b>Pick an application</b> under Applications in the project tree (%n here), "
                                   "or create one with New application…",
                                   nullptr, apps));
    auto* hint =
        scene_->addText(tr("An application is a DAG of models (and CPU steps) with an end-to-end SLO.\n"
                           "Drag from a module's output port onto another module to connect them."));
    hint->setDefaultTextColor(palette().color(QPalette::PlaceholderText));
    setEnabled(p != nullptr);
    return;
  }
  setEnabled(true);
  const auto& app = p->scenario.applications[static_cast<std::size_t>(app_)];
  title_->setText(tr("<b>%1</b>: %2 modules, %3 edges")
                      .arg(QString::fromStdString(app.name))
                      .arg(app.modules.size())
                      .arg(app.edges.size()));
  {
    const QSignalBlocker block(slo_);
    slo_->setValue(app.slo.to_ms());
  }
  std::vector<LayoutSlot> layout;
  try {
    layout = layered_layout(app);
  } catch (const Error&) {
    return;  // the document never holds a cyclic application; nothing sensible to draw
  }
  const auto pal = palette();
  std::vector<QPointF> origin(app.modules.size());
  for (std::size_t m = 0; m < app.modules.size(); ++m) {
    const auto& mod = app.modules[m];
    origin[m] = box_origin(layout[m]);
    QPainterPath shape;
    shape.addRoundedRect(QRectF(0, 0, kBoxW, kBoxH), mod.kind == ModuleKind::Cpu ? 2 : 10,
                         mod.kind == ModuleKind::Cpu ? 2 : 10);
    auto* box = scene_->addPath(
        shape, QPen(pal.color(QPalette::WindowText)),
        widgets::color_for_name(QString::fromStdString(mod.kind == ModuleKind::Dnn ? mod.model : mod.id), pal));
    box->setPos(origin[m]);
    box->setFlag(QGraphicsItem::ItemIsSelectable);
    box->setData(kKind, kModule);
    box->setData(kId, QString::fromStdString(mod.id));
    auto detail =
        mod.kind == ModuleKind::Dnn ? QString::fromStdString(mod.model) : tr("CPU, %1 ms").arg(mod.cpu_latency.to_ms());
    if (mod.kind == ModuleKind::Dnn && mod.rate_scale != 1) detail += QStringLiteral("  ×%1").arg(mod.rate_scale);
    box->setToolTip(QStringLiteral("%1\n%2").arg(QString::fromStdString(mod.id), detail));
    auto* name = new QGraphicsSimpleTextItem(QString::fromStdString(mod.id), box);
    name->setPos(8, 6);
    auto* sub = new QGraphicsSimpleTextItem(detail, box);
    sub->setPos(8, 28);
    sub->setBrush(pal.color(QPalette::PlaceholderText));
    auto* in = new QGraphicsEllipseItem(kBoxW / 2 - kPort / 2, -kPort / 2, kPort, kPort, box);
    in->setBrush(pal.color(QPalette::Base));
    auto* out = new QGraphicsEllipseItem(kBoxW / 2 - kPort / 2, kBoxH - kPort / 2, kPort, kPort, box);
    out->setBrush(pal.color(QPalette::Highlight));
    out->setData(kKind, kOutPort);
    out->setData(kId, QString::fromStdString(mod.id));
    out->setToolTip(tr("Drag onto another module to connect"));
    out->setCursor(Qt::CrossCursor);
  }
  for (const auto& e : app.edges) {
    const auto a =
        static_cast<std::size_t>(std::ranges::find(app.modules, e.from, &AppModule::id) - app.modules.begin());
    const auto b = static_cast<std::size_t>(std::ranges::find(app.modules, e.to, &AppModule::id) - app.modules.begin());
    const QPointF start = origin[a] + QPointF(kBoxW / 2, kBoxH);
    const QPointF end = origin[b] + QPointF(kBoxW / 2, 0);
    QPainterPath path(start);
    const double bend = std::max(30.0, (end.y() - start.y()) / 2);
    path.cubicTo(start + QPointF(0, bend), end - QPointF(0, bend), end);
    // Arrowhead at the child's input port.
    path.moveTo(end);
    path.lineTo(end + QPointF(-5, -9));
    path.moveTo(end);
    path.lineTo(end + QPointF(5, -9));
    auto* edge = scene_->addPath(path, QPen(pal.color(QPalette::WindowText), 1.5));
    edge->setFlag(QGraphicsItem::ItemIsSelectable);
    edge->setZValue(-1);
    edge->setData(kKind, kEdge);
    edge->setData(kFrom, QString::fromStdString(e.from));
    edge->setData(kTo, QString::fromStdString(e.to));
  }
  scene_->setSceneRect(scene_->itemsBoundingRect().adjusted(-40, -40, 40, 40));
}

void DagEditor::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  // Its scene or charts take their colours when built.
  if (event->type() == QEvent::PaletteChange) rebuild();
}

}  // namespace servescope::ui

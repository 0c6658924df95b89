#include "ui/cluster_editor.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSceneMouseEvent>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cmath>
#include <map>

#include "engine/analysis/saved_artifacts.h"
#include "engine/planning/plan_placement.h"
#include "model/core/error.h"
#include "model/core/text.h"
#include "model/io/document.h"
#include "resources/builtin_resources.h"
#include "ui/project_document.h"
#include "widgets/model_colors.h"

namespace servescope::ui {
namespace {

constexpr double kServerBoxW = 260, kGap = 24, kChip = 20, kChipGap = 4, kTitleH = 30, kFooterH = 26;
constexpr int kColumns = 4;
constexpr int kChipsPerRow = 10;
constexpr int kMaxChips = 80;  // per node entry; a 64-server entry says how many more it has
constexpr int kNodeKey = 0;    // item data: the node's index

int chips_shown(const Node& n) {
  return std::min(kMaxChips, n.gpu_count * n.count);
}
double box_height(const Node& n) {
  const int rows = (chips_shown(n) + kChipsPerRow - 1) / kChipsPerRow;
  return kTitleH + rows * (kChip + kChipGap) + kFooterH;
}

// A node's box: dragging it moves the node. The move is reported after the mouse is released and
// queued, because the edit rebuilds the scene, which deletes this item.
class NodeBox : public QGraphicsRectItem {
 public:
  NodeBox(const QRectF& rect, std::function<void(QPointF)> moved) : QGraphicsRectItem(rect), moved_(std::move(moved)) {
    setFlags(ItemIsSelectable | ItemIsMovable);
  }

 protected:
  void mousePressEvent(QGraphicsSceneMouseEvent* event) override {
    pressed_at_ = pos();
    QGraphicsRectItem::mousePressEvent(event);
  }
  void mouseReleaseEvent(QGraphicsSceneMouseEvent* event) override {
    QGraphicsRectItem::mouseReleaseEvent(event);
    if (pos() != pressed_at_) moved_(pos());
  }

 private:
  std::function<void(QPointF)> moved_;
  QPointF pressed_at_;
};

// Where each entry's box goes: where the user put it, else in a grid whose rows are as tall as
// their tallest box.
std::vector<QPointF> box_positions(const Cluster& c) {
  std::vector<QPointF> at(c.nodes.size());
  double row_y = 0, row_h = 0;
  for (std::size_t i = 0; i < c.nodes.size(); ++i) {
    if (i % kColumns == 0 && i > 0) {
      row_y += row_h + kGap;
      row_h = 0;
    }
    row_h = std::max(row_h, box_height(c.nodes[i]));
    at[i] = c.nodes[i].position ? QPointF(c.nodes[i].position->x, c.nodes[i].position->y)
                                : QPointF(static_cast<double>(i % kColumns) * (kServerBoxW + kGap), row_y);
  }
  return at;
}

// One chip per GPU of the entry's servers: the type's colour, or the plan's MPS shares as slices
// coloured by model (free capacity left in the base colour).
// Returns the slices of plan part `picked` it outlined.
std::vector<QGraphicsItem*> add_gpu_chips(QGraphicsRectItem* box, const Node& n,
                                          const std::vector<engine::PlacedGpu>* gpus, const QPalette& pal,
                                          const std::string& picked) {
  std::vector<QGraphicsItem*> outlined;
  const QPen outline(pal.color(QPalette::Mid));
  const auto type_colour = widgets::color_for_name(QString::fromStdString(n.gpu), pal);
  const int shown = chips_shown(n);
  for (int g = 0; g < shown; ++g) {
    const int column = g % kChipsPerRow, row = g / kChipsPerRow;
    const double x = 8 + column * (kChip + kChipGap);
    const double y = kTitleH + row * (kChip + kChipGap);
    auto* chip = new QGraphicsRectItem(x, y, kChip, kChip, box);
    chip->setPen(outline);
    if (!gpus || static_cast<std::size_t>(g) >= gpus->size()) {
      chip->setBrush(type_colour);
      continue;
    }
    const auto& placed_gpu = (*gpus)[static_cast<std::size_t>(g)];
    QString tip = QString::fromStdString(placed_gpu.name);
    double from = 0;
    for (const auto& share : placed_gpu.shares) {
      const double w = kChip * share.share.fraction();
      auto* slice = new QGraphicsRectItem(x + from, y, w, kChip, box);
      slice->setPen(Qt::NoPen);
      slice->setBrush(widgets::color_for_name(QString::fromStdString(share.model), pal));
      if (!picked.empty() && share.item == picked) {
        slice->setPen(QPen(pal.color(QPalette::Highlight), 2.5));
        slice->setZValue(2);  // over the chip's outline
        outlined.push_back(slice);
      }
      from += w;
      tip += QStringLiteral("\n%1 on %2: %3")
                 .arg(QString::fromStdString(share.model), QString::fromStdString(share.share.to_string()),
                      QString::fromStdString(share.detail));
    }
    if (placed_gpu.shares.empty()) tip += QObject::tr("\nidle in this plan");
    chip->setToolTip(tip);
    chip->setZValue(1);  // the outline over the slices
    chip->setBrush(Qt::NoBrush);
  }
  return outlined;
}

// The plan's models, under the boxes.
void add_legend(QGraphicsScene* scene, const std::vector<std::string>& legend, const QPalette& pal) {
  const QPen outline(pal.color(QPalette::Mid));
  double legend_x = 0;
  const double legend_y = scene->itemsBoundingRect().bottom() + kGap;
  for (const auto& model : legend) {
    scene->addRect(QRectF(legend_x, legend_y, kChip, kChip), outline,
                   widgets::color_for_name(QString::fromStdString(model), pal));
    auto* label = scene->addSimpleText(QString::fromStdString(model));
    label->setPos(legend_x + kChip + 6, legend_y);
    legend_x += kChip + 18 + label->boundingRect().width();
  }
}

}  // namespace

void ZoomingView::wheelEvent(QWheelEvent* event) {
  if (!(event->modifiers() & Qt::ControlModifier)) {
    QGraphicsView::wheelEvent(event);
    return;
  }
  // Zoom around the cursor: the scene point under it stays put.
  const double factor = std::pow(1.0015, event->angleDelta().y());
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  scale(factor, factor);
  event->accept();
}

ClusterEditor::ClusterEditor(ProjectDocument* document, QWidget* parent)
    : QWidget(parent), doc_(document), scene_(new QGraphicsScene(this)), view_(new ZoomingView(scene_, this)) {
  setObjectName(QStringLiteral("clusterEditor"));
  view_->setObjectName(QStringLiteral("clusterView"));
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setDragMode(QGraphicsView::ScrollHandDrag);
  templates_ = new QComboBox(this);
  templates_->addItem(tr("Template…"), QString());
  for (const auto& [resource, title] : templates())
    templates_->addItem(title, resource);
  auto* add = new QPushButton(tr("Add node"), this);
  add->setObjectName(QStringLiteral("addNode"));
  add_type_ = new QComboBox(this);
  add_type_->setObjectName(QStringLiteral("addNodeGpu"));
  add_type_->setToolTip(tr("The GPU type of the node Add node makes"));
  auto* duplicate = new QPushButton(tr("Duplicate"), this);
  auto* remove = new QPushButton(tr("Delete"), this);
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  shares_ = new QComboBox(this);
  shares_->setObjectName(QStringLiteral("chipShares"));
  shares_->setToolTip(tr("Colour the GPU chips by type, or show the MPS shares a plan puts on each GPU"));
  name_ = new QLineEdit(this);
  name_->setObjectName(QStringLiteral("nodeName"));
  gpu_ = new QComboBox(this);
  gpu_->setObjectName(QStringLiteral("nodeGpu"));
  gpus_ = new QSpinBox(this);
  gpus_->setRange(1, 64);
  servers_ = new QSpinBox(this);
  servers_->setRange(1, 100000);
  up_ = new QDoubleSpinBox(this);
  down_ = new QDoubleSpinBox(this);
  for (auto* nic : {up_, down_}) {
    nic->setRange(0.001, 1e5);
    nic->setSuffix(tr(" Gbps"));
  }
  auto* apply = new QPushButton(tr("Apply"), this);
  apply_ = apply;
  auto* form = new QFormLayout;
  form->addRow(tr("Name"), name_);
  form->addRow(tr("GPU type"), gpu_);
  form->addRow(tr("GPUs per server"), gpus_);
  form->addRow(tr("Servers"), servers_);
  form->addRow(tr("NIC up"), up_);
  form->addRow(tr("NIC down"), down_);
  form->addRow(apply);
  auto* bar = new QHBoxLayout;
  bar->addWidget(summary_, 1);
  bar->addWidget(shares_);
  bar->addWidget(templates_);
  bar->addWidget(add);
  bar->addWidget(add_type_);
  bar->addWidget(duplicate);
  bar->addWidget(remove);
  auto* body = new QHBoxLayout;
  body->addWidget(view_, 1);
  body->addLayout(form);
  auto* box = new QVBoxLayout(this);
  box->addLayout(bar);
  box->addLayout(body, 1);

  connect(shares_, &QComboBox::activated, this, [this] {
    picked_item_.clear();
    rebuild();
  });
  connect(templates_, &QComboBox::activated, this, [this](int i) {
    const auto resource = templates_->itemData(i).toString();
    if (!resource.isEmpty()) apply_template(resource);
    templates_->setCurrentIndex(0);
  });
  connect(add, &QPushButton::clicked, this, [this] { add_node(add_type_->currentText()); });
  connect(duplicate, &QPushButton::clicked, this, [this] { duplicate_node(selected_); });
  connect(remove, &QPushButton::clicked, this, [this] { remove_node(selected_); });
  connect(apply, &QPushButton::clicked, this, &ClusterEditor::apply_form);
  auto* dup_key = new QShortcut(QKeySequence(tr("Ctrl+D")), view_);
  connect(dup_key, &QShortcut::activated, this, [this] { duplicate_node(selected_); });
  auto* del_key = new QShortcut(QKeySequence::Delete, view_);
  connect(del_key, &QShortcut::activated, this, [this] { remove_node(selected_); });
  connect(scene_, &QGraphicsScene::selectionChanged, this, [this] {
    const auto items = scene_->selectedItems();
    if (!items.isEmpty()) {
      selected_ = items.front()->data(kNodeKey).toInt();
      fill_form();
    }
  });
  connect(doc_, &ProjectDocument::changed, this, &ClusterEditor::rebuild);
  connect(doc_, &ProjectDocument::projectReset, this, [this] {
    selected_ = -1;
    rebuild();
  });
  rebuild();
}

ClusterEditor::~ClusterEditor() {
  // QWidget's destructor deletes the scene after this part of the object is gone; clearing a
  // selection there must not call back into it.
  scene_->disconnect(this);
}

std::vector<std::pair<QString, QString>> ClusterEditor::templates() {
  std::vector<std::pair<QString, QString>> out;
  for (const auto& r : resources::all_builtin_resources()) {
    const auto name = QString::fromUtf8(r.name.data(), static_cast<qsizetype>(r.name.size()));
    if (!name.startsWith(QStringLiteral("clusters/"))) continue;
    QString title = name.mid(9);
    title.chop(5);  // ".json"
    out.emplace_back(name, title.toUpper());
  }
  return out;
}

QString ClusterEditor::edit(const std::function<Cluster(Cluster)>& change, const QString& what) {
  QString why;
  if (!doc_->project()) {
    why = tr("no project is open");
  } else {
    try {
      why = doc_->set_cluster(change(doc_->project()->scenario.cluster), what);
    } catch (const Error& e) {
      why = QString::fromStdString(e.what());
    }
  }
  refusal_ = why;
  if (!why.isEmpty()) Q_EMIT refused(why);
  return why;
}

QString ClusterEditor::apply_template(const QString& resource) {
  return edit(
      [&](const Cluster&) {
        auto doc = load_document(std::string(kBuiltinPrefix) + resource.toStdString());
        if (!std::holds_alternative<Cluster>(doc.content))
          throw QueryError(resource.toStdString() + " is not a cluster");
        return std::get<Cluster>(std::move(doc.content));
      },
      tr("Use cluster template %1").arg(resource));
}

namespace {

std::function<bool(const std::string&)> node_named(const Cluster& c) {
  return [&c](const std::string& name) {
    return std::ranges::any_of(c.nodes, [&](const Node& x) { return x.name == name; });
  };
}

}  // namespace

QString ClusterEditor::add_node(const QString& gpu) {
  auto why = edit(
      [&](Cluster c) {
        Node n;
        n.gpu = gpu.toStdString();
        std::string base = n.gpu.empty() ? "node" : n.gpu;
        for (auto& ch : base)
          ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        n.name = unique_name(base, node_named(c), "-");
        c.nodes.push_back(n);
        return c;
      },
      tr("Add %1 node").arg(gpu));
  if (why.isEmpty()) select_node(static_cast<int>(doc_->project()->scenario.cluster.nodes.size()) - 1);
  return why;
}

QString ClusterEditor::duplicate_node(int index) {
  auto why = edit(
      [&](Cluster c) {
        if (index < 0 || static_cast<std::size_t>(index) >= c.nodes.size()) throw QueryError("select a node first");
        Node n = c.nodes[static_cast<std::size_t>(index)];
        n.name = unique_name(n.name, node_named(c), "-");
        if (n.position) n.position = CanvasPoint{n.position->x + kGap, n.position->y + kGap};  // not on top
        c.nodes.insert(c.nodes.begin() + index + 1, n);
        return c;
      },
      tr("Duplicate node"));
  if (why.isEmpty()) select_node(index + 1);
  return why;
}

void ClusterEditor::select_node(int index) {
  selected_ = index;
  rebuild();  // its box selected, the form filled
}

QString ClusterEditor::remove_node(int index) {
  auto why = edit(
      [&](Cluster c) {
        if (index < 0 || static_cast<std::size_t>(index) >= c.nodes.size()) throw QueryError("select a node first");
        c.nodes.erase(c.nodes.begin() + index);
        return c;
      },
      tr("Delete node"));
  if (why.isEmpty()) selected_ = -1;
  return why;
}

QString ClusterEditor::set_node(int index, const Node& node) {
  return edit(
      [&](Cluster c) {
        if (index < 0 || static_cast<std::size_t>(index) >= c.nodes.size()) throw QueryError("select a node first");
        c.nodes[static_cast<std::size_t>(index)] = node;
        return c;
      },
      tr("Edit node %1").arg(QString::fromStdString(node.name)));
}

QString ClusterEditor::move_node(int index, QPointF to) {
  return edit(
      [&](Cluster c) {
        if (index < 0 || static_cast<std::size_t>(index) >= c.nodes.size()) throw QueryError("no such node");
        if (std::abs(to.x()) > kMaxCanvasCoordinate || std::abs(to.y()) > kMaxCanvasCoordinate)
          throw QueryError("that is too far off the canvas");
        c.nodes[static_cast<std::size_t>(index)].position = CanvasPoint{to.x(), to.y()};
        return c;
      },
      tr("Move node %1")
          .arg(doc_->project() && index >= 0 &&
                       static_cast<std::size_t>(index) < doc_->project()->scenario.cluster.nodes.size()
                   ? QString::fromStdString(
                         doc_->project()->scenario.cluster.nodes[static_cast<std::size_t>(index)].name)
                   : QString()));
}

void ClusterEditor::fill_form() {
  const auto* p = doc_->project();
  const bool ok = p && selected_ >= 0 && static_cast<std::size_t>(selected_) < p->scenario.cluster.nodes.size();
  for (QWidget* w : std::initializer_list<QWidget*>{name_, gpu_, gpus_, servers_, up_, down_, apply_})
    w->setEnabled(ok);
  if (!ok) {  // no node's figures: an empty form, not the last node's or a default type
    name_->clear();
    gpu_->setCurrentIndex(-1);
    return;
  }
  const auto& n = p->scenario.cluster.nodes[static_cast<std::size_t>(selected_)];
  name_->setText(QString::fromStdString(n.name));
  gpu_->setCurrentText(QString::fromStdString(n.gpu));
  gpus_->setValue(n.gpu_count);
  servers_->setValue(n.count);
  up_->setValue(n.nic_up_gbps);
  down_->setValue(n.nic_down_gbps);
}

void ClusterEditor::apply_form() {
  const auto* p = doc_->project();
  if (!p || selected_ < 0 || static_cast<std::size_t>(selected_) >= p->scenario.cluster.nodes.size()) return;
  Node n = p->scenario.cluster.nodes[static_cast<std::size_t>(selected_)];  // keeps its position
  n.name = name_->text().trimmed().toStdString();
  n.gpu = gpu_->currentText().toStdString();
  n.gpu_count = gpus_->value();
  n.count = servers_->value();
  n.nic_up_gbps = up_->value();
  n.nic_down_gbps = down_->value();
  set_node(selected_, n);
}

void ClusterEditor::refresh_share_choices() {
  const auto* p = doc_->project();
  const auto current = shares_->currentText();
  shares_->clear();
  shares_->addItem(tr("Chips by GPU type"));
  if (p)
    for (const auto& plan : p->plans) {
      if (engine::places_on_the_cluster(engine::artifact_kind(plan)))
        shares_->addItem(tr("Shares of %1").arg(QString::fromStdString(plan.name)), QString::fromStdString(plan.name));
    }
  shares_->setCurrentIndex(std::max(0, shares_->findText(current)));
}

bool ClusterEditor::show_plan_shares(const QString& plan) {
  refresh_share_choices();
  const int i = plan.isEmpty() ? 0 : shares_->findData(plan);
  if (i < 0) return false;
  picked_item_.clear();
  shares_->setCurrentIndex(i);
  rebuild();
  return true;
}

int ClusterEditor::pick_plan_item(const QString& plan, const QString& item) {
  if (!show_plan_shares(plan)) return 0;
  picked_item_ = item.toStdString();
  rebuild();
  return picked_shares_;
}

QString ClusterEditor::place_chosen_plan(std::map<std::size_t, std::vector<engine::PlacedGpu>>& placed,
                                         std::vector<std::string>& legend) {
  const auto* p = doc_->project();
  const auto plan_name = shares_->currentData().toString();
  if (!p || plan_name.isEmpty()) return {};
  const auto it = std::ranges::find(p->plans, plan_name.toStdString(), &SavedArtifact::name);
  try {
    if (it == p->plans.end()) throw QueryError("no such plan");
    for (auto& g : engine::place_plan(p->scenario, it->body).gpus) {
      for (const auto& share : g.shares)
        if (std::ranges::find(legend, share.model) == legend.end()) legend.push_back(share.model);
      shared_gpus_ += g.shares.empty() ? 0 : 1;
      placed[g.node].push_back(std::move(g));
    }
    return tr("; %1 uses %2 of them").arg(plan_name).arg(shared_gpus_);
  } catch (const Error& e) {
    return tr("; <b>%1 does not fit this cluster</b>: %2")
        .arg(plan_name.toHtmlEscaped(), QString::fromStdString(e.what()).toHtmlEscaped());
  }
}

void ClusterEditor::add_node_box(int index, const Node& n, QPointF at, const std::vector<engine::PlacedGpu>* gpus) {
  const auto pal = palette();
  auto* box = new NodeBox(QRectF(0, 0, kServerBoxW, box_height(n)), [this, index](QPointF to) {
    QMetaObject::invokeMethod(
        this, [this, index, to] { move_node(index, to); }, Qt::QueuedConnection);
  });
  scene_->addItem(box);
  box->setPen(QPen(pal.color(QPalette::WindowText)));
  box->setBrush(pal.color(QPalette::Base));
  box->setPos(at);
  box->setData(kNodeKey, index);
  box->setToolTip(tr("%1: %2 server(s) × %3 %4, NIC %5 / %6 Gbps")
                      .arg(QString::fromStdString(n.name))
                      .arg(n.count)
                      .arg(n.gpu_count)
                      .arg(QString::fromStdString(n.gpu))
                      .arg(n.nic_up_gbps)
                      .arg(n.nic_down_gbps));
  auto* title = new QGraphicsSimpleTextItem(
      n.count > 1 ? tr("%1  ×%2").arg(QString::fromStdString(n.name)).arg(n.count) : QString::fromStdString(n.name),
      box);
  title->setPos(8, 6);
  const auto outlined = add_gpu_chips(box, n, gpus, pal, picked_item_);
  if (!outlined.empty() && picked_shares_ == 0) view_->ensureVisible(outlined.front(), 40, 40);
  picked_shares_ += static_cast<int>(outlined.size());
  const int shown = chips_shown(n);
  auto* detail = new QGraphicsSimpleTextItem(
      n.gpu_count * n.count > shown
          ? tr("%1 · ↑%2 ↓%3 Gbps · +%4 GPUs")
                .arg(QString::fromStdString(n.gpu))
                .arg(n.nic_up_gbps)
                .arg(n.nic_down_gbps)
                .arg(n.gpu_count * n.count - shown)
          : tr("%1 · ↑%2 ↓%3 Gbps").arg(QString::fromStdString(n.gpu)).arg(n.nic_up_gbps).arg(n.nic_down_gbps),
      box);
  detail->setPos(8, box_height(n) - 22);
  if (index == selected_) box->setSelected(true);
}

void ClusterEditor::rebuild() {
  scene_->clear();
  refresh_share_choices();
  shared_gpus_ = 0;
  picked_shares_ = 0;
  const auto* p = doc_->project();
  const auto add_type = add_type_->currentText();
  gpu_->clear();
  add_type_->clear();
  if (!p) {
    summary_->setText(tr("No project"));
    fill_form();
    return;
  }
  const auto catalog = p->scenario.catalog();  // a value: its span must not outlive it
  for (const auto& spec : catalog.gpus()) {
    gpu_->addItem(QString::fromStdString(spec.id));
    add_type_->addItem(QString::fromStdString(spec.id));
  }
  // New nodes keep the type last chosen for them; the first time, the cluster's first node's.
  const auto first = p->scenario.cluster.nodes.empty() ? QStringLiteral("A100")
                                                       : QString::fromStdString(p->scenario.cluster.nodes.front().gpu);
  add_type_->setCurrentText(add_type.isEmpty() ? first : add_type);
  const auto& c = p->scenario.cluster;
  // The chosen plan placed as the simulator places it: per node entry, its GPUs in order.
  std::map<std::size_t, std::vector<engine::PlacedGpu>> placed;
  std::vector<std::string> legend;
  const auto placement = place_chosen_plan(placed, legend);
  summary_->setText(tr("<b>%1</b>: %2 servers, %3 GPUs")
                        .arg(QString::fromStdString(c.name))
                        .arg(c.total_servers())
                        .arg(c.total_gpus()) +
                    placement);
  const auto at = box_positions(c);
  for (std::size_t i = 0; i < c.nodes.size(); ++i)
    add_node_box(static_cast<int>(i), c.nodes[i], at[i], placed.contains(i) ? &placed.at(i) : nullptr);
  add_legend(scene_, legend, palette());
  fill_form();
}

void ClusterEditor::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  // Its scene or charts take their colours when built.
  if (event->type() == QEvent::PaletteChange) rebuild();
}

}  // namespace servescope::ui

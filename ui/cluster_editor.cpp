#include "ui/cluster_editor.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
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

#include "model/core/error.h"
#include "model/io/document.h"
#include "resources/builtin_resources.h"
#include "ui/project_document.h"
#include "widgets/model_colors.h"

namespace servescope::ui {
namespace {

constexpr double kBoxW = 230, kBoxH = 118, kGap = 24, kChip = 16;
constexpr int kColumns = 4;
constexpr int kNodeKey = 0;  // item data: the node's index

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
  auto* duplicate = new QPushButton(tr("Duplicate"), this);
  auto* remove = new QPushButton(tr("Delete"), this);
  summary_ = new QLabel(this);
  name_ = new QLineEdit(this);
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
  bar->addWidget(templates_);
  bar->addWidget(add);
  bar->addWidget(duplicate);
  bar->addWidget(remove);
  auto* body = new QHBoxLayout;
  body->addWidget(view_, 1);
  body->addLayout(form);
  auto* box = new QVBoxLayout(this);
  box->addLayout(bar);
  box->addLayout(body, 1);

  connect(templates_, &QComboBox::activated, this, [this](int i) {
    const auto resource = templates_->itemData(i).toString();
    if (!resource.isEmpty()) apply_template(resource);
    templates_->setCurrentIndex(0);
  });
  connect(add, &QPushButton::clicked, this, [this] { add_node(gpu_->currentText()); });
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
      [&](Cluster) {
        auto doc = load_document(std::string(kBuiltinPrefix) + resource.toStdString());
        if (!std::holds_alternative<Cluster>(doc.content))
          throw QueryError(resource.toStdString() + " is not a cluster");
        return std::get<Cluster>(std::move(doc.content));
      },
      tr("Use cluster template %1").arg(resource));
}

QString ClusterEditor::add_node(const QString& gpu) {
  return edit(
      [&](Cluster c) {
        Node n;
        n.gpu = gpu.toStdString();
        std::string base = n.gpu.empty() ? "node" : n.gpu;
        for (auto& ch : base)
          ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        n.name = base;
        for (int k = 2; std::ranges::any_of(c.nodes, [&](const Node& x) { return x.name == n.name; }); ++k)
          n.name = base + "-" + std::to_string(k);
        c.nodes.push_back(n);
        return c;
      },
      tr("Add %1 node").arg(gpu));
}

QString ClusterEditor::duplicate_node(int index) {
  return edit(
      [&](Cluster c) {
        if (index < 0 || static_cast<std::size_t>(index) >= c.nodes.size()) throw QueryError("select a node first");
        Node n = c.nodes[static_cast<std::size_t>(index)];
        const std::string base = n.name;
        for (int k = 2; std::ranges::any_of(c.nodes, [&](const Node& x) { return x.name == n.name; }); ++k)
          n.name = base + "-" + std::to_string(k);
        c.nodes.insert(c.nodes.begin() + index + 1, n);
        return c;
      },
      tr("Duplicate node"));
}

QString ClusterEditor::remove_node(int index) {
  const auto why = edit(
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

void ClusterEditor::select_node(int index) {
  for (auto* item : scene_->items())
    if (item->data(kNodeKey).isValid() && item->parentItem() == nullptr)
      item->setSelected(item->data(kNodeKey).toInt() == index);
  selected_ = index;
  fill_form();
}

void ClusterEditor::fill_form() {
  const auto* p = doc_->project();
  const bool ok = p && selected_ >= 0 && static_cast<std::size_t>(selected_) < p->scenario.cluster.nodes.size();
  for (QWidget* w : std::initializer_list<QWidget*>{name_, gpus_, servers_, up_, down_})
    w->setEnabled(ok);
  if (!ok) return;
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
  Node n;
  n.name = name_->text().trimmed().toStdString();
  n.gpu = gpu_->currentText().toStdString();
  n.gpu_count = gpus_->value();
  n.count = servers_->value();
  n.nic_up_gbps = up_->value();
  n.nic_down_gbps = down_->value();
  set_node(selected_, n);
}

void ClusterEditor::rebuild() {
  scene_->clear();
  const auto* p = doc_->project();
  const auto current = gpu_->currentText();
  gpu_->clear();
  if (!p) {
    summary_->setText(tr("No project"));
    return;
  }
  const auto catalog = p->scenario.catalog();  // a value: its span must not outlive it
  for (const auto& spec : catalog.gpus())
    gpu_->addItem(QString::fromStdString(spec.id));
  gpu_->setCurrentText(current.isEmpty() ? QStringLiteral("A100") : current);
  const auto& c = p->scenario.cluster;
  summary_->setText(tr("<b>%1</b>: %2 servers, %3 GPUs")
                        .arg(QString::fromStdString(c.name))
                        .arg(c.total_servers())
                        .arg(c.total_gpus()));
  const auto pal = palette();
  for (std::size_t i = 0; i < c.nodes.size(); ++i) {
    const auto& n = c.nodes[i];
    const double x = static_cast<double>(i % kColumns) * (kBoxW + kGap);
    const double y = std::floor(static_cast<double>(i) / kColumns) * (kBoxH + kGap);
    auto* box =
        scene_->addRect(QRectF(0, 0, kBoxW, kBoxH), QPen(pal.color(QPalette::WindowText)), pal.color(QPalette::Base));
    box->setPos(x, y);
    box->setFlag(QGraphicsItem::ItemIsSelectable);
    box->setData(kNodeKey, static_cast<int>(i));
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
    // One chip per GPU of one server, coloured by type.
    const auto colour = widgets::color_for_name(QString::fromStdString(n.gpu), pal);
    for (int g = 0; g < n.gpu_count; ++g) {
      auto* chip = new QGraphicsRectItem(8 + (g % 10) * (kChip + 4), 30 + (g / 10) * (kChip + 4), kChip, kChip, box);
      chip->setBrush(colour);
      chip->setPen(QPen(pal.color(QPalette::Mid)));
    }
    auto* detail = new QGraphicsSimpleTextItem(
        tr("%1 · ↑%2 ↓%3 Gbps").arg(QString::fromStdString(n.gpu)).arg(n.nic_up_gbps).arg(n.nic_down_gbps), box);
    detail->setPos(8, kBoxH - 22);
    if (static_cast<int>(i) == selected_) box->setSelected(true);
  }
  fill_form();
}

}  // namespace servescope::ui

#include "ui/estimated_models_dialog.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "engine/estimate/cnn_architectures.h"

namespace servescope::ui {
namespace {

QStringList ticked(const QListWidget* list) {
  QStringList out;
  for (int i = 0; i < list->count(); ++i)
    if (list->item(i)->checkState() == Qt::Checked) out << list->item(i)->data(Qt::UserRole).toString();
  return out;
}

}  // namespace

std::optional<std::pair<QStringList, QStringList>> ask_estimated_models(QWidget* parent, const QStringList& gpu_types) {
  QDialog dialog(parent);
  dialog.setObjectName(QStringLiteral("estimatedModelsDialog"));
  dialog.setWindowTitle(QObject::tr("Add estimated models"));
  auto* archs = new QListWidget(&dialog);
  archs->setObjectName(QStringLiteral("architectures"));
  for (const auto& a : engine::cnn_architectures()) {
    auto* item = new QListWidgetItem(
        QStringLiteral("%1 — %2").arg(QString::fromStdString(a.id), QString::fromStdString(a.description)), archs);
    item->setData(Qt::UserRole, QString::fromStdString(a.id));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(a.id == "resnet50" ? Qt::Checked : Qt::Unchecked);
  }
  auto* gpus = new QListWidget(&dialog);
  gpus->setObjectName(QStringLiteral("gpuTypes"));
  for (const auto& g : gpu_types) {
    auto* item = new QListWidgetItem(g, gpus);
    item->setData(Qt::UserRole, g);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Checked);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  buttons->button(QDialogButtonBox::Ok)->setText(QObject::tr("Add"));
  auto* box = new QVBoxLayout(&dialog);
  box->addWidget(new QLabel(QObject::tr("Architectures (block profiles estimated from their layer shapes):"), &dialog));
  box->addWidget(archs, 2);
  box->addWidget(new QLabel(QObject::tr("On the cluster's GPU types:"), &dialog));
  box->addWidget(gpus, 1);
  box->addWidget(buttons);
  const auto update = [&] {
    buttons->button(QDialogButtonBox::Ok)->setEnabled(!ticked(archs).isEmpty() && !ticked(gpus).isEmpty());
  };
  QObject::connect(archs, &QListWidget::itemChanged, &dialog, update);
  QObject::connect(gpus, &QListWidget::itemChanged, &dialog, update);
  QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  update();
  dialog.resize(520, 420);
  if (dialog.exec() != QDialog::Accepted) return std::nullopt;
  return std::pair{ticked(archs), ticked(gpus)};
}

}  // namespace servescope::ui

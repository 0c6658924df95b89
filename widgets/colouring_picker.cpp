#include "widgets/colouring_picker.h"

#include "widgets/timeline_view.h"

namespace servescope::widgets {

QComboBox* make_colouring_picker(TimelineView* view, QWidget* parent) {
  auto* picker = new QComboBox(parent);
  picker->setObjectName(QStringLiteral("colouring"));
  // As wide as "Colour by model": the longer choices show in the open list.
  picker->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  picker->setMinimumContentsLength(16);
  picker->addItem(QObject::tr("Colour by model"), static_cast<int>(BoxColouring::Model));
  picker->addItem(QObject::tr("Colour by SLO outcome"), static_cast<int>(BoxColouring::SloOutcome));
  picker->addItem(QObject::tr("Colour by batch (pipeline stages match)"), static_cast<int>(BoxColouring::Batch));
  QObject::connect(picker, &QComboBox::currentIndexChanged, view, [view, picker](int i) {
    view->set_colouring(static_cast<BoxColouring>(picker->itemData(i).toInt()));
  });
  return picker;
}

}  // namespace servescope::widgets

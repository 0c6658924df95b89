#include "ui/view_picture.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QPainter>
#include <QSpinBox>
#include <algorithm>
#include <vector>

#include "ui/compare_view.h"
#include "ui/plan_view.h"
#include "ui/run_view.h"
#include "widgets/plan_diagram_view.h"
#include "widgets/timeline_view.h"

namespace servescope::ui {
namespace {

std::optional<widgets::TimeRange> stretch_of(const widgets::TimelineView& view, const ViewPictureOptions& o) {
  switch (o.stretch) {
    case ViewPictureOptions::Stretch::Window:
      return std::nullopt;
    case ViewPictureOptions::Stretch::Range:
      return view.state()->range();  // none marked: the window
    case ViewPictureOptions::Stretch::Run:
      return view.state()->whole_run();
  }
  return std::nullopt;
}

// Timelines one under another, each with all its rows.
ViewPicture stacked(const std::vector<widgets::TimelineView*>& views, const ViewPictureOptions& o) {
  ViewPicture picture;
  int width = o.width > 0 ? o.width : 0;
  for (const auto* v : views)
    if (o.width <= 0) width = std::max(width, v->width());
  int height = 0;
  for (const auto* v : views)
    height += v->content_size(width).height();
  picture.size = QSize(width, std::max(height, 1));
  picture.paint = [views, width, o](QPainter& p) {
    int y = 0;
    for (const auto* v : views) {
      p.save();
      p.translate(0, y);
      v->render_content(p, width, stretch_of(*v, o));
      p.restore();
      y += v->content_size(width).height();
    }
  };
  return picture;
}

}  // namespace

ViewPicture picture_of(QWidget* tab, const ViewPictureOptions& o) {
  if (auto* run = qobject_cast<RunView*>(tab); run && run->timeline()->timeline()) return stacked({run->timeline()}, o);
  if (auto* compare = qobject_cast<CompareView*>(tab); compare && !compare->timelines().empty())
    return stacked(compare->timelines(), o);
  if (auto* plans = qobject_cast<PlanView*>(tab)) {
    const auto left = plans->left_diagram()->sizeHint(), right = plans->right_diagram()->sizeHint();
    ViewPicture picture;
    picture.size = QSize(left.width() + right.width() + 16, std::max(left.height(), right.height()));
    picture.paint = [plans, left](QPainter& p) {
      for (auto* diagram : {plans->left_diagram(), plans->right_diagram()}) {
        const auto size = diagram->sizeHint();
        const auto old = diagram->size();
        diagram->resize(size);  // the whole diagram, not the scrolled part
        diagram->render(&p, diagram == plans->left_diagram() ? QPoint() : QPoint(left.width() + 16, 0));
        diagram->resize(old);
      }
    };
    return picture;
  }
  ViewPicture picture;
  picture.size = tab->size();
  picture.paint = [tab](QPainter& p) { tab->render(&p); };
  return picture;
}

std::optional<ViewPictureOptions> ask_picture_options(QWidget* parent, QWidget* tab) {
  const widgets::TimelineView* view = nullptr;
  if (auto* run = qobject_cast<RunView*>(tab); run && run->timeline()->timeline()) view = run->timeline();
  if (auto* compare = qobject_cast<CompareView*>(tab); compare && !compare->timelines().empty())
    view = compare->timelines().front();
  if (!view) return ViewPictureOptions{};
  QDialog dialog(parent);
  dialog.setWindowTitle(QObject::tr("Export the timeline"));
  auto* stretch = new QComboBox(&dialog);
  stretch->addItem(QObject::tr("The window in view"), static_cast<int>(ViewPictureOptions::Stretch::Window));
  if (view->state()->range())
    stretch->addItem(QObject::tr("The marked range"), static_cast<int>(ViewPictureOptions::Stretch::Range));
  stretch->addItem(QObject::tr("The whole run"), static_cast<int>(ViewPictureOptions::Stretch::Run));
  auto* width = new QSpinBox(&dialog);
  width->setRange(400, 16000);
  width->setValue(std::max(1920, view->width()));
  width->setSuffix(QObject::tr(" px"));
  auto* form = new QFormLayout(&dialog);
  form->addRow(QObject::tr("Time"), stretch);
  form->addRow(QObject::tr("Width (every row is drawn)"), width);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  form->addRow(buttons);
  QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() != QDialog::Accepted) return std::nullopt;
  return ViewPictureOptions{static_cast<ViewPictureOptions::Stretch>(stretch->currentData().toInt()), width->value()};
}

}  // namespace servescope::ui

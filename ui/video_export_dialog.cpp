#include "ui/video_export_dialog.h"

#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QProgressDialog>
#include <QSpinBox>

#include "ui/save_dialog.h"
#include "widgets/time_axis.h"
#include "widgets/timeline_video.h"
#include "widgets/timeline_view.h"

namespace servescope::ui {

QString ask_and_export_video(QWidget* parent, const widgets::TimelineView& view) {
  if (!view.timeline()) return QObject::tr("Show a run on the Run tab first: its playback is what the video shows");
  QDialog dialog(parent);
  dialog.setWindowTitle(QObject::tr("Export playback as video"));
  auto* stretch = new QComboBox(&dialog);
  const auto end = view.timeline()->end.count_ns();
  stretch->addItem(QObject::tr("The whole run (%1)").arg(widgets::format_duration(end)));
  if (const auto& range = view.state()->range())
    stretch->addItem(QObject::tr("The marked range (%1)").arg(widgets::format_duration(range->length_ns())));
  stretch->addItem(QObject::tr("The window in view (%1)").arg(widgets::format_duration(view.to_ns() - view.from_ns())));
  auto* speed = new QDoubleSpinBox(&dialog);
  speed->setRange(0.0001, 100);
  speed->setDecimals(4);
  speed->setValue(0.1);
  speed->setSuffix(QObject::tr(" s of run per s"));
  auto* width = new QSpinBox(&dialog);
  width->setRange(320, 3840);
  width->setValue(1280);
  auto* height = new QSpinBox(&dialog);
  height->setRange(240, 2160);
  height->setValue(720);
  auto* fps = new QSpinBox(&dialog);
  fps->setRange(1, 60);
  fps->setValue(25);
  auto* length = new QLabel(&dialog);
  auto* form = new QFormLayout(&dialog);
  form->addRow(QObject::tr("Play"), stretch);
  form->addRow(QObject::tr("Speed"), speed);
  form->addRow(QObject::tr("Width (px)"), width);
  form->addRow(QObject::tr("Height (px)"), height);
  form->addRow(QObject::tr("Frames per second"), fps);
  form->addRow(QObject::tr("Makes"), length);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  form->addRow(buttons);
  QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);

  widgets::TimelineVideoOptions options;
  const auto read = [&] {
    const bool has_range = view.state()->range().has_value();
    const int choice = stretch->currentIndex();
    if (choice == 0) {
      options.from_ns = 0;
      options.to_ns = end;
    } else if (choice == 1 && has_range) {
      options.from_ns = view.state()->range()->from_ns;
      options.to_ns = view.state()->range()->to_ns;
    } else {
      options.from_ns = std::max<std::int64_t>(0, view.from_ns());
      options.to_ns = view.to_ns();
    }
    options.window_ns = view.to_ns() - view.from_ns();
    options.speed = speed->value();
    options.size = QSize(width->value(), height->value());
    options.fps = fps->value();
    const int frames = widgets::timeline_video_frames(options);
    length->setText(
        QObject::tr("%1 frames, %2 s of video").arg(frames).arg(frames / static_cast<double>(options.fps), 0, 'f', 1));
  };
  for (auto* box : {speed})
    QObject::connect(box, &QDoubleSpinBox::valueChanged, &dialog, read);
  for (auto* box : {width, height, fps})
    QObject::connect(box, &QSpinBox::valueChanged, &dialog, read);
  QObject::connect(stretch, &QComboBox::currentIndexChanged, &dialog, read);
  read();
  if (dialog.exec() != QDialog::Accepted) return {};
  read();
  options.path = ask_save_path(parent, QObject::tr("Export playback as video"), QStringLiteral("playback.mp4"),
                               QObject::tr("MP4 video (*.mp4);;GIF animation (*.gif)"));
  if (options.path.isEmpty()) return {};
  QProgressDialog progress(QObject::tr("Painting frames…"), QObject::tr("Cancel"), 0,
                           widgets::timeline_video_frames(options), parent);
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(300);
  const auto why = widgets::export_timeline_video(view, options, [&](int done, int total) {
    progress.setMaximum(total);
    progress.setValue(done);
    return !progress.wasCanceled();
  });
  return progress.wasCanceled() ? QString() : why;
}

}  // namespace servescope::ui

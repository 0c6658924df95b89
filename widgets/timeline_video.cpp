#include "widgets/timeline_video.h"

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <algorithm>
#include <cmath>

#include "widgets/timeline_view.h"

namespace servescope::widgets {

int timeline_video_frames(const TimelineVideoOptions& o) {
  if (o.speed <= 0 || o.fps <= 0 || o.to_ns <= o.from_ns) return 0;
  const double seconds = static_cast<double>(o.to_ns - o.from_ns) / 1e9 / o.speed;
  return std::max(1, static_cast<int>(std::lround(seconds * o.fps)));
}

QString export_timeline_video(const TimelineView& source, const TimelineVideoOptions& o,
                              const std::function<bool(int, int)>& progress) {
  if (!source.timeline()) return QObject::tr("No run is shown: there is nothing to play");
  const int frames = timeline_video_frames(o);
  if (frames == 0) return QObject::tr("Choose a stretch of the run, a speed and a frame rate above zero");
  const auto suffix = QFileInfo(o.path).suffix().toLower();
  if (suffix != QLatin1String("mp4") && suffix != QLatin1String("gif"))
    return QObject::tr("%1: a video is written as .mp4 or .gif").arg(o.path);
  const auto ffmpeg = QStandardPaths::findExecutable(o.ffmpeg);
  if (ffmpeg.isEmpty())
    return QObject::tr("%1 is not installed (Debian package ffmpeg): it writes the video").arg(o.ffmpeg);
  const QSize size(std::max(64, o.size.width() / 2 * 2), std::max(64, o.size.height() / 2 * 2));

  // The frames come from a view of our own at the video's size, so the one on screen keeps its
  // window and the user's zoom history is untouched.
  TimelineView painter;
  painter.setAttribute(Qt::WA_DontShowOnScreen);
  painter.setPalette(source.palette());
  painter.resize(size);
  painter.set_timeline(source.shared_timeline());
  painter.set_colouring(source.colouring());
  painter.set_filter(source.state()->filter());
  const auto window = o.window_ns > 0 ? o.window_ns : std::max<std::int64_t>((o.to_ns - o.from_ns) / 10, 1'000);

  QStringList args = {QStringLiteral("-hide_banner"), QStringLiteral("-loglevel"),
                      QStringLiteral("error"),        QStringLiteral("-y"),
                      QStringLiteral("-f"),           QStringLiteral("rawvideo"),
                      QStringLiteral("-pix_fmt"),     QStringLiteral("rgb24"),
                      QStringLiteral("-s"),           QStringLiteral("%1x%2").arg(size.width()).arg(size.height()),
                      QStringLiteral("-r"),           QString::number(o.fps),
                      QStringLiteral("-i"),           QStringLiteral("-")};
  if (suffix == QLatin1String("gif"))
    args << QStringLiteral("-vf") << QStringLiteral("split[a][b];[a]palettegen[p];[b][p]paletteuse");
  else
    args << QStringLiteral("-c:v") << QStringLiteral("libx264") << QStringLiteral("-pix_fmt")
         << QStringLiteral("yuv420p");
  args << o.path;
  QProcess encoder;
  encoder.start(ffmpeg, args);
  if (!encoder.waitForStarted(10'000)) return QObject::tr("%1 did not start: %2").arg(ffmpeg, encoder.errorString());
  const auto fail = [&](const QString& why) {
    encoder.kill();
    encoder.waitForFinished(10'000);
    QFile::remove(o.path);
    return why;
  };
  QImage frame(size, QImage::Format_RGB888);
  for (int k = 0; k < frames; ++k) {
    const auto now = o.from_ns + (o.to_ns - o.from_ns) * k / std::max(1, frames - 1);
    painter.state()->follow_window(now - window * 3 / 4, now + window / 4);
    painter.set_now(now);
    painter.set_annotation(o.annotation ? o.annotation(now) : source.annotation_at(now), now, now);
    painter.render(&frame);
    // Rows of an RGB888 image are padded to 4 bytes; ffmpeg wants them packed.
    for (int y = 0; y < size.height(); ++y) {
      const auto* row = reinterpret_cast<const char*>(frame.constScanLine(y));
      if (encoder.write(row, qint64{size.width()} * 3) < 0)
        return fail(QObject::tr("%1 stopped reading frames").arg(ffmpeg));
    }
    constexpr qint64 kBacklog = qint64{8} << 20;  // bytes ffmpeg may have yet to read
    while (encoder.bytesToWrite() > kBacklog)
      if (!encoder.waitForBytesWritten(30'000)) return fail(QObject::tr("%1 stopped reading frames").arg(ffmpeg));
    if (progress && !progress(k + 1, frames)) return fail(QObject::tr("Cancelled: nothing was written"));
  }
  encoder.closeWriteChannel();
  if (!encoder.waitForFinished(600'000)) return fail(QObject::tr("%1 did not finish").arg(ffmpeg));
  if (encoder.exitStatus() != QProcess::NormalExit || encoder.exitCode() != 0)
    return fail(QObject::tr("%1 could not write %2: %3")
                    .arg(ffmpeg, o.path, QString::fromLocal8Bit(encoder.readAllStandardError()).trimmed()));
  return {};
}

}  // namespace servescope::widgets

// The playback exported as a video (README "The GUI", video export): a 40 ms run played at
// 0.01 s of run per second at 10 frames per second makes 40 frames, and ffprobe counts exactly
// that many in the MP4 and in the GIF; cancelling leaves no file; a name that is no video, or a
// missing ffmpeg, is refused saying why.
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "tests/gui/gui_test_main.h"
#include "tests/gui/synthetic_timeline.h"
#include "widgets/timeline_video.h"
#include "widgets/timeline_view.h"

using servescope::widgets::TimelineVideoOptions;

namespace {

int frames_in(const QString& path) {
  QProcess probe;
  probe.start(QStringLiteral("ffprobe"),
              {QStringLiteral("-v"), QStringLiteral("error"), QStringLiteral("-count_frames"),
               QStringLiteral("-select_streams"), QStringLiteral("v:0"), QStringLiteral("-show_entries"),
               QStringLiteral("stream=nb_read_frames,width,height"), QStringLiteral("-of"),
               QStringLiteral("default=noprint_wrappers=1"), path});
  if (!probe.waitForFinished(60'000)) return -1;
  const auto out = QString::fromLocal8Bit(probe.readAllStandardOutput());
  for (const auto& line : out.split(QLatin1Char('\n')))
    if (line.startsWith(QStringLiteral("nb_read_frames="))) return line.mid(15).toInt();
  return -1;
}

}  // namespace

class TestVideoExport : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void framesAsAsked() {
    if (QStandardPaths::findExecutable(QStringLiteral("ffmpeg")).isEmpty() ||
        QStandardPaths::findExecutable(QStringLiteral("ffprobe")).isEmpty())
      QSKIP("ffmpeg and ffprobe are missing (Debian package ffmpeg; scripts/test.sh installs it)");
    QTemporaryDir dir;
    servescope::widgets::TimelineView view;
    view.resize(800, 300);
    const auto data = servescope::test::synthetic_timeline();
    view.set_timeline(data);
    TimelineVideoOptions o;
    o.from_ns = 0;
    o.to_ns = 40'000'000;
    o.speed = 0.01;
    o.fps = 10;
    o.size = QSize(321, 241);  // odd: rounded down to even for H.264
    QCOMPARE(servescope::widgets::timeline_video_frames(o), 40);
    int calls = 0;
    for (const auto* suffix : {"mp4", "gif"}) {
      o.path = dir.filePath(QStringLiteral("playback.") + QLatin1String(suffix));
      calls = 0;
      QCOMPARE(servescope::widgets::export_timeline_video(view, o,
                                                          [&](int done, int total) {
                                                            ++calls;
                                                            return done <= total;
                                                          }),
               QString());
      QCOMPARE(calls, 40);
      QCOMPARE(frames_in(o.path), 40);
    }
    // Cancelled halfway: nothing left behind.
    o.path = dir.filePath(QStringLiteral("cancelled.mp4"));
    const auto why = servescope::widgets::export_timeline_video(view, o, [](int done, int) { return done < 20; });
    QVERIFY(why.contains(QStringLiteral("Cancelled")));
    QVERIFY(!QFile::exists(o.path));
    // Refusals that say why.
    o.path = dir.filePath(QStringLiteral("playback.txt"));
    QVERIFY(servescope::widgets::export_timeline_video(view, o).contains(QStringLiteral(".mp4 or .gif")));
    o.path = dir.filePath(QStringLiteral("playback.mp4"));
    o.ffmpeg = QStringLiteral("no-such-ffmpeg");
    QVERIFY(servescope::widgets::export_timeline_video(view, o).contains(QStringLiteral("not installed")));
    // The view on screen kept its window.
    QCOMPARE(view.from_ns(), 0);
  }
};

SERVESCOPE_GUI_TEST(tst_video_export, TestVideoExport)
#include "tst_video_export.moc"

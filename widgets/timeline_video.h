// A run's playback as a video (README "The GUI", video export): the timeline painted off-screen
// frame by frame with its "now" line advancing at a chosen speed, the window following it as
// the Run tab's playback does, and the frames piped as raw RGB into Debian's ffmpeg, which
// writes an MP4 (H.264) or a GIF (with a palette of its own) by the file's extension.
#pragma once

#include <QSize>
#include <QString>
#include <cstdint>
#include <functional>

namespace servescope::widgets {

class TimelineView;

struct TimelineVideoOptions {
  QString path;           // .mp4 or .gif
  QSize size{1280, 720};  // rounded down to even numbers (H.264 needs them)
  int fps = 25;
  double speed = 0.1;        // simulated seconds per second of video
  std::int64_t from_ns = 0;  // the stretch of the run played
  std::int64_t to_ns = 0;
  std::int64_t window_ns = 0;  // how much of the run each frame shows (0: a tenth of the stretch)
  QString ffmpeg = QStringLiteral("ffmpeg");
  // Teaching mode: the note to show at each frame's "now" (none: the view's own note, where the
  // frame's "now" is within its moment).
  std::function<QString(std::int64_t now_ns)> annotation;
};

// How many frames the options make.
int timeline_video_frames(const TimelineVideoOptions& options);

// Writes the video of `source`'s run (its colouring and filter). `progress(done, total)` is
// called after each frame; returning false cancels (nothing is left at the path). Returns an
// empty string, or what went wrong naming the path or the missing program.
QString export_timeline_video(const TimelineView& source, const TimelineVideoOptions& options,
                              const std::function<bool(int, int)>& progress = {});

}  // namespace servescope::widgets

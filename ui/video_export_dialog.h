// File → Export → Playback as video (README "The GUI", video export): asks the stretch of the
// shown run (all of it, the marked range or the window in view), the speed, size and frame
// rate, then where to write; paints the frames with a progress dialog that can cancel.
#pragma once

#include <QString>

class QWidget;

namespace servescope::widgets {
class TimelineView;
}

namespace servescope::ui {

// Returns an empty string when the video was written or the user cancelled, else the reason.
QString ask_and_export_video(QWidget* parent, const widgets::TimelineView& view);

}  // namespace servescope::ui

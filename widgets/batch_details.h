// The selected batch, told in full for a side panel (README "The GUI", Batch panel; Hotspot's
// details pane): what the tool tip says, then each of its requests with how long it waited, its
// latency and the slack its deadline left (late ones in bold). With nothing selected, how to
// select and the mouse's gestures. The Run and Live tabs show the same.
#pragma once

#include <QString>

namespace servescope::widgets {

class TimelineView;

// Rich text for `view`'s selected batch, or the hint when none is (or no run is shown).
QString batch_details_html(const TimelineView& view);

}  // namespace servescope::widgets

// "Next violation" on a timeline (the Run and Live tabs): the first batch that finished a request
// late, or request dropped, after the playback line (or the selected batch at it), past the
// warm-up, whichever comes first; past the last one it goes round to the first and says so. The
// view moves to it at the zoom the user chose, selects the batch and marks its row (a drop: its
// model's queue row comes into view); drops at one instant are one stop.
#pragma once

#include <QString>
#include <cstdint>

namespace servescope::widgets {

class TimelineView;

// True when it found one; `said` gets what to tell the user either way (times on the view's axis).
bool go_to_next_violation(TimelineView& view, std::int64_t warmup_ns, QString* said);

}  // namespace servescope::widgets

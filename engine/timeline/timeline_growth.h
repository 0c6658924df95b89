// A timeline that grows while it is watched (Qt Creator's TimelineModel::insert, docs
// gui-anchors §0 item 2; README "Live deployment"): chunks of a live run are merged into a
// TimelineData in its orders (spans by start then slot, transfers by start, queue samples and
// drops by time), and its oldest detail is let go, each step saying what moved, so that what is
// built on the timeline (TimelineIndex, a view's caches) is extended or shifted, not rebuilt.
// Batches are reported when they end, so a chunk's spans mostly start after what is there:
// a merge moves only the few that started later than the chunk's earliest.
#pragma once

#include <cstddef>

#include "engine/timeline/timeline_data.h"

namespace servescope::engine {

// Positions from which each table is new or moved; everything before them is as it was.
struct TimelineChange {
  std::size_t spans = 0, transfers = 0, queue = 0, drops = 0, notices = 0;
};

// Merges `chunk` in; its spans' requests go to the end of `data.requests`. `end` grows.
TimelineChange append(TimelineData& data, TimelineChunk chunk);

// How many entries left the front of each table.
struct TimelineCut {
  std::size_t spans = 0, transfers = 0, queue = 0, drops = 0, notices = 0;
  bool any() const { return spans + transfers + queue + drops + notices > 0; }
};

// Lets go of what started before `t`: spans and transfers that started before it, queue samples,
// drops and notices before it, and the requests no kept span refers to.
TimelineCut forget_before(TimelineData& data, Time t);

}  // namespace servescope::engine

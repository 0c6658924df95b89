// One request's life, told step by step for teaching (README "The GUI", teaching mode): it
// arrives; waits in its model's queue; joins a batch, with the data plane's reason for when and
// where that batch ran (Symphony's schedulable window, PPipe's reservation, …: the plane's
// DataPlaneTraits::decides); runs each stage of its pipeline and crosses the network between
// them; and finishes on time, late, or is dropped with the reason. Built from a timeline alone,
// so a simulated, recorded or loaded run tells the same story.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/timeline/timeline_index.h"

namespace servescope::engine {

struct StoryStep {
  enum class Kind { Arrival, Waiting, Batch, Transfer, Finished, Dropped } kind = Kind::Arrival;
  Time at, until;                         // equal for an instant
  std::optional<std::uint32_t> span;      // the batch the timeline shows for it
  std::optional<std::uint32_t> transfer;  // the transfer
  std::string title;                      // what happened
  std::string why;                        // the data plane's reason, or the figures behind it
};

struct RequestStory {
  RequestId request = 0;
  std::uint32_t model = 0;
  Time arrival, deadline;
  std::vector<StoryStep> steps;  // in time order
};

// The story of request `id`, or nullopt when the timeline keeps no trace of it (no request
// lists, or an id no batch carried and no drop names). `decides` is the data plane's rule.
std::optional<RequestStory> request_story(const TimelineData& data, const TimelineIndex& index, RequestId id,
                                          const std::string& decides);

// A request worth telling at or after `after`: the first of the first late batch, else of the
// first batch (by start), or a dropped one when `dropped` asks for it. nullopt when none.
std::optional<RequestId> request_to_tell(const TimelineData& data, Time after, bool dropped = false);

}  // namespace servescope::engine

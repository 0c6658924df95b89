// One request's way through a run (README "The GUI", flows; Perfetto's flow events): the
// batches that carried it, stage after stage, with the transfers of feature maps between them
// (PPipe Fig. 12), and finding a request by id. The timeline view draws a flow as arrows from
// each step's end to the next step's start.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/timeline/timeline_index.h"

namespace servescope::engine {

struct FlowStep {
  enum class Kind { Batch, Transfer } kind = Kind::Batch;
  std::uint32_t index = 0;  // into TimelineData::spans or ::transfers
  Time start, end;
};

// The steps of the batch group `span` belongs to (its pipeline stages, TimelineIndex::linked),
// and the transfers that moved those batches' outputs, in time order. A single-stage batch is a
// flow of one step.
std::vector<FlowStep> flow_of(const TimelineData& data, const TimelineIndex& index, std::uint32_t span);

// The first batch (by start) that carried request `id`; nullopt when none did or the timeline
// keeps no request lists.
std::optional<std::uint32_t> first_batch_of_request(const TimelineData& data, RequestId id);

}  // namespace servescope::engine

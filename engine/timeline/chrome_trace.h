// A timeline as Chrome trace-event JSON (the "JSON Object Format" that chrome://tracing and
// Perfetto open): each physical GPU is a process and each of its slots (vGPU, glet) a thread;
// batches are complete ("X") events named after their model; network transfers are complete
// events of a "network" process, one thread per sending slot; each model's queue depth is a
// counter ("C") and each dropped request an instant event ("i") of a "queues" process. Written
// as a stream: a million batches never sit in
// memory as JSON.
#pragma once

#include <ostream>

#include "engine/timeline/timeline_data.h"

namespace servescope::engine {

void write_chrome_trace(std::ostream& out, const TimelineData& timeline);

}  // namespace servescope::engine

// What the live scheduler records of its run (docs/protocol.md "Payloads" and "Subscribers and
// metrics"): every arrival, dispatch, batch, transfer, completion and drop as the event stream
// encodes it, taken in chunks for the
// GUI subscribers and, when asked to keep them, kept per plan with that plan's description, so
// that the run so far reads back as a SimulationResult like a simulated run's (recorded()), and
// each earlier plan's part too after a plan switch. What is kept goes to disk (event_spill.h),
// so memory stays flat however long the run.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "engine/live/event_spill.h"
#include "engine/live/event_stream.h"
#include "engine/serving/simulation_result.h"

namespace servescope::engine::live {

class LiveRecording {
 public:
  // Throws LiveError when keeping and no temporary file can be made for it.
  explicit LiveRecording(bool keep) : keep_(keep), kept_(keep ? std::make_unique<EventSpill>() : nullptr) {}

  EventEncoder& events() { return events_; }
  std::uint64_t records() const { return events_.records(); }
  std::size_t unpublished_bytes() const { return events_.size(); }
  // What was recorded since the last take, for the subscribers (and kept, when keeping).
  std::vector<std::uint8_t> take();
  // The current plan's part of the run ends (a plan switch): what was kept of it stays with
  // `plan`'s description. Take first, so that nothing unpublished is left behind.
  void end_plan(const SimulationResult& plan);

  // The current plan's part so far, unpublished events included; `now` bounds the times events
  // may name (LiveRun::set_horizon).
  SimulationResult recorded(const SimulationResult& plan, Time now) const;
  // Each earlier plan's part, oldest first.
  std::vector<SimulationResult> earlier_plans(Time now) const;

 private:
  struct Segment {
    nlohmann::json description;
    std::unique_ptr<EventSpill> events;
  };
  bool keep_;
  EventEncoder events_;
  std::unique_ptr<EventSpill> kept_;  // the current plan's, when keeping
  std::vector<Segment> segments_;     // earlier plans'
};

}  // namespace servescope::engine::live

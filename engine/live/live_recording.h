// What the live scheduler records of its run (docs/protocol.md "Payloads" and "Subscribers and
// metrics"): every arrival, dispatch, batch, transfer, completion and drop as the event stream
// encodes it, taken in chunks for the GUI subscribers and, when asked to keep them, kept per plan
// with that plan's description, so that the run so far reads back as a SimulationResult like a
// simulated run's (recorded()), and each earlier plan's part too after a plan switch. What is kept
// goes to disk (event_spill.h), one spill for the whole run, each plan's part a range of it, so
// memory and open files stay flat however long the run and however many switches.
//
// Keeping is never worth the service: when the spill cannot be written (a full disk, a file size
// limit), keeping stops, failure() says why and since when, the chunks still go to subscribers,
// and what was kept before reads back as it was.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/live/event_spill.h"
#include "engine/live/event_stream.h"
#include "engine/serving/simulation_result.h"

namespace servescope::engine::live {

class LiveRecording {
 public:
  // Throws LiveError when keeping and no temporary file can be made for it: the run has not
  // begun, and an operator who asked for a recording is told at once.
  explicit LiveRecording(bool keep);

  EventEncoder& events() { return events_; }
  std::uint64_t records() const { return events_.records(); }
  std::size_t unpublished_bytes() const { return events_.size(); }
  // What was recorded since the last take, for the subscribers (and kept, when keeping). `now`
  // dates a failure to keep it.
  std::vector<std::uint8_t> take(Time now);
  // The current plan's part of the run ends (a plan switch): what was kept of it stays with
  // `plan`'s description. Take first, so that nothing unpublished is left behind.
  void end_plan(const SimulationResult& plan);

  // The current plan's part so far, unpublished events included; `now` bounds the times events
  // may name (LiveRun::set_horizon).
  SimulationResult recorded(const SimulationResult& plan, Time now) const;
  // Each earlier plan's part, oldest first.
  std::vector<SimulationResult> earlier_plans(Time now) const;

  // Why keeping stopped, with the run's time; empty while it keeps (or was never asked to).
  const std::string& failure() const { return failure_; }

 private:
  struct Segment {
    nlohmann::json description;
    std::uint64_t begin = 0, end = 0;  // its blocks in the spill
  };
  bool keeping() const { return kept_ && failure_.empty(); }

  EventEncoder events_;
  std::unique_ptr<EventSpill> kept_;  // the whole run's, when keeping
  std::uint64_t plan_begins_ = 0;     // where the current plan's blocks begin in it
  std::vector<Segment> segments_;     // earlier plans'
  std::string failure_;
};

}  // namespace servescope::engine::live

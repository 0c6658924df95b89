// What the live scheduler has to do at a time of its steady clock: the data plane's timers (the
// Clock interface: one slot per timer, each armed at most once) and the completions it delivers
// itself, a batch sent to a slot without a worker (it "ends" when the plane expected it to) and a
// feature map that stays on one server (it arrives at once). The poll loop sleeps until
// next_due() and takes what is due in time order; a plan switch clears it all with the old plane.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <variant>
#include <vector>

#include "engine/core/indexed_heap.h"
#include "engine/dataplane/data_plane.h"

namespace servescope::engine::live {

class LiveTimers {
 public:
  TimerId create(std::uint64_t token);
  void arm(TimerId timer, Time at);
  void disarm(TimerId timer);
  void complete_at(Time at, BatchDone done);
  void deliver_at(Time at, TransferDone done);

  // When the earliest entry is due; nullopt when nothing is waiting.
  std::optional<Time> next_due() const;
  struct Due {
    Time at;
    std::variant<std::uint64_t, BatchDone, TransferDone> what;  // a timer's token, or a completion
  };
  // The earliest entry due at or before `now`, taken out; nullopt when none is due. Among equal
  // times timers come first, then batches, then transfers.
  std::optional<Due> take_due(Time now);
  void clear();

 private:
  struct TimerKey {
    Time at;
    std::uint64_t seq = 0;  // arming order breaks ties
    bool operator<(const TimerKey& o) const { return at != o.at ? at < o.at : seq < o.seq; }
  };
  IndexedHeap<TimerKey> timers_;
  std::vector<std::uint64_t> tokens_;  // per timer
  std::uint64_t seq_ = 0;
  std::multimap<Time, BatchDone> batches_;
  std::multimap<Time, TransferDone> transfers_;
};

}  // namespace servescope::engine::live

// Who may wait to say hello (docs/protocol.md "Frames"). A connection is a stranger until its
// hello is welcomed, and strangers must not be able to lock a deployment out, whether they hold
// connections idle or guess tokens. The gate keeps the books a listener needs for that:
//  - how many connections may wait for their hello, in all and per source address. A newcomer
//    over a limit closes the oldest waiting connection that has not started its hello, instead
//    of being turned away: a real client says hello within a round trip, so the oldest silent
//    one is the idlest, and a flood cannot keep a newcomer out without opening connections
//    faster than the newcomer's hello travels;
//  - a share of the room that strangers never take, for sources a worker was welcomed from
//    before, so a restarting worker gets in while strangers fill the rest;
//  - how long a connection may wait for its hello: seconds normally, one once the room is half full;
//  - how fast one source may fail hellos: after a few failures its hellos are left unread for a
//    backoff that doubles up to half a second (so a guesser learns nothing faster, and a right
//    token from the same address is only delayed, never refused), and its refusals are logged as
//    a count per interval, not a line each.
// Pure bookkeeping over connection ids, addresses and times: the owner does the sockets.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace servescope::engine::live {

struct HelloGateLimits {
  std::size_t waiting = 64;               // connections without a welcome, in all
  std::size_t per_source = 16;            // of them from one address
  std::size_t reserved_for_workers = 16;  // of `waiting`, never taken by strangers
  std::chrono::milliseconds deadline{5000};
  std::chrono::milliseconds pressed_deadline{1000};  // once half of `waiting` is taken
  int free_failures = 3;                             // failed hellos from a source before it is slowed down
  std::chrono::milliseconds first_backoff{50}, max_backoff{500};
  std::chrono::milliseconds log_every{5000};  // one count of a source's failures per interval
};

class HelloGate {
 public:
  using Time = std::chrono::steady_clock::time_point;

  explicit HelloGate(HelloGateLimits limits = {}) : limits_(limits) {}

  struct Admission {
    bool admitted = false;
    std::optional<std::uint64_t> evicted;  // a waiting connection to close to make room
  };
  // Whether a waiting connection has started its hello (bytes of it arrived): spared while a
  // silent one can go instead.
  using Speaking = std::function<bool(std::uint64_t id)>;
  // Connection `id` from `source` (an address) arrived and waits for its hello.
  Admission arrive(std::uint64_t id, const std::string& source, Time now, const Speaking& speaking = {});
  // It was welcomed (a worker's source is remembered as a worker's) or closed. Unknown ids are ignored.
  void welcomed(std::uint64_t id, bool worker);
  void leave(std::uint64_t id);

  // Waiting connections past their deadline, except those whose hellos the gate holds unread.
  std::vector<std::uint64_t> overdue(Time now) const;
  std::chrono::milliseconds deadline() const;
  // Whether the hellos from `source` are to be left unread for now (it failed too often).
  bool holds(const std::string& source, Time now) const;
  // A hello from `source` was refused for `reason`: the line to log now, if this one is logged.
  std::optional<std::string> failed(const std::string& source, const std::string& reason, Time now);
  // The counts of refusals not logged one by one, for the intervals that have ended.
  std::vector<std::string> summaries(Time now);

  std::size_t waiting() const { return waiting_.size(); }
  bool known_worker_source(const std::string& source) const { return worker_sources_.contains(source); }

 private:
  struct Waiting {
    std::uint64_t id = 0;
    std::string source;
    Time since;
    bool worker_source = false;
  };
  struct Failures {
    int count = 0;  // failed hellos since the source was last quiet for a while
    Time last, held_until;
    std::optional<Time> window;  // since when its refusals are counted instead of logged
    std::uint64_t unlogged = 0;
    std::string last_reason;
  };
  HelloGateLimits limits_;
  std::vector<Waiting> waiting_;  // in order of arrival
  std::unordered_set<std::string> worker_sources_;
  std::unordered_map<std::string, Failures> failures_;
};

}  // namespace servescope::engine::live

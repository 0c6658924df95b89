// Which worker serves which server, for the live scheduler (docs/protocol.md "Liveness and faults"): the
// plan's slots and the server each sits on, the connection of each server's worker (one at a
// time), and the servers in doubt because a batch's report is overdue. A slot is usable while
// its server's worker is connected and not in doubt; the scheduler takes the others out of the
// data plane's planning. Pure bookkeeping, no sockets: the scheduler decides when a worker joins,
// is doubted or is lost.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace servescope::engine::live {

class WorkerRoster {
 public:
  // The cluster's servers, by name; no worker connected yet.
  explicit WorkerRoster(std::vector<std::string> server_names);

  // A plan's slots, by the server each sits on (RunLayout::gpu_server); the workers stay.
  void set_plan(const std::vector<std::uint32_t>& slot_server);
  std::uint32_t server_of(std::uint32_t slot) const { return slot_server_.at(slot); }
  std::vector<std::uint32_t> slots_of(std::uint32_t server) const;
  std::size_t slots() const { return slot_server_.size(); }
  const std::vector<std::string>& server_names() const { return names_; }
  // The server named so, or nullopt.
  std::optional<std::uint32_t> find(const std::string& name) const;

  void join(std::uint32_t server, std::uint64_t peer);
  void leave(std::uint32_t server);  // its worker is gone, and any doubt with it
  std::uint64_t worker(std::uint32_t server) const { return worker_[server]; }  // 0: none
  // True when the server was not in doubt before (so its slots just left planning).
  bool doubt(std::uint32_t server);
  // True when the server was in doubt (so its slots can plan again).
  bool clear_doubt(std::uint32_t server);
  bool doubted(std::uint32_t server) const { return doubted_[server]; }
  bool slot_usable(std::uint32_t slot) const;

  std::size_t connected() const;
  // Servers the plan puts a slot on whose worker has not joined.
  std::vector<std::string> missing() const;
  // Whether a server the plan uses has no worker now (it left, or never joined).
  bool any_missing() const;
  // Whether any slot of the plan is usable now.
  bool any_slot_usable() const;
  // Per server: its name, whether its worker is connected and whether the plan uses it.
  nlohmann::json status() const;

 private:
  std::vector<std::string> names_;
  std::vector<std::uint32_t> slot_server_;  // per slot
  std::vector<std::uint64_t> worker_;       // per server: the worker's peer id (0: none)
  std::vector<bool> used_;                  // per server: the plan puts a slot on it
  std::vector<bool> doubted_;               // per server
};

}  // namespace servescope::engine::live

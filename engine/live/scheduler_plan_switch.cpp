// The live scheduler's plan switch (PPipe digest §2.9, flush and switch): requests that arrive
// while the old plane finishes what it holds are held, then the new plane takes over with them,
// and each worker is told its new slots.
#include <algorithm>

#include "engine/live/byte_codec.h"
#include "engine/live/json_payload.h"
#include "engine/live/live_run.h"
#include "engine/live/live_scheduler.h"
#include "engine/live/messages.h"
#include "engine/live/scheduler_parts.h"
#include "engine/ppipe/pipeline_deployment.h"
#include "engine/systems/system_registry.h"
#include "model/core/error.h"

namespace servescope::engine::live {

void LiveScheduler::apply_plan(PreparedServing next, Duration flush_limit) {
  if (switch_.under_way()) throw QueryError("a plan switch is already under way");
  if (next.result.models != prepared_.result.models)
    throw QueryError("the new plan serves other models than the running one; both must serve the workload's models");
  if (next.result.server_names != prepared_.result.server_names)
    throw QueryError("the new plan is for another cluster");
  check_servable_live(next);
  switch_.begin(std::move(next), now(), flush_limit);
  const auto& result = switch_.next().result;
  notice(NoticeKind::FlushBegan, std::nullopt,
         "switching to " + result.system + (result.plan_system.empty() ? "" : " (" + result.plan_system + ")") +
             ": holding new requests while the current plane flushes");
  broadcast_status();
}

void LiveScheduler::maybe_switch() {
  const bool flushed = batches_.empty() && transfers_.empty() && ledger_.size() == switch_.held().size();
  const Time t = now();
  if (!switch_.due(t, flushed)) return;
  publish();  // what the old plane did reaches subscribers under its own description
  // Requests the old plane still held past the limit end here, with the reason.
  std::vector<Request> stranded;
  std::unordered_set<RequestId> is_held;
  for (const auto& r : switch_.held())
    is_held.insert(r.id);
  for (const auto& [id, owner] : ledger_)
    if (!is_held.contains(id)) stranded.push_back(owner.request);
  std::ranges::sort(stranded, {}, &Request::id);
  for (const auto& r : stranded)
    dropped(r, DropReason::NoCapacity);
  publish();  // the stranded drops too, to subscribers and into the recording
  recording_.end_plan(prepared_.result);
  // Everything of the old plane goes with it: its timers, its pending completions, its work.
  timers_.clear();
  batches_.clear();
  transfers_.clear();
  // A new epoch: reports for the old plan's batches, if any come, match nothing now.
  auto done = switch_.finish(t);
  prepared_ = std::move(done.next);
  adopt_plane();
  // Workers learn their slots' new shares (and an executor on real compute its threads).
  for (const auto& p : peers_.peers())
    if (p->welcomed && !p->closed && p->hello.role == PeerRole::Worker) {
      auto assignment = assignment_for(p->server);
      assignment["type"] = "assignment";
      p->conn->send(FrameType::Control, assignment.dump());
    }
  const nlohmann::json changed = {
      {"type", "plan-changed"}, {"run", describe_run(prepared_.result)}, {"now_ns", now().count_ns()}};
  peers_.send_to(PeerRole::Gui, FrameType::Control, changed.dump());
  for (const auto& r : done.held) {
    recording_.events().on_arrival(r);
    prepared_.plane->on_request(r);
  }
  notice(NoticeKind::PlanSwitched, std::nullopt,
         "switched to " + prepared_.result.system + " after a flush of " + std::to_string(done.flush.to_ms()) +
             " ms; " + std::to_string(done.held.size()) + " held requests handed over, " +
             std::to_string(stranded.size()) + " dropped as the old plan went");
  broadcast_status();
}

// What a worker runs: the run's models (orders name them by index) and the server's slots.
nlohmann::json LiveScheduler::assignment_for(std::uint32_t server) const {
  const auto& result = prepared_.result;
  nlohmann::json slots = nlohmann::json::array();
  for (const auto g : roster_.slots_of(server))
    slots.push_back(
        {{"slot", g}, {"name", result.gpus[g]}, {"type", result.gpu_types[g]}, {"share", result.gpu_shares[g]}});
  return {{"node", result.server_names[server]}, {"models", result.models}, {"slots", slots}};
}

}  // namespace servescope::engine::live

// The frontend that serves a cost plan (Piccolo seed 001 §4, Harpagon seed 004 §3.2–§3.6): each
// module's machines, ranked in throughput-cost order, and one of three dispatch rules. TC forms
// batches of consecutive requests at the frontend and gives each to the machine free soonest,
// the higher-ranked on a tie, so the best machines stay full and the tail goes down the ranks.
// RR spreads single requests over the machines by their planned rates and each machine forms its
// own batch; DT does the same per configuration group. A batch leaves when it is full, or when
// waiting longer would make its oldest request miss the module's budget. Dummy requests arrive
// at the planned rate, fill batches that hold real requests, are executed and paid for, and are
// never forwarded.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "engine/cost/cost_planner.h"
#include "engine/dataplane/data_plane.h"

namespace servescope::engine {

// One executor per machine and concurrency slot: a machine running s batches at once is s slots.
struct CostSlot {
  std::size_t module = 0;
  std::size_t config = 0;  // the planned configuration
  // The module's configurations on the same hardware and concurrency, by batch: what the slot
  // can also run when a burst leaves more requests waiting, or a timeout fewer.
  std::vector<std::size_t> family;
  std::size_t tier = 0;
  std::size_t machine = 0;  // within the tier
  int batch = 1;
  Duration duration;
  double price_share = 0;  // the machine's price over its concurrency
};

// The slots a plan needs, in module and rank order.
std::vector<CostSlot> cost_slots(const CostPlan& plan);

struct CostModuleStats {
  std::uint64_t requests = 0;         // real module requests served
  std::uint64_t over_budget = 0;      // finished later than the module's budget after arriving
  Duration max_latency;               // worst module latency seen
  std::uint64_t dummies_run = 0;      // dummy requests executed
  std::uint64_t dummies_dropped = 0;  // generated while no batch could use them
  std::uint64_t batches = 0;
  std::uint64_t dropped = 0;  // could no longer meet the end-to-end deadline
};

class CostDispatcher final : public DataPlane {
 public:
  // Module m's requests arrive as data-plane model module_model[m].
  CostDispatcher(const CostPlan& plan, std::vector<std::uint32_t> module_model);

  std::string name() const override { return "cost-" + std::string(to_string(plan_.dispatch)); }
  void start(DataPlaneContext& context) override;
  void on_request(const Request& request) override;
  void on_timer(std::uint64_t token) override;
  void on_batch_done(const BatchDone& done) override;

  const std::vector<CostSlot>& slots() const { return slots_; }
  const std::vector<CostModuleStats>& stats() const { return stats_; }

 private:
  struct Queue {
    std::size_t module = 0;
    std::vector<std::uint32_t> slots;  // rank order
    double weight = 0;                 // planned rate (RR and DT routing)
    double credit = 0;                 // smooth weighted round robin
    std::deque<Request> pending;
    int dummies = 0;
    int target = -1;  // slot the open batch goes to
    TimerId timer = 0;
  };

  void open(Queue& q);
  std::size_t batch_config(const Queue& q, const CostSlot& slot, Time start, bool fill_with_dummies) const;
  // When a module request should finish: its arrival at the module plus the module's budget.
  Time due(const Request& r, std::size_t module) const { return r.arrival + plan_.budgets[module]; }
  void drop_hopeless(Queue& q);
  void try_close(std::size_t queue);
  void dispatch(std::size_t queue, bool fill_with_dummies);
  std::size_t route(std::size_t module);

  CostPlan plan_;
  std::vector<std::uint32_t> module_model_;
  std::vector<CostSlot> slots_;
  std::vector<Time> free_at_;
  std::vector<BatchId> last_batch_;
  std::vector<Queue> queues_;
  std::vector<std::vector<std::size_t>> module_queues_;
  std::vector<TimerId> dummy_timer_;
  std::vector<std::uint64_t> dummy_count_;  // generated so far, per module
  std::vector<CostModuleStats> stats_;
  std::vector<std::uint32_t> model_module_;  // data-plane model → module + 1 (0: not ours)
  std::vector<Duration> fastest_;            // per module: its quickest configuration
  std::vector<Duration> fastest_after_;      // per module: quickest path after it (no waiting)
  struct Running {
    std::vector<Request> requests;
    std::size_t module;
  };
  std::unordered_map<BatchId, Running> running_;
  DataPlaneContext* ctx_ = nullptr;
  BatchId next_batch_ = 1;
  RequestId next_dummy_ = RequestId{3} << 61;
};

}  // namespace servescope::engine

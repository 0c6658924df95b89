#include "engine/systems/symphony/symphony_system.h"

#include <algorithm>
#include <optional>

#include "engine/baselines/nexus_scheduler.h"
#include "engine/baselines/shepherd_scheduler.h"
#include "engine/dataplane/partitioned_data_plane.h"
#include "engine/serving/prepared_serving.h"
#include "engine/symphony/deferred_scheduler.h"
#include "engine/systems/symphony/symphony_options.h"
#include "model/core/error.h"

namespace servescope::engine {
namespace {

// Symphony's Algorithm 1 and the baselines that are its policies changed (Symphony digest §3):
// when a batch runs, how it is cut, which model goes first. Listed in the order of --help.
struct DeferredVariant {
  const char* name;
  ExecRule exec;
  BatchRule batch;  // unless the spec overrides it
  ModelPick pick;
  const char* decides;  // DataPlaneTraits::decides
};
constexpr DeferredVariant kDeferredVariants[] = {
    {"symphony", ExecRule::Deferred, BatchRule::WindowDrop, ModelPick::EarliestLatest,
     "Symphony defers a batch to the moment it can no longer grow: the latest start that still meets its head "
     "request's deadline with one more request (its schedulable window, seed 002 §3.2); a head that would keep "
     "the batch below its target size is dropped."},
    {"eager", ExecRule::Eager, BatchRule::Greedy, ModelPick::OldestRequest,
     "Eager starts the largest batch that meets the head's deadline as soon as a GPU is free (seed 002 §6)."},
    {"timeout", ExecRule::Timeout, BatchRule::Greedy, ModelPick::OldestRequest,
     "Timeout starts a batch when it is full or when its head has waited the time-out, as TF-Serving does "
     "(seed 002 §6)."},
    {"latest", ExecRule::Latest, BatchRule::Greedy, ModelPick::EarliestLatest,
     "Latest starts a batch at the last moment its head can still meet its deadline: the largest batches, "
     "the longest idle time (seed 002 §6)."},
    {"clockwork", ExecRule::Eager, BatchRule::Greedy, ModelPick::EarliestLatest,
     "Clockwork starts a batch as soon as a GPU is free, for the model whose head is due first (seed 002 §6)."},
};

std::unique_ptr<DataPlane> make_single_data_plane(const std::string& system, const SimulationSetup& setup,
                                                  const SimulationSpec& spec) {
  const auto& options = spec.options<SymphonyRunOptions>();
  DeferredOptions o = options.deferred;
  if (system == "shepherd") {
    ShepherdOptions so;
    so.d_ctrl = o.d_ctrl;
    so.d_data = o.d_data;
    so.max_batch = o.max_batch;
    return std::make_unique<ShepherdScheduler>(setup.models, setup.gpus, so);
  }
  if (system == "nexus") {
    std::vector<double> rates(setup.models.size(), 0.0);
    for (const auto& s : setup.streams)
      rates[s.model] += s.rate_rps;
    return std::make_unique<NexusScheduler>(setup.models, setup.gpus, rates, options.nexus);
  }
  const auto variant = std::ranges::find_if(kDeferredVariants, [&](const auto& v) { return system == v.name; });
  if (variant == std::end(kDeferredVariants))
    throw QueryError("no data plane named '" + system + "' among Symphony's and its baselines'");
  o.exec_rule = variant->exec;
  o.batch_rule = options.batch_rule.value_or(variant->batch);
  o.model_pick = variant->pick;
  if (o.exec_rule == ExecRule::Timeout) {
    Duration tightest = Duration::max();
    for (const auto& m : setup.models)
      tightest = std::min(tightest, m.slo);
    o.timeout = Duration::nanoseconds(
        static_cast<std::int64_t>(static_cast<double>(tightest.count_ns()) * options.timeout_fraction_of_slo));
  }
  return std::make_unique<DeferredScheduler>(setup.models, setup.gpus, o);
}

// The part of `setup` that one sub-cluster sees, with local indices.
SimulationSetup sub_setup(const SimulationSetup& setup, const DataPlanePart& part) {
  SimulationSetup sub;
  std::vector<std::uint32_t> local(setup.models.size(), ~0u);
  for (std::uint32_t i = 0; i < part.models.size(); ++i) {
    local[part.models[i]] = i;
    sub.models.push_back(setup.models[part.models[i]]);
  }
  for (std::uint32_t i = 0; i < part.gpus.size(); ++i) {
    auto g = setup.gpus[part.gpus[i]];
    g.index = i;
    sub.gpus.push_back(std::move(g));
  }
  sub.servers = setup.servers;
  for (const auto& st : setup.streams) {
    if (local[st.model] == ~0u) continue;
    auto copy = st;
    copy.model = local[st.model];
    sub.workload_rate_rps += copy.rate_rps;
    sub.streams.push_back(std::move(copy));
  }
  return sub;
}

}  // namespace

SubclusterSplit split_subclusters(const SimulationSetup& setup, const SimulationSpec& spec) {
  const auto& options = spec.options<SymphonyRunOptions>();
  const int k = options.subclusters;
  if (k < 1) throw QueryError("the number of sub-clusters must be at least 1");
  if (static_cast<std::size_t>(k) > setup.gpus.size() || static_cast<std::size_t>(k) > setup.models.size())
    throw QueryError(std::to_string(k) + " sub-clusters need at least as many GPUs and models; the cluster has " +
                     std::to_string(setup.gpus.size()) + " GPUs and the workload " +
                     std::to_string(setup.models.size()) + " models");
  SubclusterSplit split;
  split.gpus.resize(static_cast<std::size_t>(k));
  split.models.resize(static_cast<std::size_t>(k));
  // Contiguous groups of GPUs (servers stay together), sizes differing by at most one.
  const auto n = setup.gpus.size();
  for (std::size_t g = 0; g < n; ++g)
    split.gpus[g * static_cast<std::size_t>(k) / n].push_back(static_cast<std::uint32_t>(g));
  if (k == 1) {
    for (std::uint32_t m = 0; m < setup.models.size(); ++m)
      split.models[0].push_back(m);
    split.partition.status = PartitionStatus::Optimal;
    split.partition.assignment.assign(setup.models.size(), 0);
    return split;
  }
  // The paper balances request rate, for its dispatchers' sake (digest §2.9). Our sub-clusters
  // have equal GPU counts and models differ tenfold in GPU time per request, so we balance GPU
  // load: each model's rate times its GPU seconds per request at the staggered batch.
  PartitionProblem problem;
  problem.subclusters = k;
  std::vector<double> rates(setup.models.size(), 0.0);
  for (const auto& st : setup.streams)
    rates[st.model] += st.rate_rps;
  const auto gpus_per_part = static_cast<std::int64_t>(setup.gpus.size()) / k;
  for (std::size_t m = 0; m < setup.models.size(); ++m)
    problem.models.push_back(
        PartitionModel{setup.models[m].name, rates[m] * gpu_seconds_per_request(setup.models[m], gpus_per_part), 0, 0});
  split.partition = solve_partition(problem, options.partition_time_limit_s, options.partition_node_limit);
  if (split.partition.status == PartitionStatus::Infeasible)
    throw QueryError("sub-cluster partitioning found no assignment: " + split.partition.message);
  for (std::uint32_t m = 0; m < setup.models.size(); ++m)
    split.models[static_cast<std::size_t>(split.partition.assignment[m])].push_back(m);
  return split;
}

std::unique_ptr<DataPlane> make_data_plane(const std::string& system, const SimulationSetup& setup,
                                           const SimulationSpec& spec, const SubclusterSplit* split) {
  if (spec.options<SymphonyRunOptions>().subclusters <= 1 && !split) return make_single_data_plane(system, setup, spec);
  std::optional<SubclusterSplit> own;
  if (!split) split = &own.emplace(split_subclusters(setup, spec));
  std::vector<DataPlanePart> parts;
  for (std::size_t p = 0; p < split->gpus.size(); ++p) {
    DataPlanePart part{split->models[p], split->gpus[p], nullptr};
    part.plane = make_single_data_plane(system, sub_setup(setup, part), spec);
    parts.push_back(std::move(part));
  }
  return std::make_unique<PartitionedDataPlane>(std::move(parts), setup.models.size(), setup.gpus.size());
}

namespace {

class SymphonyFamily final : public ServingFamily {
 public:
  std::vector<DataPlaneTraits> data_planes() const override {
    std::vector<DataPlaneTraits> out;
    const auto add = [&](const char* name, const char* decides, const char* not_live = "") {
      DataPlaneTraits t;
      t.name = name;
      t.splits_subclusters = true;
      t.not_live = not_live;
      t.decides = decides;
      out.push_back(std::move(t));
    };
    for (const auto& v : kDeferredVariants)
      add(v.name, v.decides);
    add("shepherd",
        "Shepherd batches greedily and preempts a running batch when a much larger one waits (Symphony's "
        "baselines, seed 002 §6); a preempted batch's work is lost and its requests go back to the queue.",
        "shepherd preempts running batches, which live workers cannot do yet");
    add("nexus",
        "Nexus serves each model on the GPUs its squishy bin packing gave it, a batch per duty cycle (Symphony's "
        "baselines, seed 002 §6).");
    return out;
  }

  std::string_view title() const override { return "Symphony"; }
  OptionSchema<SimulationSpec> simulation_options() const override { return symphony_simulation_options(); }

  void place(const Scenario&, const SimulationSpec&, PreparedServing& prepared) const override {
    prepared.result.nominal_capacity_rps = nominal_capacity_rps(prepared.setup);
  }

  void build(const Scenario&, const SimulationSpec& spec, PreparedServing& prepared) const override {
    const auto& setup = prepared.setup;
    auto& result = prepared.result;
    const auto split = split_subclusters(setup, spec);
    std::vector<double> model_rate(setup.models.size(), 0.0);
    for (const auto& st : setup.streams)
      model_rate[st.model] += st.rate_rps;
    for (std::size_t p = 0; p < split.gpus.size(); ++p) {
      SubclusterSummary summary;
      summary.gpus = split.gpus[p].size();
      for (const auto m : split.models[p]) {
        summary.models.push_back(setup.models[m].name);
        summary.rate_rps += model_rate[m];
      }
      result.subclusters.push_back(std::move(summary));
    }
    result.partition_status = to_string(split.partition.status);
    prepared.plane = make_data_plane(spec.system, setup, spec, &split);
    std::vector<BatchLatency> exec;
    for (const auto& m : setup.models)
      exec.push_back(m.latency);
    prepared.times = ExecutionTimes::uniform(std::move(exec), setup.gpus.size());
  }
};

}  // namespace

std::unique_ptr<ServingFamily> symphony_family() {
  return std::make_unique<SymphonyFamily>();
}

}  // namespace servescope::engine

// A planning case rebuilt from one of the PPipe authors' plan files (seed 000 §7; the artifact's
// data/plans/{maf19,maf21,ablation}): the models with the artifact's profiles, the cluster's GPU
// types, the margin and partition count the authors planned with, and their plan to compare
// against. The golden tests, bench_ppipe and the reproduction report all start here.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/ppipe/ppipe_planner.h"
#include "model/import/ppipe_reference_plan.h"

namespace servescope::engine {

struct ReferenceCase {
  std::string name;  // the plan file's name
  ReferencePlanName naming;
  std::vector<ReferenceModelPlan> reference;  // one per model, in the file's (sorted) order
  std::vector<const ModelProfile*> profiles;  // into the cache given to load_reference_case
  std::vector<double> weights;                // per model; 1 for a single model
  std::vector<PlannerGpuType> gpus;
  PpipeOptions options;  // margin, partitions and vGPU sizes as the authors used them

  std::vector<PlannerModel> planner_models() const;
  // min over models of the reference throughput over its weight: the max-min objective.
  double reference_normalised_rps() const;
  // Physical GPUs of each of `gpus`' types the reference plan needs when every partition gets
  // whole GPUs (digest §2.5 fix 5). The authors round per (partition index, type) instead, so a
  // few of their plans hold fractional GPUs per partition and need more than the cluster has.
  std::vector<int> reference_whole_gpus_per_partition() const;
  // Whether the reference plan, so rounded, fits the cluster: the plans our planner can match.
  bool reference_fits_whole_gpus() const;
};

// Whole physical GPUs a partition of the authors' plan holds: its count rounded up, where the
// files print counts like 74.99999517980692 for 75 (a tolerance, not a ceiling, at the edge).
int whole_gpus(const ReferencePartition& partition);
// Whether the file gives the partition a fraction of a GPU (1.5 V100s).
bool fractional_gpus(const ReferencePartition& partition);

// Profiles imported from the artifact, by model name; a case points into it.
using ReferenceProfiles = std::map<std::string, ModelProfile>;

// `data_dir` is the artifact's data/ folder. Throws InputError or QueryError with the file named.
ReferenceCase load_reference_case(const std::filesystem::path& data_dir, const std::filesystem::path& plan_file,
                                  ReferenceProfiles& profiles);

// The plan files of one folder (maf19, maf21, ablation) for one system ("v4", "bl", "dart-r"),
// sorted by name.
std::vector<std::filesystem::path> reference_plan_files(const std::filesystem::path& data_dir,
                                                        const std::string& folder, const std::string& system);

// min over the plan's models of throughput / weight (the max-min objective's value).
double normalised_throughput_rps(const PipelinePlan& plan);

}  // namespace servescope::engine

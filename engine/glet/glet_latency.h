// How long a batch takes on a gpu-let (seed 003 §3.4, §4.1–§4.5; digest §4.1–§4.5 and §4.7): the
// profiled solo latency L(b, p) at glet size p, inflated by the co-located glet's interference
// (the linear L2/DRAM model), a safety factor and a per-batch overhead; from it the largest
// batches that meet the saturated and residue conditions, the saturated-throughput table, the
// most cost-effective size p_eff and the smallest size p_req that carries a given rate.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/core/time.h"
#include "model/profile/model_profile.h"

namespace servescope::engine {

struct GletModel {
  const ModelProfile* profile = nullptr;
  const UtilisationProfile* utilisation = nullptr;  // needed only with an interference model
  double rate_rps = 0;
  Duration slo;
  Duration batch_overhead;  // CPU time to assemble a batch, added to every batch (default 0)
};

// p_eff: the knee of T_sat(p) by marginal gain per percent (the prototype's rule, which never
// considers the last step to 100 %), or the size with the most requests per percent.
enum class KneeRule { MarginalGain, MaxEfficiency };

struct GletLatencyOptions {
  std::string gpu;  // catalog id the profiles are read for
  std::vector<int> sizes{20, 40, 50, 60, 80, 100};
  int max_batch = 32;
  double latency_safety = 1.1;
  std::optional<InterferenceModel> interference;  // none: co-location costs nothing
  KneeRule knee = KneeRule::MarginalGain;
  bool knee_includes_full_step = false;  // also weigh the 80 → 100 step
  // With an interference model, a model without L2/DRAM utilisation is an error (planning), or
  // counts as using neither (the simulator applying interference as ground truth).
  bool require_utilisation = true;
  // Ours, off by default (digest gap 8): a neighbour that runs only part of the time slows a glet
  // only then, so scale the slowdown: α' = 1 + (α − 1) · busy.
  bool weight_by_occupancy = false;
};

// Who runs on the other glet of the same GPU, for the interference factor.
struct Neighbour {
  int model = 0;
  int batch = 1;
  int size_percent = 100;
  double busy = 1;  // fraction of time its batches run (its latency over its glet's duty cycle)
};

struct SaturatedPoint {
  int batch = 0;  // 0: not even a batch of one meets 2·L ≤ SLO
  double throughput_rps = 0;
};

class GletLatency {
 public:
  // Throws QueryError when a model lacks a profile at one of the sizes, or utilisation while an
  // interference model is given.
  GletLatency(std::vector<GletModel> models, GletLatencyOptions options);

  const std::vector<GletModel>& models() const { return models_; }
  const GletLatencyOptions& options() const { return options_; }

  // Solo profiled latency (interpolated in batch by the profile).
  Duration solo(int model, int batch, int size_percent) const;
  // The slowdown of `model` at (batch, size) beside `other`: the linear model, at least 1.
  double interference(int model, int batch, int size_percent, const Neighbour& other) const;
  // max over neighbours (1 with none, or without an interference model).
  double interference(int model, int batch, int size_percent, const std::vector<Neighbour>& others) const;
  // safety · (L · α + overhead)
  Duration effective(int model, int batch, int size_percent, double alpha = 1) const;
  // The same with α from the models on the GPU's other glet, at this batch.
  Duration effective(int model, int batch, int size_percent, const std::vector<Neighbour>& others) const {
    return effective(model, batch, size_percent, interference(model, batch, size_percent, others));
  }

  // Largest b ≤ max_batch with 2·L̃ ≤ SLO; 0 when none. α is either fixed or taken from the
  // neighbours at each candidate batch (a bigger batch is slowed down differently).
  int max_batch_saturated(int model, int size_percent, double alpha = 1) const;
  int max_batch_saturated(int model, int size_percent, const std::vector<Neighbour>& others) const;
  // Largest b with L̃ + b/r ≤ SLO and L̃ ≤ b/r (keeps up); else 1 when batches of one keep up and
  // 2·L̃ ≤ SLO (no gathering: a request waits only for the batch in progress); else 0.
  int max_batch_residue(int model, int size_percent, double rate_rps, double alpha = 1) const;
  int max_batch_residue(int model, int size_percent, double rate_rps, const std::vector<Neighbour>& others) const;

  // Without interference, per size in options().sizes order.
  const SaturatedPoint& saturated(int model, int size_percent) const;
  int efficient_size(int model) const;                                 // p_eff
  std::optional<int> required_size(int model, double rate_rps) const;  // p_req; nullopt: no single glet

 private:
  std::size_t size_index(int size_percent) const;
  int batch_cap(int model, int size_percent) const;
  template <class Alpha>
  int saturated_batch(int model, int size_percent, Alpha alpha) const;
  template <class Alpha>
  int residue_batch(int model, int size_percent, double rate_rps, Alpha alpha) const;

  std::vector<GletModel> models_;
  GletLatencyOptions options_;
  // Dense caches: every search asks for the same few hundred points thousands of times.
  std::vector<std::vector<std::vector<Duration>>> solo_;  // [model][size index][batch − 1], up to the cap
  struct Features {
    double l2 = 0, dram = 0;  // at the whole GPU; scaled by the glet share when used
  };
  std::vector<std::vector<Features>> features_;         // [model][batch − 1]
  std::vector<std::vector<SaturatedPoint>> saturated_;  // [model][size index]
  std::vector<int> efficient_;
};

// A model's L2 and DRAM utilisation at a batch, alone on the whole GPU (0 without a profile).
struct UtilisationAt {
  double l2 = 0, dram = 0;
};
UtilisationAt utilisation_at(const UtilisationProfile* profile, int batch);

// The linear model's slowdown of (self at batch b on p %) beside (other at b_o on p_o %), at least
// 1. Features are Nsight utilisation measured alone on the whole GPU, interpolated in batch and
// scaled by the glet's share; a model without utilisation counts as using neither.
double interference_factor(const InterferenceModel& model, const UtilisationProfile* self, int batch, int size_percent,
                           const UtilisationProfile* other, int other_batch, int other_size_percent);

// Batch interval b/r as a duration: the time a residue glet needs to gather b requests.
Duration gather_time(int batch, double rate_rps);

}  // namespace servescope::engine

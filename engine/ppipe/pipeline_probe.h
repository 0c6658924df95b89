// probe() and reserve() of PPipe's data plane (seed 000 §5.2, Algorithm 2; digest §4.3–§4.4):
// for one pooled pipeline and batch size, walk the partitions and pick, stage by stage, the
// vGPU of the pool that finishes this stage first, counting the transfer into it on the
// sender's uplink and the receiver's downlink together. probe() has no side effects; reserve()
// writes the offer into the reservation table.
#pragma once

#include <array>
#include <cstdint>

#include "engine/ppipe/pipeline_deployment.h"
#include "engine/ppipe/reservation_table.h"
#include "engine/ppipe/slot_pace.h"

namespace servescope::engine {

inline constexpr int kMaxPipelineStages = 4;

struct ProbeOptions {
  // Hand-offs between two vGPUs of one server skip the NIC (digest §4.3: the artifact always
  // charges the network, which is the default).
  bool local_handoff_free = false;
  // The artifact's refinement: a non-final stage's candidate is scored by when its uplink could
  // start the hand-off, so a vGPU whose NIC is jammed is avoided. On by default since issue 49: over the authors' 72
  // maf19 models it never lost more than 0.01 point and kept up to 27 (a full uplink).
  bool avoid_jammed_uplink = true;
};

struct StageOffer {
  std::uint32_t gpu = 0;  // slot
  Time link_start;        // the transfer into this stage (stages after the first)
  Duration link;          // 0: no transfer reserved
  Time start;             // inference
  Duration run;           // at the vGPU's pace
  Duration profiled;      // the profile's time for the batch
  // Once reserved: the inference's and the link's reservations, for their corrections.
  ReservationTable::ReservationId reserved_run = 0, reserved_uplink = 0, reserved_downlink = 0;
};

struct Offer {
  std::uint32_t pipeline = 0;
  int batch = 0;
  int stages = 0;
  std::array<StageOffer, kMaxPipelineStages> stage{};
  Time finish;
  Duration wait;  // time spent waiting for resources along the path (the paper's waitTime)
};

class PipelineProber {
 public:
  // Both must outlive the prober.
  PipelineProber(const PipelineDeployment& deployment, ReservationTable& table, ProbeOptions options = {});

  // Resources: slot g is g; NIC n's uplink and downlink follow the slots (one NIC per server,
  // unless the deployment's network layout says otherwise).
  static std::size_t resource_count(const PipelineDeployment& d) { return d.slots.size() + 2 * d.nic_count(); }
  std::uint32_t uplink(std::uint32_t nic) const { return slots_ + 2 * nic; }
  std::uint32_t downlink(std::uint32_t nic) const { return slots_ + 2 * nic + 1; }
  // The links a slot sends and receives through.
  std::uint32_t uplink_of(std::uint32_t slot) const { return uplink(d_.nic_of(slot)); }
  std::uint32_t downlink_of(std::uint32_t slot) const { return downlink(d_.nic_of(slot)); }

  // The best placement of a batch of `batch` on `pipeline` from `now`. When every vGPU of some
  // stage's pool is gone (live mode), the offer is infeasible: finish and wait are kNever.
  Offer probe(std::uint32_t pipeline, int batch, Time now) const;
  void reserve(Offer& offer);
  // The transfer time of a batch entering `stage` from slot `from` to slot `to`; 0 when local
  // hand-offs are free and both are on one server.
  Duration transfer_time(std::uint32_t from, std::uint32_t to, std::int64_t bytes) const;

  // Live mode: a vGPU whose worker is lost is skipped by every probe until it is back.
  void set_gone(std::uint32_t slot, bool gone) {
    if (slot < gone_.size()) gone_[slot] = gone;
  }
  bool gone(std::uint32_t slot) const { return slot < gone_.size() && gone_[slot]; }

  // Each vGPU's learned pace (the reservation plane's feedback): probes reserve at it.
  SlotPace& pace() { return pace_; }
  const SlotPace& pace() const { return pace_; }

  const ProbeOptions& options() const { return options_; }
  std::uint64_t probes() const { return probes_; }

 private:
  const PipelineDeployment& d_;
  ReservationTable& table_;
  ProbeOptions options_;
  std::uint32_t slots_ = 0;
  std::vector<bool> gone_;  // per slot
  SlotPace pace_;
  mutable std::uint64_t probes_ = 0;
};

}  // namespace servescope::engine

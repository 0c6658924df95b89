#include "engine/ppipe/pipeline_probe.h"

#include <algorithm>

#include "model/core/error.h"

namespace servescope::engine {

PipelineProber::PipelineProber(const PipelineDeployment& deployment, ReservationTable& table, ProbeOptions options)
    : d_(deployment),
      table_(table),
      options_(options),
      slots_(static_cast<std::uint32_t>(deployment.slots.size())),
      gone_(deployment.slots.size(), false),
      pace_(deployment.slots.size()) {
  if (table_.size() < resource_count(d_))
    throw std::invalid_argument("PipelineProber: the reservation table has too few resources");
  for (const auto& p : d_.pipelines)
    if (p.stages.empty() || p.stages.size() > kMaxPipelineStages)
      throw QueryError("a pipeline of model '" + d_.models[p.model] + "' has " + std::to_string(p.stages.size()) +
                       " partitions; the data plane handles 1 to " + std::to_string(kMaxPipelineStages));
}

Duration PipelineProber::transfer_time(std::uint32_t from, std::uint32_t to, std::int64_t bytes) const {
  return d_.transfer_time(from, to, bytes, options_.local_handoff_free);
}

Offer PipelineProber::probe(std::uint32_t pipeline, int batch, Time now) const {
  ++probes_;
  const auto& p = d_.pipelines[pipeline];
  Offer o;
  o.pipeline = pipeline;
  o.batch = batch;
  o.stages = static_cast<int>(p.stages.size());
  Time ready = now;
  Duration work;
  std::uint32_t prev = 0;
  for (int s = 0; s < o.stages; ++s) {
    const auto& stage = p.stages[static_cast<std::size_t>(s)];
    const Duration profiled = stage.latency.at(batch);
    const bool last = s + 1 == o.stages;
    StageOffer best;
    Time best_end = kNever, best_score = kNever;
    Duration best_link;
    bool any = false;
    for (const auto g : stage.pool) {
      if (gone(g)) continue;
      any = true;
      const Duration run = pace_.paced(g, batch, profiled);
      StageOffer c{g, Time(), Duration(), Time(), run, profiled};
      Time t = ready;
      if (s > 0) {
        c.link = transfer_time(prev, g, stage.in_bytes_per_sample * batch);
        if (c.link > Duration()) {
          const std::array<std::uint32_t, 2> ends{uplink_of(prev), downlink_of(g)};
          t = table_.earliest_slot(ends, t, c.link);
        }
        c.link_start = t;
        t += c.link;
      }
      c.start = table_.earliest_slot(g, t, run);
      const Time end = c.start + run;
      // Strict <: ties go to the first vGPU in pool order. Avoiding a busy uplink, a candidate is
      // scored by when its output could start leaving: the first time from `end` its uplink is
      // free for the hand-off (in horizon tables, the later of `end` and the uplink's busy-until,
      // the artifact's rule; gap-filling tables find the gaps too).
      Time score = end;
      if (!last && options_.avoid_jammed_uplink) {
        // Which receiver is not chosen yet: the hand-off is timed on the sender's uplink alone.
        const auto bytes = p.stages[static_cast<std::size_t>(s + 1)].in_bytes_per_sample * batch;
        const Duration out = servescope::transfer_time(bytes, d_.nic(d_.nic_of(g)).up_gbps);
        if (out > Duration()) score = table_.earliest_slot(uplink_of(g), end, out);
      }
      if (score < best_score) {
        best = c;
        best_end = end;
        best_score = score;
        best_link = c.link;
      }
    }
    if (!any) {  // no vGPU left in this stage's pool
      o.finish = kNever;
      o.wait = kNever;
      return o;
    }
    o.stage[static_cast<std::size_t>(s)] = best;
    work += best.run + best_link;
    ready = best_end;
    prev = best.gpu;
  }
  o.finish = ready;
  o.wait = o.finish - now - work;
  return o;
}

void PipelineProber::reserve(Offer& o) {
  std::uint32_t prev = 0;
  for (int s = 0; s < o.stages; ++s) {
    auto& st = o.stage[static_cast<std::size_t>(s)];
    if (s > 0 && st.link > Duration()) {
      st.reserved_uplink = table_.reserve(uplink_of(prev), st.link_start, st.link);
      st.reserved_downlink = table_.reserve(downlink_of(st.gpu), st.link_start, st.link);
    }
    st.reserved_run = table_.reserve(st.gpu, st.start, st.run);
    prev = st.gpu;
  }
}

}  // namespace servescope::engine

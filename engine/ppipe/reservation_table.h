// PPipe's picture of the future (seed 000 §5.2, digest §4.1–§4.2 and §4.6): every (v)GPU and
// every node's uplink and downlink is a resource with a table of reserved intervals, and the
// scheduler asks for the earliest moment a set of resources is free together for a given time.
// Horizon mode keeps only "busy until" per resource (the artifact's O(1) rule, no back-filling);
// gap-filling mode keeps the sorted intervals and may place work in an earlier hole.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/dataplane/request.h"

namespace servescope::engine {

enum class ReservationMode : std::uint8_t { Horizon, GapFilling };

class ReservationTable {
 public:
  using Resource = std::uint32_t;
  // Names one reservation, so that its correction finds it wherever earlier overruns pushed it.
  using ReservationId = std::uint64_t;

  ReservationTable() = default;
  ReservationTable(std::size_t resources, ReservationMode mode);

  ReservationMode mode() const { return mode_; }
  std::size_t size() const { return busy_until_.size(); }

  // The earliest s ≥ t at which every resource in `resources` is free on [s, s + length).
  Time earliest_slot(std::span<const Resource> resources, Time t, Duration length) const;
  Time earliest_slot(Resource r, Time t, Duration length) const {
    return earliest_slot(std::span<const Resource>(&r, 1), t, length);
  }
  // Marks [start, start + length) busy. The caller found the slot with earliest_slot().
  ReservationId reserve(Resource r, Time start, Duration length);

  // Feedback correction: reservation `id`, made as [planned_start, planned_start + planned_length),
  // really ran [actual_start, actual_end). An overrun pushes the resource's later reservations
  // back in order; an early finish gives the tail back. In gap-filling mode a reservation an
  // earlier overrun pushed is found by its id and corrected from where it was pushed to, so lag
  // that builds up batch after batch stays in the table (the executor runs them back to back).
  // Horizon mode keeps no intervals and shifts its one horizon by the overrun over the plan.
  void correct(Resource r, ReservationId id, Time planned_start, Duration planned_length, Time actual_start,
               Time actual_end);

  // The end of the last reservation on `r` (horizon mode's whole state).
  Time busy_until(Resource r) const { return busy_until_[r]; }
  // Forgets intervals that ended at or before `t`: they can no longer constrain a slot at or
  // after `t`. Keeps gap-filling lists short; a no-op in horizon mode.
  void forget_before(Time t);
  // Reserved intervals still remembered on `r` (gap-filling mode; horizon mode reports one).
  std::size_t intervals(Resource r) const;

 private:
  struct Interval {
    Time start, end;
    ReservationId id = 0;
  };
  // First interval on `r` that ends after `t`.
  std::vector<Interval>::const_iterator first_ending_after(Resource r, Time t) const;

  ReservationMode mode_ = ReservationMode::Horizon;
  std::vector<Time> busy_until_;
  std::vector<std::vector<Interval>> busy_;  // gap-filling mode: sorted, disjoint
  ReservationId next_id_ = 1;
};

}  // namespace servescope::engine

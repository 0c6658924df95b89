#include "engine/ppipe/reservation_table.h"

#include <algorithm>

namespace servescope::engine {

ReservationTable::ReservationTable(std::size_t resources, ReservationMode mode)
    : mode_(mode), busy_until_(resources, kMinusInfinity) {
  if (mode_ == ReservationMode::GapFilling) busy_.resize(resources);
}

std::vector<ReservationTable::Interval>::const_iterator ReservationTable::first_ending_after(Resource r, Time t) const {
  // Intervals are disjoint and sorted by start, so their ends are sorted too.
  const auto& list = busy_[r];
  return std::ranges::upper_bound(list, t, {}, &Interval::end);
}

Time ReservationTable::earliest_slot(std::span<const Resource> resources, Time t, Duration length) const {
  if (mode_ == ReservationMode::Horizon) {
    Time s = t;
    for (const auto r : resources)
      s = std::max(s, busy_until_[r]);
    return s;
  }
  // Push s past whichever interval blocks it until one pass over every resource moves nothing:
  // s only grows, and each move jumps to the end of a reservation, so this ends.
  Time s = t;
  for (bool moved = true; moved;) {
    moved = false;
    for (const auto r : resources) {
      if (busy_until_[r] <= s) continue;  // nothing reserved from s on: the common case, no search
      const auto it = first_ending_after(r, s);
      if (it != busy_[r].end() && it->start < s + length) {
        s = it->end;
        moved = true;
      }
    }
  }
  return s;
}

ReservationTable::ReservationId ReservationTable::reserve(Resource r, Time start, Duration length) {
  const Time end = start + length;
  const auto id = next_id_++;
  busy_until_[r] = std::max(busy_until_[r], end);
  if (mode_ == ReservationMode::GapFilling) {
    auto& list = busy_[r];
    list.insert(std::ranges::upper_bound(list, start, {}, &Interval::start), Interval{start, end, id});
  }
  return id;
}

void ReservationTable::correct(Resource r, ReservationId id, Time planned_start, Duration planned_length,
                               Time actual_start, Time actual_end) {
  const Time planned_end = planned_start + planned_length;
  if (mode_ == ReservationMode::Horizon) {
    // Everything reserved after this use sits behind it: an overrun shifts it all; an early
    // finish frees time only when nothing was reserved behind.
    if (actual_end > planned_end)
      busy_until_[r] += actual_end - planned_end;
    else if (busy_until_[r] == planned_end)
      busy_until_[r] = actual_end;
    return;
  }
  auto& list = busy_[r];
  // Overruns only ever push a reservation later: it is at or after where it was made.
  auto it = std::ranges::lower_bound(list, planned_start, {}, &Interval::start);
  while (it != list.end() && it->id != id)
    ++it;
  if (it == list.end()) return;  // already forgotten
  it->start = actual_start;
  it->end = actual_end;
  // Replay the later reservations first-come first-served behind the corrected one.
  for (Time prev_end = actual_end; ++it != list.end() && it->start < prev_end;) {
    const Duration len = it->end - it->start;
    it->start = prev_end;
    it->end = prev_end + len;
    prev_end = it->end;
  }
  busy_until_[r] = list.back().end;
}

void ReservationTable::forget_before(Time t) {
  if (mode_ != ReservationMode::GapFilling) return;
  for (auto& list : busy_)
    if (!list.empty() && list.front().end <= t)
      list.erase(list.begin(), std::ranges::upper_bound(list, t, {}, &Interval::end));
}

std::size_t ReservationTable::intervals(Resource r) const {
  if (mode_ == ReservationMode::Horizon) return busy_until_[r] == kMinusInfinity ? 0 : 1;
  return busy_[r].size();
}

}  // namespace servescope::engine

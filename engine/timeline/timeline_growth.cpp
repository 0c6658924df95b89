#include "engine/timeline/timeline_growth.h"

#include <algorithm>
#include <limits>

namespace servescope::engine {
namespace {

bool by_start_then_slot(const TimelineSpan& a, const TimelineSpan& b) {
  return a.start < b.start || (a.start == b.start && a.gpu < b.gpu);
}

// Appends `add` to the ordered `into` and merges it in, stably (what was there first stays
// first among equals). Returns where `into` began to change.
template <class T, class Less>
std::size_t merge_in(std::vector<T>& into, std::vector<T>& add, Less less) {
  if (add.empty()) return into.size();
  std::ranges::stable_sort(add, less);
  const auto first = static_cast<std::size_t>(std::ranges::upper_bound(into, add.front(), less) - into.begin());
  const auto middle = static_cast<std::ptrdiff_t>(into.size());
  into.insert(into.end(), std::make_move_iterator(add.begin()), std::make_move_iterator(add.end()));
  std::inplace_merge(into.begin() + static_cast<std::ptrdiff_t>(first), into.begin() + middle, into.end(), less);
  return first;
}

// How many leading entries of the ordered `from` lie before `t`, erased.
template <class T, class Key>
std::size_t erase_before(std::vector<T>& from, Time t, Key key) {
  const auto cut = std::ranges::lower_bound(from, t, {}, key) - from.begin();
  from.erase(from.begin(), from.begin() + cut);
  return static_cast<std::size_t>(cut);
}

}  // namespace

TimelineChange append(TimelineData& data, TimelineChunk chunk) {
  for (auto& s : chunk.spans) {
    s.requests_at += data.requests.size();
    data.end = std::max(data.end, s.end);
  }
  for (const auto& t : chunk.transfers)
    data.end = std::max(data.end, t.end);
  for (const auto& q : chunk.queue)
    data.end = std::max(data.end, q.time);
  for (const auto& n : chunk.notices)
    data.end = std::max(data.end, n.time);
  data.requests.insert(data.requests.end(), chunk.requests.begin(), chunk.requests.end());
  TimelineChange change;
  change.spans = merge_in(data.spans, chunk.spans, by_start_then_slot);
  change.transfers = merge_in(data.transfers, chunk.transfers,
                              [](const TransferSpan& a, const TransferSpan& b) { return a.start < b.start; });
  change.queue =
      merge_in(data.queue, chunk.queue, [](const QueueSample& a, const QueueSample& b) { return a.time < b.time; });
  change.drops =
      merge_in(data.drops, chunk.drops, [](const DropMark& a, const DropMark& b) { return a.time < b.time; });
  change.notices =
      merge_in(data.notices, chunk.notices, [](const RunNotice& a, const RunNotice& b) { return a.time < b.time; });
  return change;
}

TimelineCut forget_before(TimelineData& data, Time t) {
  TimelineCut cut;
  cut.spans = erase_before(data.spans, t, &TimelineSpan::start);
  cut.transfers = erase_before(data.transfers, t, &TransferSpan::start);
  cut.queue = erase_before(data.queue, t, &QueueSample::time);
  cut.drops = erase_before(data.drops, t, &DropMark::time);
  cut.notices = erase_before(data.notices, t, &RunNotice::time);
  if (cut.spans == 0) return cut;
  // Requests are kept in the order chunks came, which is not the spans' order: let go of those
  // before the first a kept span needs (a few let go spans' requests stay until the next cut).
  std::uint64_t first = data.requests.size();
  for (const auto& s : data.spans)
    first = std::min(first, s.requests_at);
  data.requests.erase(data.requests.begin(), data.requests.begin() + static_cast<std::ptrdiff_t>(first));
  for (auto& s : data.spans)
    s.requests_at -= first;
  return cut;
}

}  // namespace servescope::engine

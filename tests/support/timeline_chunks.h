// A run's timeline cut as a live stream delivers it, for tests of a timeline that grows
// (engine/timeline/timeline_growth.h, the Live tab's view).
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

#include "engine/timeline/timeline_data.h"

namespace servescope::test {

// The slots and models of `t`, without anything that ran on them.
inline engine::TimelineData layout_of(const engine::TimelineData& t) {
  engine::TimelineData out;
  static_cast<engine::RunLayout&>(out) = t;
  out.physical_names = t.physical_names;
  return out;
}

// The run as a live stream delivers it: a chunk per `step` of run time, holding the batches and
// transfers that ended in it (batches in the order they ended, each with its own requests) and
// the queue samples and drops of that time.
inline std::vector<engine::TimelineChunk> chunks_of(const engine::TimelineData& t, Duration step) {
  std::vector<engine::TimelineChunk> chunks(static_cast<std::size_t>(t.end.count_ns() / step.count_ns()) + 1);
  const auto at = [&](engine::Time time) -> engine::TimelineChunk& {
    return chunks[static_cast<std::size_t>(std::max<std::int64_t>(0, time.count_ns()) / step.count_ns())];
  };
  std::vector<std::size_t> by_end(t.spans.size());
  std::iota(by_end.begin(), by_end.end(), 0u);
  std::ranges::stable_sort(by_end, {}, [&](std::size_t i) { return t.spans[i].end; });
  for (const auto i : by_end) {
    auto& chunk = at(t.spans[i].end);
    auto span = t.spans[i];
    span.requests_at = chunk.requests.size();
    const auto requests = t.requests_of(i);
    chunk.requests.insert(chunk.requests.end(), requests.begin(), requests.end());
    chunk.spans.push_back(span);
  }
  for (const auto& transfer : t.transfers)
    at(transfer.end).transfers.push_back(transfer);
  for (const auto& sample : t.queue)
    at(sample.time).queue.push_back(sample);
  for (const auto& drop : t.drops)
    at(drop.time).drops.push_back(drop);
  return chunks;
}

}  // namespace servescope::test

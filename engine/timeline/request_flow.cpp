#include "engine/timeline/request_flow.h"

#include <algorithm>
#include <unordered_set>

namespace servescope::engine {

std::vector<FlowStep> flow_of(const TimelineData& data, const TimelineIndex& index, std::uint32_t span) {
  std::vector<FlowStep> steps;
  if (span >= data.spans.size()) return steps;
  std::unordered_set<BatchId> batches;
  for (const auto i : index.linked(span)) {
    const auto& s = data.spans[i];
    steps.push_back({FlowStep::Kind::Batch, i, s.start, s.end});
    batches.insert(s.batch);
  }
  for (std::uint32_t t = 0; t < data.transfers.size(); ++t) {
    const auto& transfer = data.transfers[t];
    if (batches.contains(transfer.batch)) steps.push_back({FlowStep::Kind::Transfer, t, transfer.start, transfer.end});
  }
  // Time order; a transfer that starts as its batch ends comes after that batch.
  std::ranges::stable_sort(steps, [](const FlowStep& a, const FlowStep& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  });
  return steps;
}

std::optional<std::uint32_t> first_batch_of_request(const TimelineData& data, RequestId id) {
  // Spans are sorted by start, so the first that carries it is the earliest.
  for (std::uint32_t i = 0; i < data.spans.size(); ++i)
    for (const auto& r : data.requests_of(i))
      if (r.id == id) return i;
  return std::nullopt;
}

}  // namespace servescope::engine

// A small made-up run for timeline tests: four slots on two GPUs (two servers), two models
// alternating, batches of 100–900 µs with gaps over about 40 ms, every 17th batch late, and one
// two-stage batch whose feature map crosses the network.
#pragma once

#include <algorithm>
#include <memory>
#include <random>

#include "engine/timeline/timeline_data.h"

namespace servescope::test {

inline std::shared_ptr<engine::TimelineData> synthetic_timeline() {
  auto t = std::make_shared<engine::TimelineData>();
  t->system = "synthetic";
  t->models = {"alpha", "beta"};
  t->model_slo = {Duration::milliseconds(5), Duration::milliseconds(5)};
  t->gpus = {"g0/v0", "g0/v1", "g1/v0", "g1/v1"};
  t->gpu_physical = {0, 0, 1, 1};
  t->gpu_shares = {"1/2", "1/2", "1/2", "1/2"};
  t->gpu_types = {"V100", "V100", "V100", "V100"};
  t->physical_names = {"g0", "g1"};
  std::mt19937 rng(3);
  for (std::uint32_t g = 0; g < 4; ++g) {
    auto at = Duration::microseconds(std::int64_t{50} * g);
    for (int k = 0; k < 60; ++k) {
      const auto len = Duration::microseconds(100 + static_cast<std::int64_t>(rng() % 800));
      t->spans.push_back({static_cast<std::uint64_t>(t->spans.size()),
                          g,
                          static_cast<std::uint32_t>(k % 2),
                          4,
                          at,
                          at + len,
                          false,
                          k % 17 == 0 ? 1u : 0u,
                          static_cast<std::uint64_t>(t->spans.size()),
                          {},
                          {}});
      at = at + len + Duration::microseconds(static_cast<std::int64_t>(rng() % 100));
    }
  }
  std::ranges::stable_sort(t->spans, [](const engine::TimelineSpan& a, const engine::TimelineSpan& b) {
    return a.start < b.start || (a.start == b.start && a.gpu < b.gpu);
  });
  // One two-stage batch: a span on g0/v0 whose output moves to g1/v0 (servers s0 and s1) and
  // runs there as the next stage, linked by its first request (PPipe Fig. 12).
  t->gpu_server = {0, 0, 1, 1};
  t->server_names = {"s0", "s1"};
  const auto first = std::ranges::find_if(
      t->spans, [](const engine::TimelineSpan& s) { return s.gpu == 0 && s.start >= Duration::milliseconds(10); });
  const auto transfer_end = first->end + Duration::microseconds(100);
  const auto second = std::ranges::find_if(t->spans, [&](const engine::TimelineSpan& s) {
    return s.gpu == 2 && s.start >= transfer_end + Duration::microseconds(50);
  });
  second->first_request = first->first_request;
  t->transfers.push_back({0, first->batch, 0, 2, 1'000'000, first->end, transfer_end});
  // Four requests per batch, arrived 1–4 ms before it started (5 ms SLO); the second stage
  // carries the first stage's requests.
  for (auto& s : t->spans) {
    s.requests_at = t->requests.size();
    const auto id_base = s.first_request * 4;
    for (std::uint64_t j = 0; j < s.size; ++j) {
      const auto arrival = s.start - Duration::milliseconds(static_cast<std::int64_t>(1 + j));
      t->requests.push_back({id_base + j, arrival, arrival + Duration::milliseconds(5)});
    }
  }
  // Three drops of alpha requests.
  for (const int ms : {5, 15, 25})
    t->drops.push_back({Duration::milliseconds(ms), 0, engine::DropReason::DeadlineUnreachable,
                        static_cast<engine::RequestId>(1'000'000 + ms), Duration::milliseconds(ms - 3),
                        Duration::milliseconds(ms + 7)});
  for (const auto& s : t->spans)
    t->end = std::max(t->end, s.end);
  return t;
}

}  // namespace servescope::test

// Modules and applications from the cost papers' tables (Piccolo seed 001 Table I, Harpagon seed
// 004 Table I and the M4 dispatch example), written as (batch, duration in seconds) pairs with
// price 1 unless a test says otherwise.
#pragma once

#include <utility>
#include <vector>

#include "engine/cost/cost_problem.h"

namespace servescope::test {

struct BD {
  int batch;
  double duration_s;
  double price = 1;
  const char* hw = "hw";
};

inline engine::CostModule cost_module(const char* id, double rate, const std::vector<BD>& rows) {
  engine::CostModule m;
  m.id = id;
  m.model = id;
  m.rate_rps = rate;
  for (const auto& r : rows)
    m.configs.push_back(engine::make_cost_config(r.hw, r.batch, 1, Duration::from_s(r.duration_s), r.price));
  engine::sort_configs(m.configs, rate);
  return m;
}

// Piccolo Table I.
inline std::vector<BD> piccolo_m1() {
  return {{5, 0.100}, {20, 0.250}, {100, 1.000}};
}
inline std::vector<BD> piccolo_m2() {
  return {{2, 0.125}, {4, 0.160}, {8, 0.267}};
}
inline std::vector<BD> piccolo_m3() {
  return {{2, 0.167}, {4, 0.200}, {8, 0.320}};
}
// Harpagon Table I.
inline std::vector<BD> harpagon_m1() {
  return {{2, 0.16}, {4, 0.20}, {8, 0.32}};
}
inline std::vector<BD> harpagon_m2() {
  return {{2, 0.125}, {4, 0.16}, {8, 0.25}};
}
inline std::vector<BD> harpagon_m3() {
  return {{2, 0.10}, {8, 0.25}, {32, 0.80}};
}

inline engine::CostProblem cost_chain(std::vector<engine::CostModule> modules, double slo_s) {
  engine::CostProblem p;
  p.name = "chain";
  p.slo = Duration::from_s(slo_s);
  for (std::size_t k = 0; k + 1 < modules.size(); ++k)
    p.edges.emplace_back(k, k + 1);
  p.modules = std::move(modules);
  return p;
}

}  // namespace servescope::test

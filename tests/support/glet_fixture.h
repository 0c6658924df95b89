// A small gpu-let scenario for tests: the paper's testbed (two servers with two RTX 2080 Ti each),
// three models with table profiles at every glet size, utilisation for two of them and the RTX
// 2080 Ti interference coefficients (seed 003 §4.7, digest TC12), one Poisson workload.
#pragma once

#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include "engine/glet/elastic_partitioning.h"

namespace servescope::test {

// The digest's toy model A (glet digest §7): L(b, p) = c + scale · β(p) · b ms for b = 1..32.
inline const std::map<int, double>& toy_a_beta() {
  static const std::map<int, double> beta = {{20, 3.0}, {40, 1.5}, {50, 1.25}, {60, 1.1}, {80, 1.0}, {100, 1.0}};
  return beta;
}

inline ModelProfile affine_glet_profile(const std::string& name, double c_ms, double scale = 1,
                                        const std::map<int, double>& beta = toy_a_beta()) {
  ModelProfile p;
  p.name = name;
  p.form = ProfileForm::Table;
  for (const auto& [size, slope] : beta) {
    std::vector<Duration> lat;
    for (int b = 1; b <= 32; ++b)
      lat.push_back(Duration::from_us(1000 * (c_ms + scale * slope * b)));
    p.batch_tables.push_back({"RTX2080Ti", GpuShare::percent(size), BatchCurve(batch_range(32), lat)});
  }
  return p;
}

// The worked examples' settings: safety factor 1, no interference.
inline engine::GletLatencyOptions toy_latency_options() {
  engine::GletLatencyOptions o;
  o.gpu = "RTX2080Ti";
  o.latency_safety = 1.0;
  return o;
}

// Every model's whole rate placed: no slack, no shortfall tolerated.
inline engine::GletPlannerOptions exact_planner_options() {
  engine::GletPlannerOptions o;
  o.rate_epsilon_rps = 1e-6;
  o.rate_epsilon_fraction = 0;
  o.shortfall_tolerance = 0;
  return o;
}

// A table profile over the glet sizes: L(b, p) = c + w·b / (p/100)^0.7 ms (bigger glets help,
// with diminishing returns).
inline std::string glet_model_json(const std::string& name, double c_ms, double w_ms) {
  std::ostringstream o;
  o << R"({"name": ")" << name << R"(", "form": "table", "tables": [)";
  bool first = true;
  for (const int p : {20, 40, 50, 60, 80, 100}) {
    o << (first ? "" : ",") << R"({"gpu": "RTX2080Ti", "share": ")" << p << R"(%", "batches": [)";
    for (int b = 1; b <= 32; ++b)
      o << (b > 1 ? "," : "") << b;
    o << R"(], "latency_us": [)";
    for (int b = 1; b <= 32; ++b)
      o << (b > 1 ? "," : "") << 1000 * (c_ms + w_ms * b / std::pow(p / 100.0, 0.7));
    o << "]}";
    first = false;
  }
  o << "]}";
  return o.str();
}

inline std::string glet_utilisation_json(const std::string& name, double l2, double dram) {
  std::ostringstream o;
  o << R"({"model": ")" << name << R"(", "gpu": "RTX2080Ti", "samples": [{"batch": 1, "sm_util": 0.2, "l2_util": )"
    << l2 / 2 << R"(, "dram_util": )" << dram / 2 << R"(}, {"batch": 32, "sm_util": 0.9, "l2_util": )" << l2
    << R"(, "dram_util": )" << dram << "}]}";
  return o.str();
}

// Two RTX 2080 Ti servers with two GPUs each (the paper's testbed), models a (light) and b
// (heavy), one Poisson workload with both, and the 2080 Ti interference coefficients.
inline std::string glet_scenario_json(double rate_rps, const std::string& extra_target = "") {
  std::ostringstream o;
  o << R"({"schema_version": 1, "kind": "scenario", "name": "glet fixture",
  "cluster": {"name": "2x2 2080 Ti", "nodes": [
    {"name": "srv", "gpu": "RTX2080Ti", "gpu_count": 2, "count": 2, "nic_up_gbps": 10, "nic_down_gbps": 10}]},
  "profiles": [)"
    << glet_model_json("a", 1.5, 0.25) << "," << glet_model_json("b", 3, 0.9) << "," << glet_model_json("c", 2, 0.5)
    << R"(],
  "utilisation": [)"
    << glet_utilisation_json("a", 0.2, 0.4) << "," << glet_utilisation_json("b", 0.3, 0.5) << ","
    << glet_utilisation_json("c", 0.25, 0.45) << R"(],
  "interference": [{"gpu": "RTX2080Ti", "l2_self": 0.11291, "l2_other": 0.71596, "dram_self": 0.35487,
                    "dram_other": 0.08820, "constant": 0.89537}],
  "workloads": [{"name": "w", "rate_rps": )"
    << rate_rps << R"(, "arrival": {"process": "poisson"},
    "targets": [{"model": "a", "slo_us": 30000}, {"model": "b", "slo_us": 80000})"
    << extra_target << "]}]}";
  return o.str();
}

}  // namespace servescope::test

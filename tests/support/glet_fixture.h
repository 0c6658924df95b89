// A small gpu-let scenario for tests: the paper's testbed (two servers with two RTX 2080 Ti each),
// three models with table profiles at every glet size, utilisation for two of them and the RTX
// 2080 Ti interference coefficients (seed 003 §4.7, digest TC12), one Poisson workload.
#pragma once

#include <cmath>
#include <sstream>
#include <string>

namespace servescope::test {

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

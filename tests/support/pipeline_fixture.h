// A small heterogeneous scenario for pipeline planners and data planes: one V100 server of two
// GPUs and four single-P4 servers on 6 Gbps NICs, and a 4-block segmentation-like model whose
// whole network misses its SLO on a P4 (so the best plan pipelines P4 blocks into a V100).
// Synthetic numbers, written for the tests; not measurements.
#pragma once

namespace servescope::test {

inline constexpr const char* kPipelineScenarioJson = R"({
  "schema_version": 1, "kind": "scenario", "name": "pipeline fixture",
  "cluster": {"name": "1x2 V100 + 4x P4", "nodes": [
    {"name": "v100", "gpu": "V100", "gpu_count": 2, "count": 1, "nic_up_gbps": 6, "nic_down_gbps": 6},
    {"name": "p4", "gpu": "P4", "gpu_count": 1, "count": 4, "nic_up_gbps": 6, "nic_down_gbps": 6}]},
  "profiles": [
    {"name": "seg", "form": "blocks", "blocks": 4, "boundary_bytes": [2097152, 1048576, 524288],
     "default_slo_us": 22500,
     "tables": [
       {"gpu": "V100", "share": "1", "latency_us": [
         [1000, 1600, 2200, 2800], [1500, 2400, 3300, 4200], [1200, 1900, 2600, 3300], [800, 1300, 1800, 2300]]},
       {"gpu": "V100", "share": "1/2", "latency_us": [
         [1700, 2720, 3740, 4760], [2550, 4080, 5610, 7140], [2040, 3230, 4420, 5610], [1360, 2210, 3060, 3910]]},
       {"gpu": "P4", "share": "1", "latency_us": [
         [5000, 8000, 11000, 14000], [7500, 12000, 16500, 21000], [6000, 9500, 13000, 16500],
         [4000, 6500, 9000, 11500]]}]}],
  "workloads": [
    {"name": "seg-poisson", "rate_rps": 500, "arrival": {"process": "poisson"}, "targets": [{"model": "seg"}]},
    {"name": "seg-bursty", "rate_rps": 500, "arrival": {"process": "gamma", "shape": 0.25},
     "targets": [{"model": "seg"}]}]
})";

}  // namespace servescope::test

// gpu-let planner speed (seed 003; BENCHMARKS.md): one Elastic Partitioning pass for the paper's 9
// models on 16 GPUs (target ≤ 1 ms), and the paper's §3.2 grid — every non-empty mix of the 9
// models at 0, 100 or 200 req/s, 3^9 − 1 = 19,682 scenarios — planned on 4 GPUs by glet+int and
// by the exhaustive ideal over all 256 fixed layouts (target ≤ 60 s in all). The models are
// synthetic (engine/glet/synthetic_profile.h, calibrated to the paper's Table 4 SLOs) so the
// benchmark needs no reference data; the interference coefficients are the RTX 2080 Ti's from
// ../shared/data/glet when present, else a stand-in of the same shape.
#include <benchmark/benchmark.h>
#include <filesystem>
#include <iostream>

#include "engine/glet/glet_baselines.h"
#include "engine/glet/synthetic_profile.h"
#include "model/import/glet_import.h"
#include "model/io/file_io.h"

using namespace servescope;
using namespace servescope::engine;

namespace {

const std::vector<int> kSizes = {20, 40, 50, 60, 80, 100};

struct PaperModels {
  std::vector<ModelProfile> profiles;
  std::vector<UtilisationProfile> utilisation;
  InterferenceModel interference;
  std::string interference_source;
};

const PaperModels& paper_models() {
  static const PaperModels m = [] {
    PaperModels out;
    // Table 4: GoogLeNet, LeNet, ResNet50, SSD-MobileNet, VGG-16, MnasNet, MobileNet-V2,
    // DenseNet, BERT-base, with their SLOs in ms.
    const std::vector<std::pair<std::string, int>> models = {{"goo", 66},  {"le", 5},    {"res", 108},
                                                             {"ssd", 202}, {"vgg", 142}, {"nas", 62},
                                                             {"mob", 64},  {"den", 202}, {"be", 22}};
    SyntheticGletShape shape;
    shape.c0 = Duration::microseconds(1000);  // LeNet's 5 ms SLO leaves 2.5 ms for a batch of 32
    for (std::size_t i = 0; i < models.size(); ++i) {
      out.profiles.push_back(synthetic_glet_profile(models[i].first, "RTX2080Ti",
                                                    Duration::milliseconds(models[i].second), kSizes, shape));
      // Stand-in utilisation: L2 10–34 %, DRAM 30–62 % at batch 32, half that at batch 1.
      const double l2 = 0.10 + 0.03 * static_cast<double>(i), dram = 0.30 + 0.04 * static_cast<double>(i);
      out.utilisation.push_back({models[i].first, "RTX2080Ti", {{1, 0, l2 / 2, dram / 2}, {32, 0, l2, dram}}, ""});
    }
    const std::filesystem::path published =
        std::filesystem::path(SERVESCOPE_SHARED_DATA_DIR) / "glet/resource/2080ti/INT_MODEL_CONSTANT.CSV";
    if (std::filesystem::exists(published)) {
      out.interference = parse_glet_interference(read_text_file(published), published.string(), "RTX2080Ti");
      out.interference_source = published.string();
    } else {
      out.interference = {"RTX2080Ti", 0.1, 0.7, 0.35, 0.1, 0.9, "stand-in", ""};
      out.interference_source = "a stand-in (../shared/data/glet absent)";
    }
    return out;
  }();
  return m;
}

std::vector<GletModel> with_rates(const std::vector<double>& rates) {
  const auto& pm = paper_models();
  std::vector<GletModel> out;
  for (std::size_t i = 0; i < rates.size(); ++i)
    if (rates[i] > 0) out.push_back({&pm.profiles[i], &pm.utilisation[i], rates[i], *pm.profiles[i].default_slo, {}});
  return out;
}

GletLatencyOptions latency_options() {
  GletLatencyOptions o;
  o.gpu = "RTX2080Ti";
  o.interference = paper_models().interference;
  return o;
}

// 9 models at rates that need about 12 of the 16 GPUs.
void BM_ElasticPartitioning9Models16Gpus(benchmark::State& state) {
  const GletLatency lat(with_rates({900, 2500, 700, 600, 500, 900, 1200, 500, 1500}), latency_options());
  GletPlannerOptions po;
  GletPlan plan;
  for (auto _ : state) {
    plan = elastic_partitioning(lat, po, 16);
    benchmark::DoNotOptimize(plan);
  }
  state.counters["feasible"] = plan.feasible;
  state.counters["gpus_used"] = plan.layout.gpus_used();
  state.counters["glet_percent"] = plan.layout.total_size_percent();
}
BENCHMARK(BM_ElasticPartitioning9Models16Gpus)->Unit(benchmark::kMicrosecond);

// The same pass including the latency tables (saturated throughput, p_eff) it starts from.
void BM_TablesAndElasticPartitioning9Models16Gpus(benchmark::State& state) {
  const auto models = with_rates({900, 2500, 700, 600, 500, 900, 1200, 500, 1500});
  GletPlannerOptions po;
  for (auto _ : state) {
    const GletLatency lat(models, latency_options());
    auto plan = elastic_partitioning(lat, po, 16);
    benchmark::DoNotOptimize(plan);
  }
}
BENCHMARK(BM_TablesAndElasticPartitioning9Models16Gpus)->Unit(benchmark::kMicrosecond);

// The §3.2 grid on 4 GPUs: schedulable scenarios for glet+int and the exhaustive ideal.
void BM_PaperGrid4Gpus(benchmark::State& state) {
  long long glet_ok = 0, ideal_ok = 0, scenarios = 0, layouts = 0;
  double glet_rate = 0, ideal_rate = 0;
  for (auto _ : state) {
    glet_ok = ideal_ok = scenarios = layouts = 0;
    glet_rate = ideal_rate = 0;
    std::vector<double> rates(9, 0);
    for (int code = 1; code < 19683; ++code) {
      int c = code;
      double total = 0;
      for (auto& r : rates) {
        r = 100.0 * (c % 3);
        c /= 3;
        total += r;
      }
      ++scenarios;
      const GletLatency lat(with_rates(rates), latency_options());
      GletPlannerOptions po;
      if (elastic_partitioning(lat, po, 4).feasible) {
        ++glet_ok;
        glet_rate += total;
      }
      po.split = false;
      layouts += for_each_fixed_layout(4, glet_splits(kSizes), [&](const GletLayout& start) {
        if (!elastic_partitioning(lat, po, 4, start).feasible) return false;
        ++ideal_ok;
        ideal_rate += total;
        return true;
      });
    }
  }
  state.counters["scenarios"] = static_cast<double>(scenarios);
  state.counters["glet_schedulable"] = static_cast<double>(glet_ok);
  state.counters["ideal_schedulable"] = static_cast<double>(ideal_ok);
  state.counters["layouts_tried"] = static_cast<double>(layouts);
  state.counters["glet_rate_share"] = ideal_rate > 0 ? glet_rate / ideal_rate : 0;
}
BENCHMARK(BM_PaperGrid4Gpus)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  std::cerr << "bench_glet: interference coefficients from " << paper_models().interference_source << "\n";
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// Why gpu-let's interference awareness costs throughput in our reproduction where the paper gains
// 7.5 % (seed 003 §4.3, Fig. 6; docs/reproduction/glet.md "Interference: the evidence"; issue 25
// part 4). Random mixes of the paper's nine models, each at 0–400 req/s, on the paper's 4 GPUs,
// are planned by glet with and without the interference model (with the prototype's rate
// headroom, then without it) and every plan is run in the simulator, where the authors' linear model is the truth for
// every batch that starts while the other glet of its GPU runs. It prints how often the blind
// plans miss their SLOs, how often the aware planner refuses what the blind one serves, and which
// co-locations it refuses: the slowdown it plans for against the one the simulator applies on
// average (weighted by the neighbour's busy time). Needs ../shared/data. Prints Markdown.
// Usage: repro_glet_interference [--mixes N] (default 300).
#include <algorithm>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <sstream>

#include "bench/glet_stand_in.h"
#include "engine/glet/glet_baselines.h"
#include "engine/glet/glet_scenario.h"
#include "engine/glet/rate_headroom.h"

using namespace servescope;
using namespace servescope::engine;
using namespace servescope::bench;

namespace {

constexpr double kViolationLimit = 0.01;

std::string fmt(double v, int precision = 0) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(precision) << v;
  return o.str();
}

std::string pct(long long part, long long whole) {
  return whole ? fmt(100.0 * static_cast<double>(part) / static_cast<double>(whole), 1) + " %" : "–";
}

// One co-location of a blind plan: model `self` on a glet, beside the other glet of its GPU.
struct CoLocation {
  std::string pair;     // "self beside other", the other glet's models joined by '+'
  double planned = 1;   // α the aware planner would apply: the linear model, as if always co-running
  double weighted = 1;  // 1 + (α − 1)·busy: what the simulator applies on average
};

// Every model's co-locations in a blind plan, with the slowdowns the aware planner would assume.
std::vector<CoLocation> co_locations(const GletPlan& plan, const GletLatency& aware) {
  std::vector<CoLocation> out;
  for (const auto& gpu : plan.layout.gpus) {
    if (gpu.glets.size() != 2 || gpu.glets[0].free() || gpu.glets[1].free()) continue;
    for (std::size_t side = 0; side < 2; ++side) {
      const auto& self = gpu.glets[side];
      const auto& other = gpu.glets[1 - side];
      std::vector<Neighbour> neighbours;
      std::string names;
      for (const auto& a : other.models) {
        neighbours.push_back({a.model, a.batch, other.size_percent, 1});
        names += (names.empty() ? "" : "+") + plan.models[static_cast<std::size_t>(a.model)].name;
      }
      for (const auto& a : self.models) {
        const double alpha = aware.interference(a.model, a.batch, self.size_percent, neighbours);
        out.push_back({plan.models[static_cast<std::size_t>(a.model)].name + " beside " + names, alpha,
                       1 + (alpha - 1) * std::min(1.0, other.occupancy())});
      }
    }
  }
  return out;
}

struct PairTally {
  int count = 0;
  double planned = 0, weighted = 0;
};

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (const double x : v)
    sum += x;
  return v.empty() ? 1.0 : sum / static_cast<double>(v.size());
}

double max_of(const std::vector<double>& v) {
  return v.empty() ? 1.0 : *std::ranges::max_element(v);
}

struct Study {
  long long declared[2][2] = {};           // [blind schedulable][aware schedulable]
  long long blind_missed[2] = {};          // blind plans over the limit, by whether aware accepted
  long long aware_missed[2] = {};          // aware plans over the limit, by whether blind accepted
  long long blind_missed_calm = 0;         // blind plans over the limit in a simulator without interference
  std::vector<double> blind_viol_refused;  // blind violations where aware refused
  std::map<std::string, PairTally> refused_pairs;
  std::vector<double> alpha_planned, alpha_weighted;
};

// The same random mixes (seed 25) each time; `headroom` plans for the prototype's margin over
// each rate, as gpu-let serves, or for the rate itself.
Study study(const Library& lib, int mixes, bool headroom) {
  std::mt19937 rng(25);
  std::uniform_int_distribution<int> level(0, 4);
  const Duration run = Duration::seconds(5);
  Study st;
  for (int mix = 0; mix < mixes;) {
    std::vector<Member> members;
    for (const auto& m : kModels)
      if (const int l = level(rng); l > 0) members.push_back({m.abbr, m.abbr, std::nullopt, 100.0 * l});
    if (members.size() < 2) continue;
    ++mix;
    const auto s = make_scenario(lib, members, 0);
    const auto in = glet_input(s, {});
    const auto models = headroom ? with_headroom(in.models) : in.models;
    const auto blind = plan_glet_system("glet-noint", models, in.latency, {}, 1, in.gpu_limit);
    const auto aware = plan_glet_system("glet", models, in.latency, {}, 1, in.gpu_limit);
    ++st.declared[blind.feasible][aware.feasible];
    if (aware.feasible) st.aware_missed[blind.feasible] += median_violations(s, aware, 3, run) > kViolationLimit;
    if (!blind.feasible) continue;
    const double v = median_violations(s, blind, 3, run);
    st.blind_missed[aware.feasible] += v > kViolationLimit;
    // The control: the same blind plan where co-running glets do not slow each other.
    auto calm = s;
    calm.profiles.interference.clear();
    st.blind_missed_calm += median_violations(calm, blind, 3, run) > kViolationLimit;
    const GletLatency aware_latency(models, in.latency);
    for (const auto& c : co_locations(blind, aware_latency)) {
      st.alpha_planned.push_back(c.planned);
      st.alpha_weighted.push_back(c.weighted);
      if (aware.feasible) continue;
      auto& t = st.refused_pairs[c.pair];
      ++t.count;
      t.planned += c.planned;
      t.weighted += c.weighted;
    }
    if (!aware.feasible) st.blind_viol_refused.push_back(v);
  }
  return st;
}

}  // namespace

int main(int argc, char** argv) {
  int mixes = 300;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--mixes") == 0 && i + 1 < argc) mixes = std::max(1, std::atoi(argv[++i]));
  if (!std::filesystem::exists(shared() / "Gpulet-0909wlgur/data/inference.csv") ||
      !std::filesystem::exists(shared() / "glet/resource/2080ti/UTIL.CSV")) {
    std::cerr << "repro_glet_interference: needs ../shared/data/Gpulet-0909wlgur and ../shared/data/glet\n";
    return 2;
  }
  const auto lib = load_library();
  std::cout << "<!-- generated by build/dev/bench/repro_glet_interference --mixes " << mixes << " -->\n\n"
            << "### Blind and aware plans in the simulator (" << mixes
            << " random mixes, each model at 0–400 req/s, 4 GPUs, 3 seeds × 5 s)\n\n"
            << "| planned for | declared by both | blind only (aware refuses) | aware only | neither | blind plans "
               "over 1 % violations: both / blind only | the same blind plans, no interference in the simulator | "
               "aware plans over 1 % |\n"
            << "|---|---|---|---|---|---|---|---|\n";
  Study with_margin;
  for (const bool headroom : {true, false}) {
    const auto st = study(lib, mixes, headroom);
    std::cout << "| " << (headroom ? "the rate × the prototype's headroom (1.5 under 125 req/s, else 1.2)" : "the rate")
              << " | " << st.declared[1][1] << " | " << st.declared[1][0] << " | " << st.declared[0][1] << " | "
              << st.declared[0][0] << " | " << pct(st.blind_missed[1], st.declared[1][1]) << " / "
              << pct(st.blind_missed[0], st.declared[1][0]) << " | "
              << pct(st.blind_missed_calm, st.declared[1][0] + st.declared[1][1]) << " | "
              << pct(st.aware_missed[0] + st.aware_missed[1], st.declared[0][1] + st.declared[1][1]) << " |\n";
    if (headroom) with_margin = st;
  }
  const auto& st = with_margin;
  auto refused = st.blind_viol_refused;
  std::ranges::sort(refused);
  std::cout << "\nWith the headroom: where the aware planner refuses, the blind plan's median violations are "
            << (refused.empty()
                    ? std::string("–")
                    : fmt(100 * refused[refused.size() / 2], 2) + " % (max " + fmt(100 * refused.back(), 2) + " %)")
            << ". Over the " << st.alpha_planned.size()
            << " co-locations of the blind plans, the aware planner assumes a mean slowdown of "
            << fmt(mean(st.alpha_planned), 3) << " (max " << fmt(max_of(st.alpha_planned), 3)
            << "); weighted by the neighbour's busy time, as the simulator applies it on average, "
            << fmt(mean(st.alpha_weighted), 3) << ".\n\n"
            << "### Co-locations in the blind plans the aware planner refused (with the headroom)\n\n"
            << "| model beside the other glet | times | planned slowdown | busy-weighted slowdown |\n"
            << "|---|---|---|---|\n";
  std::vector<std::pair<std::string, PairTally>> rows(st.refused_pairs.begin(), st.refused_pairs.end());
  std::ranges::sort(rows, [](const auto& x, const auto& y) {
    return x.second.count != y.second.count ? x.second.count > y.second.count : x.first < y.first;
  });
  for (std::size_t i = 0; i < rows.size() && i < 15; ++i) {
    const auto& [pair, t] = rows[i];
    std::cout << "| " << pair << " | " << t.count << " | " << fmt(t.planned / t.count, 3) << " | "
              << fmt(t.weighted / t.count, 3) << " |\n";
  }
  return 0;
}

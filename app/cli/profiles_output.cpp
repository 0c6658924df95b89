#include "app/cli/profiles_output.h"

#include <iostream>

#include "app/cli/document_summary.h"
#include "model/io/document.h"
#include "model/io/model_json.h"

namespace servescope::cli {

Scenario measured_scenario(const ModelProfile& profile, const GpuSpec& device, int nodes, double rate_rps,
                           const std::string& node_prefix, const std::vector<ContentionModel>& contention) {
  Scenario s;
  s.name = profile.name + "-on-" + device.id;
  s.description = "A measured profile of " + profile.name + " and a cluster of " + std::to_string(nodes) +
                  " servers with one " + device.name + " each (servescope-cli profile --scenario-out).";
  s.custom_gpus.push_back(device);
  s.cluster.name = std::to_string(nodes) + " x " + device.id;
  for (int k = 0; k < nodes; ++k) {
    Node n;
    n.name = node_prefix + std::to_string(k);
    n.gpu = device.id;
    s.cluster.nodes.push_back(n);
  }
  s.profiles.name = profile.name;
  s.profiles.models.push_back(profile);
  s.profiles.contention = contention;
  Workload w;
  w.name = profile.name;
  w.rate_rps = rate_rps;
  w.targets.push_back(WorkloadTarget{TargetKind::Model, profile.name, 1.0, std::nullopt});
  s.workloads.push_back(std::move(w));
  return s;
}

int write_profiles(const GlobalOptions& global, const std::string& out, const ProfileSet& set,
                   const std::vector<std::string>& warnings) {
  check_outputs({out});
  if (out.empty()) {
    print_json(to_json(set));
    for (const auto& w : warnings)
      std::cerr << "warning: " << w << "\n";
    return kExitOk;
  }
  save_profiles(out, set);
  Document doc{DocumentKind::Profiles, set, warnings};
  auto summary = summarize(doc);
  summary["written"] = out;
  if (global.json) {
    print_json(summary);
  } else {
    report_stream() << "wrote " << out << "\n";
    print_summary(report_stream(), summary);
  }
  return kExitOk;
}

}  // namespace servescope::cli

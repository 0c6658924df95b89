#include "app/cli/document_summary.h"

#include <iomanip>

#include "model/core/text.h"

namespace servescope::cli {
namespace {

nlohmann::json summarize(const Cluster& c) {
  nlohmann::json by_type = nlohmann::json::object();
  for (const auto& [type, n] : c.gpus_by_type())
    by_type[type] = n;
  return {{"name", c.name}, {"servers", c.total_servers()}, {"gpus", c.total_gpus()}, {"gpus_by_type", by_type}};
}

nlohmann::json summarize(const ProfileSet& set) {
  nlohmann::json models = nlohmann::json::array();
  for (const auto& m : set.models) {
    nlohmann::json configs = nlohmann::json::array();
    for (const auto& [gpu, share] : m.configurations())
      configs.push_back({{"gpu", gpu}, {"share", share.to_string()}, {"max_batch", m.max_batch(gpu, share)}});
    nlohmann::json j = {{"name", m.name},
                        {"form", std::string(to_string(m.form))},
                        {"blocks", m.blocks()},
                        {"configurations", configs}};
    if (m.default_slo) j["default_slo_ms"] = m.default_slo->to_ms();
    if (!m.origin.empty()) j["origin"] = m.origin;
    models.push_back(std::move(j));
  }
  return {{"name", set.name},
          {"models", models},
          {"utilisation_profiles", set.utilisation.size()},
          {"interference_models", set.interference.size()}};
}

// A catalog figure, null where the type's entry leaves it out (0: unknown).
nlohmann::json known_or_null(double value) {
  return value > 0 ? nlohmann::json(value) : nlohmann::json(nullptr);
}
nlohmann::json known_or_null(int value) {
  return value > 0 ? nlohmann::json(value) : nlohmann::json(nullptr);
}
std::string known_or_dash(const nlohmann::json& value) {
  return value.is_null() ? "—" : format_number(value.get<double>());
}

std::string configs_text(const nlohmann::json& configs) {
  std::string out;
  for (const auto& c : configs) {
    out += (out.empty() ? "" : ", ") + c["gpu"].get<std::string>();
    if (c["share"] != "1") out += "@" + c["share"].get<std::string>();
  }
  return out;
}

}  // namespace

nlohmann::json summarize(const Scenario& s) {
  nlohmann::json apps = nlohmann::json::array();
  for (const auto& a : s.applications)
    apps.push_back({{"name", a.name}, {"modules", a.modules.size()}, {"slo_ms", a.slo.to_ms()}});
  nlohmann::json workloads = nlohmann::json::array();
  for (const auto& w : s.workloads)
    workloads.push_back({{"name", w.name},
                         {"rate_rps", w.rate_rps},
                         {"arrivals", describe(w.arrivals)},
                         {"targets", w.targets.size()}});
  return {{"name", s.name},
          {"cluster", summarize(s.cluster)},
          {"profile_includes", s.profile_includes},
          {"profiles", summarize(s.profiles)},
          {"applications", apps},
          {"workloads", workloads}};
}

nlohmann::json summarize(const Document& doc) {
  nlohmann::json out = {{"kind", std::string(to_string(doc.kind))}, {"warnings", doc.warnings}};
  switch (doc.kind) {
    case DocumentKind::GpuCatalog: {
      nlohmann::json gpus = nlohmann::json::array();
      for (const auto& g : std::get<GpuCatalog>(doc.content).gpus())
        gpus.push_back({{"id", g.id},
                        {"name", g.name},
                        {"sm_count", known_or_null(g.sm_count)},
                        {"fp16_tflops", known_or_null(g.fp16_tflops)},
                        {"memory_gib", known_or_null(g.memory_gib)},
                        {"mps", g.mps},
                        {"price_per_hour", known_or_null(g.price_per_hour)}});
      out["gpus"] = gpus;
      break;
    }
    case DocumentKind::Cluster:
      out["cluster"] = summarize(std::get<Cluster>(doc.content));
      break;
    case DocumentKind::Profiles:
      out["profiles"] = summarize(std::get<ProfileSet>(doc.content));
      break;
    case DocumentKind::Scenario:
      out["scenario"] = summarize(std::get<Scenario>(doc.content));
      break;
    case DocumentKind::Project: {
      const auto& p = std::get<Project>(doc.content);
      out["name"] = p.name;
      out["scenario"] = summarize(p.scenario);
      out["plans"] = p.plans.size();
      out["runs"] = p.runs.size();
      break;
    }
  }
  return out;
}

namespace {

void print_cluster(std::ostream& out, const nlohmann::json& c, const char* indent) {
  out << indent << "cluster: " << c["name"].get<std::string>() << ", " << c["servers"] << " servers, " << c["gpus"]
      << " GPUs (";
  bool first = true;
  for (const auto& [type, n] : c["gpus_by_type"].items()) {
    out << (first ? "" : ", ") << n << "x " << type;
    first = false;
  }
  out << ")\n";
}

void print_profiles(std::ostream& out, const nlohmann::json& p, const char* indent) {
  out << indent << "profiles: " << p["models"].size() << " models";
  if (p["utilisation_profiles"] > 0) out << ", " << p["utilisation_profiles"] << " utilisation profiles";
  if (p["interference_models"] > 0) out << ", " << p["interference_models"] << " interference models";
  out << "\n";
  for (const auto& m : p["models"]) {
    out << indent << "  " << std::left << std::setw(28) << m["name"].get<std::string>() << " " << std::setw(6)
        << m["form"].get<std::string>() << " " << configs_text(m["configurations"]);
    if (m.contains("default_slo_ms")) out << "  SLO " << format_number(m["default_slo_ms"].get<double>()) << " ms";
    out << "\n";
  }
}

void print_scenario(std::ostream& out, const nlohmann::json& s) {
  out << "scenario: " << s["name"].get<std::string>() << "\n";
  print_cluster(out, s["cluster"], "  ");
  for (const auto& inc : s["profile_includes"])
    out << "  includes " << inc.get<std::string>() << "\n";
  print_profiles(out, s["profiles"], "  ");
  for (const auto& a : s["applications"])
    out << "  application " << a["name"].get<std::string>() << ": " << a["modules"] << " modules, SLO "
        << format_number(a["slo_ms"].get<double>()) << " ms\n";
  for (const auto& w : s["workloads"])
    out << "  workload " << w["name"].get<std::string>() << ": " << format_number(w["rate_rps"].get<double>())
        << " req/s, " << w["arrivals"].get<std::string>() << ", " << w["targets"] << " targets\n";
}

}  // namespace

void print_summary(std::ostream& out, const nlohmann::json& s) {
  const auto kind = s["kind"].get<std::string>();
  if (kind == "gpu-catalog") {
    out << "GPU catalog, " << s["gpus"].size() << " types\n";
    for (const auto& g : s["gpus"])
      out << "  " << std::left << std::setw(10) << g["id"].get<std::string>() << " " << std::setw(32)
          << g["name"].get<std::string>() << " " << known_or_dash(g["sm_count"]) << " SMs, "
          << known_or_dash(g["memory_gib"]) << " GiB" << (g["mps"].get<bool>() ? ", MPS" : "")
          << (g["price_per_hour"].is_null() ? "" : ", " + known_or_dash(g["price_per_hour"]) + " per hour") << "\n";
  } else if (kind == "cluster") {
    print_cluster(out, s["cluster"], "");
  } else if (kind == "profiles") {
    print_profiles(out, s["profiles"], "");
  } else if (kind == "scenario") {
    print_scenario(out, s["scenario"]);
  } else if (kind == "project") {
    out << "project: " << s["name"].get<std::string>() << " (" << s["plans"] << " plans, " << s["runs"] << " runs)\n";
    print_scenario(out, s["scenario"]);
  } else {
    // An engine file (engine/analysis/engine_files.h): its figures, one a line.
    out << kind << "\n";
    for (const auto& [key, value] : s.items())
      if (key != "kind")
        out << "  " << key << ": " << (value.is_string() ? value.get<std::string>() : value.dump()) << "\n";
  }
  if (s.contains("warnings"))
    for (const auto& w : s["warnings"])
      out << "warning: " << w.get<std::string>() << "\n";
}

}  // namespace servescope::cli

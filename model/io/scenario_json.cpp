#include <algorithm>

#include "model/core/error.h"
#include "model/core/text.h"
#include "model/io/model_json.h"

namespace servescope {
namespace {

ArrivalProcess arrivals_from_json(const JsonCursor& c) {
  const auto process = c.at("process").as_string();
  if (process == "poisson") {
    c.expect_object({"process"});
    return PoissonArrivals{};
  }
  if (process == "gamma") {
    c.expect_object({"process", "shape"});
    return GammaArrivals{c.at("shape").as_double(1e-3, 1e6)};
  }
  if (process == "trace") {
    c.expect_object({"process", "path"});
    return TraceArrivals{c.at("path").as_string()};
  }
  if (process == "piecewise") {
    c.expect_object({"process", "segments"});
    PiecewiseArrivals p;
    const auto segments = c.at("segments");
    if (segments.size() == 0) segments.fail("a piecewise process needs at least one segment");
    for (std::size_t i = 0; i < segments.size(); ++i) {
      const auto s = segments[i];
      s.expect_object({"duration_s", "rate_multiplier"});
      const auto multiplier = s.at("rate_multiplier");
      const double m = multiplier.as_double(0, 1e6);
      if (m > 0 && m < kMinNonZeroWeight)
        multiplier.fail("a rate multiplier is 0 or at least " + format_number(kMinNonZeroWeight) + ", got " +
                        format_number(m));
      p.segments.push_back(RateSegment{Duration::from_s(s.at("duration_s").as_double(1e-6, 1e7)), m});
    }
    return p;
  }
  c.at("process").fail("expected \"poisson\", \"gamma\", \"trace\" or \"piecewise\", got '" + process + "'");
}

nlohmann::json to_json(const ArrivalProcess& a) {
  struct Visitor {
    nlohmann::json operator()(const PoissonArrivals&) const { return {{"process", "poisson"}}; }
    nlohmann::json operator()(const GammaArrivals& g) const { return {{"process", "gamma"}, {"shape", g.shape}}; }
    nlohmann::json operator()(const TraceArrivals& t) const { return {{"process", "trace"}, {"path", t.path}}; }
    nlohmann::json operator()(const PiecewiseArrivals& p) const {
      nlohmann::json segs = nlohmann::json::array();
      for (const auto& s : p.segments)
        segs.push_back({{"duration_s", s.duration.to_s()}, {"rate_multiplier", s.rate_multiplier}});
      return {{"process", "piecewise"}, {"segments", segs}};
    }
  };
  return std::visit(Visitor{}, a);
}

}  // namespace

Application application_from_json(const JsonCursor& c) {
  c.expect_object({"name", "description", "slo_us", "modules", "edges"});
  Application app;
  app.name = c.at("name").as_string();
  app.description = c.string_or("description", "");
  app.slo = c.at("slo_us").as_duration_us(1);
  const auto modules = c.at("modules");
  if (modules.size() > 10'000) modules.fail("more than 10000 modules");
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const auto m = modules[i];
    m.expect_object({"id", "kind", "model", "latency_us", "rate_scale"});
    AppModule mod;
    mod.id = m.at("id").as_string();
    const auto kind = m.string_or("kind", "dnn");
    if (kind == "dnn") {
      mod.kind = ModuleKind::Dnn;
      mod.model = m.at("model").as_string();
      if (auto l = m.find("latency_us")) l->fail("a DNN module's latency comes from its profile");
      if (auto r = m.find("rate_scale")) mod.rate_scale = r->as_double(1e-6, 1e6);
    } else if (kind == "cpu") {
      mod.kind = ModuleKind::Cpu;
      mod.cpu_latency = m.at("latency_us").as_duration_us();
      if (auto model = m.find("model")) model->fail("a CPU step runs no model");
    } else {
      m.at("kind").fail("expected \"dnn\" or \"cpu\", got '" + kind + "'");
    }
    app.modules.push_back(std::move(mod));
  }
  if (auto edges = c.find("edges")) {
    for (std::size_t i = 0; i < edges->size(); ++i) {
      const auto e = (*edges)[i];
      if (e.size() != 2) e.fail("an edge is [\"from\", \"to\"]");
      app.edges.push_back(AppEdge{e[0].as_string(), e[1].as_string()});
    }
  }
  return app;
}

nlohmann::json to_json(const Application& a) {
  nlohmann::json modules = nlohmann::json::array();
  for (const auto& m : a.modules) {
    if (m.kind == ModuleKind::Dnn) {
      modules.push_back({{"id", m.id}, {"kind", "dnn"}, {"model", m.model}});
      if (m.rate_scale != 1) modules.back()["rate_scale"] = m.rate_scale;
    } else
      modules.push_back({{"id", m.id}, {"kind", "cpu"}, {"latency_us", us_to_json(m.cpu_latency)}});
  }
  nlohmann::json edges = nlohmann::json::array();
  for (const auto& e : a.edges)
    edges.push_back({e.from, e.to});
  nlohmann::json j = {{"name", a.name}};
  if (!a.description.empty()) j["description"] = a.description;
  j["slo_us"] = us_to_json(a.slo);
  j["modules"] = std::move(modules);
  j["edges"] = std::move(edges);
  return j;
}

Workload workload_from_json(const JsonCursor& c) {
  c.expect_object({"name", "rate_rps", "arrival", "popularity", "zipf_s", "targets"});
  Workload w;
  w.name = c.at("name").as_string();
  w.rate_rps = c.at("rate_rps").as_double(kMinRateRps, kMaxRateRps);
  if (auto a = c.find("arrival")) w.arrivals = arrivals_from_json(*a);
  const auto pop = c.string_or("popularity", "explicit");
  if (pop == "explicit") {
    w.popularity = Popularity::Explicit;
  } else if (pop == "equal") {
    w.popularity = Popularity::Equal;
  } else if (pop == "zipf") {
    w.popularity = Popularity::Zipf;
  } else {
    c.at("popularity").fail("expected \"explicit\", \"equal\" or \"zipf\", got '" + pop + "'");
  }
  w.zipf_s = c.double_or("zipf_s", 0.9, 0, 10);
  const auto targets = c.at("targets");
  if (targets.size() > 100'000) targets.fail("more than 100000 targets");
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const auto t = targets[i];
    t.expect_object({"model", "application", "weight", "slo_us"});
    WorkloadTarget target;
    const auto model = t.find("model");
    const auto app = t.find("application");
    if (model.has_value() == app.has_value()) t.fail("a target names either a model or an application");
    target.kind = model ? TargetKind::Model : TargetKind::Application;
    target.name = model ? model->as_string() : app->as_string();
    target.weight = t.double_or("weight", 1.0, 0, 1e9);
    if (target.weight > 0 && target.weight < kMinNonZeroWeight)
      t.at("weight").fail("a weight is 0 or at least " + format_number(kMinNonZeroWeight) + ", got " +
                          format_number(target.weight));
    if (auto slo = t.find("slo_us")) target.slo = slo->as_duration_us(1);
    w.targets.push_back(std::move(target));
  }
  return w;
}

nlohmann::json to_json(const Workload& w) {
  nlohmann::json targets = nlohmann::json::array();
  for (const auto& t : w.targets) {
    nlohmann::json tj;
    tj[t.kind == TargetKind::Model ? "model" : "application"] = t.name;
    if (t.weight != 1.0) tj["weight"] = t.weight;
    if (t.slo) tj["slo_us"] = us_to_json(*t.slo);
    targets.push_back(std::move(tj));
  }
  nlohmann::json j = {{"name", w.name}, {"rate_rps", w.rate_rps}, {"arrival", to_json(w.arrivals)}};
  switch (w.popularity) {
    case Popularity::Explicit:
      j["popularity"] = "explicit";
      break;
    case Popularity::Equal:
      j["popularity"] = "equal";
      break;
    case Popularity::Zipf:
      j["popularity"] = "zipf";
      j["zipf_s"] = w.zipf_s;
      break;
  }
  j["targets"] = std::move(targets);
  return j;
}

Scenario scenario_from_json(const JsonCursor& c, bool document, const IncludeResolver& includes, LoadReport& report) {
  if (document) expect_document_header(c, "scenario");
  c.expect_object({"schema_version", "kind", "name", "description", "gpu_types", "cluster", "profile_includes",
                   "profiles", "utilisation", "interference", "contention", "applications", "workloads"});
  if (!document && (c.find("kind") || c.find("schema_version")))
    c.fail("an embedded scenario takes its schema_version from the enclosing document");
  Scenario s;
  s.name = c.at("name").as_string();
  s.description = c.string_or("description", "");
  if (auto gpus = c.find("gpu_types"))
    for (std::size_t i = 0; i < gpus->size(); ++i) {
      // An entry for a built-in type states what differs (a price, say) and keeps the rest.
      const auto entry = (*gpus)[i];
      const GpuSpec* base = nullptr;
      if (const auto id = entry.find("id"); id && id->value().is_string()) {
        base = GpuCatalog::builtin().find(id->value().get<std::string>());
        if (base && base->id != id->value().get<std::string>()) base = nullptr;
      }
      s.custom_gpus.push_back(gpu_spec_from_json(entry, base));
    }
  if (auto cluster = c.find("cluster")) s.cluster = cluster_from_json(*cluster, false);
  read_inline_profiles(c, s.profiles, report);
  if (auto inc = c.find("profile_includes")) {
    for (std::size_t i = 0; i < inc->size(); ++i) {
      const auto ref = (*inc)[i].as_string();
      if (std::ranges::find(s.profile_includes, ref) != s.profile_includes.end())
        (*inc)[i].fail("'" + ref + "' is included twice");
      auto set = includes((*inc)[i].as_string(), (*inc)[i]);
      try {
        s.profiles.merge(std::move(set), ref);
      } catch (const QueryError& e) {
        (*inc)[i].fail(e.what());
      }
      s.profile_includes.push_back(ref);
    }
  }
  if (auto apps = c.find("applications"))
    for (std::size_t i = 0; i < apps->size(); ++i)
      s.applications.push_back(application_from_json((*apps)[i]));
  if (auto wls = c.find("workloads"))
    for (std::size_t i = 0; i < wls->size(); ++i)
      s.workloads.push_back(workload_from_json((*wls)[i]));

  const auto problems = check_scenario(s, c.path());
  if (!problems.empty()) throw InputError(c.file(), problems.front().path, problems.front().message);
  return s;
}

nlohmann::json to_json(const Scenario& s, bool document) {
  nlohmann::json j;
  if (document) {
    j["schema_version"] = kSchemaVersion;
    j["kind"] = "scenario";
  }
  j["name"] = s.name;
  if (!s.description.empty()) j["description"] = s.description;
  if (!s.custom_gpus.empty()) {
    nlohmann::json gpus = nlohmann::json::array();
    for (const auto& g : s.custom_gpus)
      gpus.push_back(to_json(g));
    j["gpu_types"] = std::move(gpus);
  }
  j["cluster"] = to_json(s.cluster, false);
  if (!s.profile_includes.empty()) j["profile_includes"] = s.profile_includes;
  write_inline_profiles(s.profiles, j, "profiles");
  nlohmann::json apps = nlohmann::json::array();
  for (const auto& a : s.applications)
    apps.push_back(to_json(a));
  j["applications"] = std::move(apps);
  nlohmann::json wls = nlohmann::json::array();
  for (const auto& w : s.workloads)
    wls.push_back(to_json(w));
  j["workloads"] = std::move(wls);
  return j;
}

namespace {

std::vector<SavedArtifact> artifacts_from_json(const JsonCursor& c) {
  std::vector<SavedArtifact> out;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const auto a = c[i];
    a.expect_object({"name", "system", "created_utc", "body"});
    SavedArtifact art;
    art.name = a.at("name").as_string();
    art.system = a.at("system").as_string();
    art.created_utc = a.string_or("created_utc", "");
    const auto body = a.at("body");
    if (!body.value().is_object()) body.fail("expected an object, got " + describe_json(body.value()));
    // Every plan and run names its kind; the views dispatch on it, so it must be a string.
    body.at("kind").as_string();
    art.body = body.value();
    if (std::ranges::find(out, art.name, &SavedArtifact::name) != out.end())
      a.at("name").fail("duplicate name '" + art.name + "'");
    out.push_back(std::move(art));
  }
  return out;
}

nlohmann::json artifacts_to_json(const std::vector<SavedArtifact>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : list)
    out.push_back({{"name", a.name}, {"system", a.system}, {"created_utc", a.created_utc}, {"body", a.body}});
  return out;
}

}  // namespace

Project project_from_json(const JsonCursor& root, const IncludeResolver& includes, LoadReport& report) {
  expect_document_header(root, "project");
  root.expect_object({"schema_version", "kind", "name", "scenario", "plans", "runs"});
  Project p;
  p.name = root.at("name").as_string();
  p.scenario = scenario_from_json(root.at("scenario"), false, includes, report);
  if (auto plans = root.find("plans")) p.plans = artifacts_from_json(*plans);
  if (auto runs = root.find("runs")) p.runs = artifacts_from_json(*runs);
  return p;
}

nlohmann::json to_json(const Project& p) {
  return {{"schema_version", kSchemaVersion},
          {"kind", "project"},
          {"name", p.name},
          {"scenario", to_json(p.scenario, false)},
          {"plans", artifacts_to_json(p.plans)},
          {"runs", artifacts_to_json(p.runs)}};
}

}  // namespace servescope

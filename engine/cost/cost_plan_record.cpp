#include "engine/cost/cost_plan_record.h"

#include <cstdint>

#include "model/io/json_cursor.h"

namespace servescope::engine {
namespace {

constexpr double kMaxRate = 1e12;
constexpr double kMaxCost = 1e300;

CostTierRecord tier_of(const JsonCursor& t) {
  CostTierRecord r;
  r.gpu = t.at("gpu").as_string();
  r.batch = static_cast<int>(t.at("batch").as_int(1, INT32_MAX));
  r.concurrency = static_cast<int>(t.int_or("concurrency", 1, 1, INT32_MAX));
  if (const auto d = t.find("duration_us")) r.duration = d->as_duration_us();
  r.price = t.double_or("price", 0, 0, kMaxCost);
  r.machines = t.at("machines").as_double(0, kMaxRate);
  r.partial = t.bool_or("partial", false);
  r.rate_rps = t.at("rate_rps").as_double(0, kMaxRate);
  r.wcl = t.at("wcl_us").as_duration_us();
  return r;
}

CostModuleRecord module_of(const JsonCursor& m) {
  CostModuleRecord r;
  r.id = m.at("id").as_string();
  r.budget = m.at("budget_us").as_duration_us();
  r.wcl = m.at("wcl_us").as_duration_us();
  const auto at_rate = m.find("wcl_at_rate_us");
  r.wcl_at_rate = at_rate ? at_rate->as_duration_us() : r.wcl;
  const auto kind = m.at("kind");
  const auto k = kind.as_string();
  if (k == "cpu") {
    r.cpu = true;
    return r;
  }
  if (k != "dnn") kind.fail("expected dnn or cpu, got '" + k + "'");
  r.model = m.string_or("model", "");
  r.rate_rps = m.at("rate_rps").as_double(0, kMaxRate);
  r.dummy_rps = m.double_or("dummy_rps", 0, 0, kMaxRate);
  r.headroom_rps = m.double_or("headroom_rps", 0, 0, kMaxRate);
  r.cost = m.at("cost").as_double(0, kMaxCost);
  const auto tiers = m.at("tiers");
  for (std::size_t i = 0; i < tiers.size(); ++i)
    r.tiers.push_back(tier_of(tiers[i]));
  return r;
}

}  // namespace

CostPlanRecord cost_plan_record_from_json(const nlohmann::json& plan, const std::string& file) {
  const JsonCursor root(plan, file);
  expect_document_header(root, "cost-plan");
  CostPlanRecord r;
  r.system = root.at("system").as_string();
  r.application = root.string_or("application", "");
  r.dispatch = root.string_or("dispatch", "");
  r.feasible = root.at("feasible").as_bool();
  r.slo = root.at("slo_us").as_duration_us();
  if (!r.feasible) {
    r.reason = root.string_or("reason", "");
    return r;
  }
  r.total_cost = root.at("total_cost").as_double(0, kMaxCost);
  r.machines = static_cast<int>(root.at("machines").as_int(0, INT32_MAX));
  r.e2e_wcl = root.at("e2e_wcl_us").as_duration_us();
  const auto at_rate = root.find("e2e_wcl_at_rate_us");
  r.e2e_wcl_at_rate = at_rate ? at_rate->as_duration_us() : r.e2e_wcl;
  const auto modules = root.at("modules");
  for (std::size_t m = 0; m < modules.size(); ++m)
    r.modules.push_back(module_of(modules[m]));
  if (const auto edges = root.find("edges"))
    for (std::size_t e = 0; e < edges->size(); ++e) {
      const auto edge = (*edges)[e];
      if (edge.size() != 2) edge.fail("expected an edge [from, to]");
      r.edges.emplace_back(edge[0].as_string(), edge[1].as_string());
    }
  if (const auto v = root.find("verification")) r.verified_attainment = v->at("slo_attainment").as_double(0, 1);
  return r;
}

}  // namespace servescope::engine

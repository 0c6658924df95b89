#include "engine/analysis/run_headline.h"

#include "model/core/error.h"
#include "model/profile/gpu_share.h"

namespace servescope::engine {

RunHeadline run_headline(const nlohmann::json& run, const GpuCatalog& catalog, const std::string& what) {
  if (!run.is_object() || run.value("kind", "") != "run-result")
    throw InputError(what, "$.kind", "expected \"run-result\"");
  const auto summary = run.find("summary");
  const auto gpus = run.find("gpus");
  if (summary == run.end() || !summary->is_object()) throw InputError(what, "$.summary", "missing");
  if (gpus == run.end() || !gpus->is_object()) throw InputError(what, "$.gpus", "missing");
  RunHeadline h;
  h.system = run.value("system", "");
  h.slo_attainment = summary->value("slo_attainment", 0.0);
  h.goodput_rps = summary->value("goodput_rps", 0.0);
  h.p99_ms = summary->value("latency_ms", nlohmann::json::object()).value("p99", 0.0);
  h.mean_batch = summary->value("mean_batch_size", 0.0);
  h.gpus_used = summary->value("gpus_used", 0);
  bool first = true;
  const auto by_type = gpus->value("busy_by_type", nlohmann::json::object());
  for (const auto& [type, busy] : by_type.items()) {
    if (!busy.is_number()) throw InputError(what, "$.gpus.busy_by_type." + type, "expected a number");
    if (first || busy.get<double>() < h.least_busy) {
      h.least_busy = busy.get<double>();
      h.least_busy_type = type;
      first = false;
    }
  }
  // Price: each slot busy more than 1 % counts its share of its GPU type's hourly price.
  const auto types = gpus->value("types", nlohmann::json::array());
  const auto shares = gpus->value("shares", nlohmann::json::array());
  const auto busy = gpus->value("busy_fraction", nlohmann::json::array());
  double price = 0;
  bool priced = !types.empty();
  for (std::size_t g = 0; g < types.size() && g < busy.size(); ++g) {
    if (!busy[g].is_number() || busy[g].get<double>() <= 0.01) continue;
    const auto* spec = types[g].is_string() ? catalog.find(types[g].get<std::string>()) : nullptr;
    if (!spec || spec->price_per_hour <= 0) {
      priced = false;
      break;
    }
    double share = 1;
    if (g < shares.size() && shares[g].is_string())
      if (const auto parsed = GpuShare::parse(shares[g].get<std::string>())) share = parsed->fraction();
    price += share * spec->price_per_hour;
  }
  if (priced) h.price_per_hour = price;
  return h;
}

}  // namespace servescope::engine

#include "engine/analysis/run_headline.h"

#include "model/core/error.h"
#include "model/io/json_cursor.h"
#include "model/profile/gpu_share.h"

namespace servescope::engine {

RunHeadline run_headline(const nlohmann::json& run, const GpuCatalog& catalog, const std::string& what) {
  // A run's body comes from a project file: every member is read through a cursor, so a value of
  // the wrong type is an InputError naming its place, never a library exception.
  const JsonCursor root(run, what);
  root.expect_object();
  if (const auto kind = root.at("kind"); kind.as_string() != "run-result") kind.fail("expected \"run-result\"");
  const auto summary = root.at("summary");
  const auto gpus = root.at("gpus");
  gpus.expect_object();
  RunHeadline h;
  h.system = root.string_or("system", "");
  h.summary = run_summary_from_json(summary);
  bool first = true;
  if (const auto by_type = gpus.find("busy_by_type")) {
    by_type->expect_object();
    for (const auto& [type, value] : by_type->value().items()) {
      const double busy = by_type->at(type).as_double(0, 1e6);
      if (first || busy < h.least_busy) {
        h.least_busy = busy;
        h.least_busy_type = type;
        first = false;
      }
    }
  }
  // Price: each slot busy more than 1 % counts its share of its GPU type's hourly price.
  const auto list = [&](std::string_view key) {
    const auto c = gpus.find(key);
    if (!c) return nlohmann::json::array();
    c->expect_array();
    return c->value();
  };
  const auto types = list("types");
  const auto shares = list("shares");
  const auto busy = list("busy_fraction");
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

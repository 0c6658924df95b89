#include <cmath>
#include <stdexcept>

#include "model/core/text.h"
#include "model/io/model_json.h"

namespace servescope {
namespace {

GpuShare share_from_json(const JsonCursor& c) {
  if (c.value().is_number()) {
    if (c.as_int(1, 1) == 1) return GpuShare::whole();
  }
  const auto text = c.as_string();
  const auto share = GpuShare::parse(text);
  if (!share) c.fail("expected a GPU share such as \"1\", \"1/2\" or \"40%\", got '" + text + "'");
  return *share;
}

std::vector<int> batches_from_json(const JsonCursor& c) {
  std::vector<int> out;
  const auto n = c.size();
  if (n == 0 || n > static_cast<std::size_t>(kMaxBatchSize)) c.fail("expected 1 to 4096 batch sizes");
  for (std::size_t i = 0; i < n; ++i) {
    const auto b = static_cast<int>(c[i].as_int(1, kMaxBatchSize));
    if (!out.empty() && b <= out.back()) c[i].fail("batch sizes must be strictly increasing");
    out.push_back(b);
  }
  return out;
}

BatchCurve curve_from_json(const JsonCursor& latency, const std::vector<int>& batches, LoadReport& report) {
  if (latency.size() != batches.size())
    latency.fail("expected " + std::to_string(batches.size()) + " latencies (one per batch size), got " +
                 std::to_string(latency.size()));
  std::vector<Duration> values;
  values.reserve(batches.size());
  for (std::size_t i = 0; i < latency.size(); ++i)
    values.push_back(latency[i].as_duration_us());
  int raised = 0;
  BatchCurve curve(batches, std::move(values), &raised);
  if (raised > 0)
    report.warn(latency, std::to_string(raised) +
                             " latency value(s) were below a smaller batch's and were raised to "
                             "keep latency non-decreasing in batch size");
  return curve;
}

// A measured table's distributions: {"levels": [...], "runs": [[n per batch] per block],
// "quantiles": [[[one per level] per batch] per block]}.
std::vector<std::vector<LatencyDistribution>> distributions_from_json(const JsonCursor& c, std::size_t blocks,
                                                                      const std::vector<int>& batches) {
  c.expect_object({"levels", "runs", "quantiles"});
  const auto levels = c.at("levels");
  bool same = levels.size() == kDistributionLevels.size();
  for (std::size_t i = 0; same && i < levels.size(); ++i)
    same = std::abs(levels[i].as_double(0, 1) - kDistributionLevels[i]) < 1e-9;
  if (!same) levels.fail("expected the levels [0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999]");
  const auto runs = c.at("runs"), quantiles = c.at("quantiles");
  for (const auto* rows : {&runs, &quantiles})
    if (rows->size() != blocks)
      rows->fail("expected " + std::to_string(blocks) + " rows (one per block), got " + std::to_string(rows->size()));
  std::vector<std::vector<LatencyDistribution>> out(blocks);
  for (std::size_t b = 0; b < blocks; ++b) {
    const auto n_row = runs[b], q_row = quantiles[b];
    for (const auto* row : {&n_row, &q_row})
      if (row->size() != batches.size())
        row->fail("expected " + std::to_string(batches.size()) + " entries (one per batch size), got " +
                  std::to_string(row->size()));
    for (std::size_t k = 0; k < batches.size(); ++k) {
      LatencyDistribution d;
      d.runs = static_cast<int>(n_row[k].as_int(1, 100'000'000));
      const auto q = q_row[k];
      if (q.size() != kDistributionLevels.size())
        q.fail("expected " + std::to_string(kDistributionLevels.size()) + " quantiles (one per level), got " +
               std::to_string(q.size()));
      for (std::size_t i = 0; i < q.size(); ++i) {
        d.quantiles.push_back(q[i].as_duration_us());
        if (i > 0 && d.quantiles[i] < d.quantiles[i - 1]) q[i].fail("quantiles must not decrease with the level");
      }
      out[b].push_back(std::move(d));
    }
  }
  return out;
}

nlohmann::json distributions_json(const std::vector<std::vector<LatencyDistribution>>& rows) {
  nlohmann::json runs = nlohmann::json::array(), quantiles = nlohmann::json::array();
  for (const auto& row : rows) {
    nlohmann::json n = nlohmann::json::array(), q = nlohmann::json::array();
    for (const auto& d : row) {
      n.push_back(d.runs);
      nlohmann::json values = nlohmann::json::array();
      for (const auto& v : d.quantiles)
        values.push_back(us_to_json(v));
      q.push_back(std::move(values));
    }
    runs.push_back(std::move(n));
    quantiles.push_back(std::move(q));
  }
  return {{"levels", kDistributionLevels}, {"runs", std::move(runs)}, {"quantiles", std::move(quantiles)}};
}

// A table's batch axis: explicit "batches", else 1..n from the first latency row's length.
std::vector<int> table_batches(const JsonCursor& t, std::size_t dense_length) {
  if (auto b = t.find("batches")) return batches_from_json(*b);
  if (dense_length == 0 || dense_length > static_cast<std::size_t>(kMaxBatchSize))
    t.at("latency_us").fail("expected 1 to 4096 latencies");
  return batch_range(static_cast<int>(dense_length));
}

void read_blocks_form(const JsonCursor& c, ModelProfile& p, LoadReport& report) {
  p.block_count = static_cast<int>(c.at("blocks").as_int(1, kMaxBlocks));
  const auto bytes = c.at("boundary_bytes");
  if (bytes.size() != static_cast<std::size_t>(p.block_count - 1))
    bytes.fail("expected " + std::to_string(p.block_count - 1) + " values (one per internal block boundary), got " +
               std::to_string(bytes.size()));
  for (std::size_t i = 0; i < bytes.size(); ++i)
    p.boundary_bytes.push_back(bytes[i].as_int(0, std::int64_t{1} << 40));
  const auto tables = c.at("tables");
  if (tables.size() == 0) tables.fail("a blocks profile needs at least one table");
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const auto t = tables[i];
    t.expect_object({"gpu", "share", "batches", "latency_us", "p99_us", "distribution_us"});
    BlockTable table;
    table.gpu = t.at("gpu").as_string();
    table.share = t.find("share") ? share_from_json(t.at("share")) : GpuShare::whole();
    const auto rows = t.at("latency_us");
    if (rows.size() != static_cast<std::size_t>(p.block_count))
      rows.fail("expected " + std::to_string(p.block_count) + " rows (one per block), got " +
                std::to_string(rows.size()));
    const auto batches = table_batches(t, rows[0].size());
    for (std::size_t b = 0; b < rows.size(); ++b)
      table.blocks.push_back(curve_from_json(rows[b], batches, report));
    if (const auto p99 = t.find("p99_us")) {
      if (p99->size() != rows.size())
        p99->fail("expected " + std::to_string(rows.size()) + " rows (one per block), got " +
                  std::to_string(p99->size()));
      for (std::size_t b = 0; b < p99->size(); ++b)
        table.p99.push_back(curve_from_json((*p99)[b], batches, report));
    }
    if (const auto d = t.find("distribution_us"))
      table.distributions = distributions_from_json(*d, rows.size(), batches);
    for (const auto& other : p.block_tables)
      if (other.gpu == table.gpu && other.share == table.share)
        t.fail("a second table for " + table.gpu + " at share " + table.share.to_string());
    p.block_tables.push_back(std::move(table));
  }
}

void read_linear_form(const JsonCursor& c, ModelProfile& p) {
  const auto fits = c.at("fits");
  if (fits.size() == 0) fits.fail("a linear profile needs at least one fit");
  for (std::size_t i = 0; i < fits.size(); ++i) {
    const auto f = fits[i];
    f.expect_object({"gpu", "share", "alpha_us", "beta_us", "max_batch"});
    LinearFit fit;
    fit.gpu = f.at("gpu").as_string();
    fit.share = f.find("share") ? share_from_json(f.at("share")) : GpuShare::whole();
    fit.alpha = f.at("alpha_us").as_duration_us();
    fit.beta = f.at("beta_us").as_duration_us();
    fit.max_batch = static_cast<int>(f.int_or("max_batch", 0, 0, kMaxBatchSize));
    if (fit.alpha == Duration() && fit.beta == Duration())
      f.fail("alpha_us and beta_us are both zero: the model would take no time");
    for (const auto& other : p.linear_fits)
      if (other.gpu == fit.gpu && other.share == fit.share)
        f.fail("a second fit for " + fit.gpu + " at share " + fit.share.to_string());
    p.linear_fits.push_back(std::move(fit));
  }
}

void read_table_form(const JsonCursor& c, ModelProfile& p, LoadReport& report) {
  const auto tables = c.at("tables");
  if (tables.size() == 0) tables.fail("a table profile needs at least one table");
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const auto t = tables[i];
    t.expect_object({"gpu", "share", "batches", "latency_us"});
    BatchTable table;
    table.gpu = t.at("gpu").as_string();
    table.share = t.find("share") ? share_from_json(t.at("share")) : GpuShare::whole();
    const auto latency = t.at("latency_us");
    table.curve = curve_from_json(latency, table_batches(t, latency.size()), report);
    for (const auto& other : p.batch_tables)
      if (other.gpu == table.gpu && other.share == table.share)
        t.fail("a second table for " + table.gpu + " at share " + table.share.to_string());
    p.batch_tables.push_back(std::move(table));
  }
}

nlohmann::json share_json(GpuShare s) {
  return s.to_string();
}

nlohmann::json curve_latency_json(const BatchCurve& c) {
  nlohmann::json out = nlohmann::json::array();
  for (auto l : c.latency())
    out.push_back(us_to_json(l));
  return out;
}

bool is_dense(const std::vector<int>& batches) {
  return batches == batch_range(static_cast<int>(batches.size()));
}

}  // namespace

ModelProfile model_profile_from_json(const JsonCursor& c, LoadReport& report) {
  c.expect_object({"name", "description", "form", "default_slo_us", "preprocess_us", "postprocess_us", "blocks",
                   "boundary_bytes", "tables", "fits"});
  ModelProfile p;
  p.name = c.at("name").as_string();
  p.description = c.string_or("description", "");
  const auto form_text = c.at("form").as_string();
  const auto form = parse_profile_form(form_text);
  if (!form) c.at("form").fail("expected \"blocks\", \"linear\" or \"table\", got '" + form_text + "'");
  p.form = *form;
  if (auto slo = c.find("default_slo_us")) p.default_slo = slo->as_duration_us(1);
  if (auto pre = c.find("preprocess_us")) p.preprocess = pre->as_duration_us();
  if (auto post = c.find("postprocess_us")) p.postprocess = post->as_duration_us();
  auto forbid = [&](std::string_view key) {
    if (auto k = c.find(key)) k->fail("not used by a '" + form_text + "' profile");
  };
  switch (p.form) {
    case ProfileForm::Blocks:
      forbid("fits");
      read_blocks_form(c, p, report);
      break;
    case ProfileForm::Linear:
      forbid("tables");
      forbid("blocks");
      forbid("boundary_bytes");
      read_linear_form(c, p);
      break;
    case ProfileForm::Table:
      forbid("fits");
      forbid("blocks");
      forbid("boundary_bytes");
      read_table_form(c, p, report);
      break;
  }
  return p;
}

namespace {

void read_profile_lists(const JsonCursor& c, ProfileSet& set, LoadReport& report, std::string_view models_key) {
  if (auto models = c.find(models_key)) {
    if (models->size() > 100'000) models->fail("more than 100000 profiles");
    for (std::size_t i = 0; i < models->size(); ++i) {
      auto p = model_profile_from_json((*models)[i], report);
      if (set.find(p.name)) (*models)[i].at("name").fail("duplicate model '" + p.name + "'");
      set.models.push_back(std::move(p));
    }
  }
  if (auto util = c.find("utilisation")) {
    for (std::size_t i = 0; i < util->size(); ++i) {
      const auto u = (*util)[i];
      u.expect_object({"model", "gpu", "samples"});
      UtilisationProfile prof;
      prof.model = u.at("model").as_string();
      prof.gpu = u.at("gpu").as_string();
      const auto samples = u.at("samples");
      for (std::size_t k = 0; k < samples.size(); ++k) {
        const auto s = samples[k];
        s.expect_object({"batch", "sm_util", "l2_util", "dram_util"});
        UtilisationSample sample;
        sample.batch = static_cast<int>(s.at("batch").as_int(1, kMaxBatchSize));
        if (!prof.samples.empty() && sample.batch <= prof.samples.back().batch)
          s.at("batch").fail("batch sizes must be strictly increasing");
        sample.sm_util = s.at("sm_util").as_double(0, 1);
        sample.l2_util = s.at("l2_util").as_double(0, 1);
        sample.dram_util = s.at("dram_util").as_double(0, 1);
        prof.samples.push_back(sample);
      }
      set.utilisation.push_back(std::move(prof));
    }
  }
  if (auto intf = c.find("interference")) {
    for (std::size_t i = 0; i < intf->size(); ++i) {
      const auto m = (*intf)[i];
      m.expect_object({"gpu", "l2_self", "l2_other", "dram_self", "dram_other", "constant", "source"});
      InterferenceModel model;
      model.gpu = m.at("gpu").as_string();
      model.l2_self = m.at("l2_self").as_double(-100, 100);
      model.l2_other = m.at("l2_other").as_double(-100, 100);
      model.dram_self = m.at("dram_self").as_double(-100, 100);
      model.dram_other = m.at("dram_other").as_double(-100, 100);
      model.constant = m.at("constant").as_double(-100, 100);
      model.source = m.string_or("source", "");
      set.interference.push_back(std::move(model));
    }
  }
  if (auto cont = c.find("contention")) {
    for (std::size_t i = 0; i < cont->size(); ++i) {
      const auto m = (*cont)[i];
      m.expect_object({"gpu", "source", "samples", "spell_us"});
      ContentionModel model;
      model.gpu = m.at("gpu").as_string();
      model.source = m.string_or("source", "");
      if (const auto spell = m.find("spell_us")) model.spell = spell->as_duration_us(0, 3.6e9);
      const auto samples = m.at("samples");
      for (std::size_t k = 0; k < samples.size(); ++k) {
        const auto s = samples[k];
        s.expect_object({"share", "batch", "slots", "slowdown", "runs"});
        ContentionSample sample;
        sample.share = share_from_json(s.at("share"));
        sample.batch = static_cast<int>(s.at("batch").as_int(1, kMaxBatchSize));
        sample.slots = static_cast<int>(s.at("slots").as_int(2, 1024));
        sample.slowdown = s.at("slowdown").as_double(1, 1000);
        sample.runs = static_cast<int>(s.int_or("runs", 0, 0, 100'000'000));
        model.samples.push_back(sample);
      }
      set.contention.push_back(std::move(model));
    }
  }
}

}  // namespace

ProfileSet profile_set_from_json(const JsonCursor& root, LoadReport& report) {
  expect_document_header(root, "profiles");
  root.expect_object(
      {"schema_version", "kind", "name", "source", "models", "utilisation", "interference", "contention"});
  ProfileSet set;
  set.name = root.string_or("name", "");
  set.source = root.string_or("source", "");
  read_profile_lists(root, set, report, "models");
  return set;
}

// Used by the scenario reader, where the inline lists sit beside the cluster.
void read_inline_profiles(const JsonCursor& c, ProfileSet& set, LoadReport& report) {
  read_profile_lists(c, set, report, "profiles");
}

nlohmann::json to_json(const ModelProfile& p) {
  nlohmann::json j = {{"name", p.name}};
  if (!p.description.empty()) j["description"] = p.description;
  j["form"] = std::string(to_string(p.form));
  if (p.default_slo) j["default_slo_us"] = us_to_json(*p.default_slo);
  if (p.preprocess != Duration()) j["preprocess_us"] = us_to_json(p.preprocess);
  if (p.postprocess != Duration()) j["postprocess_us"] = us_to_json(p.postprocess);
  switch (p.form) {
    case ProfileForm::Blocks: {
      j["blocks"] = p.block_count;
      j["boundary_bytes"] = p.boundary_bytes;
      nlohmann::json tables = nlohmann::json::array();
      for (const auto& t : p.block_tables) {
        nlohmann::json tj = {{"gpu", t.gpu}, {"share", share_json(t.share)}};
        const auto& batches = t.blocks.front().batches();
        if (!is_dense(batches)) tj["batches"] = batches;
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& b : t.blocks)
          rows.push_back(curve_latency_json(b));
        tj["latency_us"] = std::move(rows);
        if (!t.p99.empty()) {
          nlohmann::json p99 = nlohmann::json::array();
          for (const auto& b : t.p99)
            p99.push_back(curve_latency_json(b));
          tj["p99_us"] = std::move(p99);
        }
        if (!t.distributions.empty()) tj["distribution_us"] = distributions_json(t.distributions);
        tables.push_back(std::move(tj));
      }
      j["tables"] = std::move(tables);
      break;
    }
    case ProfileForm::Linear: {
      nlohmann::json fits = nlohmann::json::array();
      for (const auto& f : p.linear_fits) {
        nlohmann::json fj = {{"gpu", f.gpu},
                             {"share", share_json(f.share)},
                             {"alpha_us", us_to_json(f.alpha)},
                             {"beta_us", us_to_json(f.beta)}};
        if (f.max_batch > 0) fj["max_batch"] = f.max_batch;
        fits.push_back(std::move(fj));
      }
      j["fits"] = std::move(fits);
      break;
    }
    case ProfileForm::Table: {
      nlohmann::json tables = nlohmann::json::array();
      for (const auto& t : p.batch_tables) {
        nlohmann::json tj = {{"gpu", t.gpu}, {"share", share_json(t.share)}};
        if (!is_dense(t.curve.batches())) tj["batches"] = t.curve.batches();
        tj["latency_us"] = curve_latency_json(t.curve);
        tables.push_back(std::move(tj));
      }
      j["tables"] = std::move(tables);
      break;
    }
  }
  return j;
}

// Writes the inline entries of `set` into `j` under the given models key.
void write_inline_profiles(const ProfileSet& set, nlohmann::json& j, std::string_view models_key) {
  nlohmann::json models = nlohmann::json::array();
  for (const auto& m : set.models)
    if (m.origin.empty()) models.push_back(to_json(m));
  j[std::string(models_key)] = std::move(models);
  nlohmann::json util = nlohmann::json::array();
  for (const auto& u : set.utilisation) {
    if (!u.origin.empty()) continue;
    nlohmann::json samples = nlohmann::json::array();
    for (const auto& s : u.samples)
      samples.push_back(
          {{"batch", s.batch}, {"sm_util", s.sm_util}, {"l2_util", s.l2_util}, {"dram_util", s.dram_util}});
    util.push_back({{"model", u.model}, {"gpu", u.gpu}, {"samples", std::move(samples)}});
  }
  if (!util.empty()) j["utilisation"] = std::move(util);
  nlohmann::json intf = nlohmann::json::array();
  for (const auto& m : set.interference) {
    if (!m.origin.empty()) continue;
    nlohmann::json mj = {{"gpu", m.gpu},
                         {"l2_self", m.l2_self},
                         {"l2_other", m.l2_other},
                         {"dram_self", m.dram_self},
                         {"dram_other", m.dram_other},
                         {"constant", m.constant}};
    if (!m.source.empty()) mj["source"] = m.source;
    intf.push_back(std::move(mj));
  }
  if (!intf.empty()) j["interference"] = std::move(intf);
  nlohmann::json cont = nlohmann::json::array();
  for (const auto& m : set.contention) {
    if (!m.origin.empty()) continue;
    nlohmann::json samples = nlohmann::json::array();
    for (const auto& s : m.samples)
      samples.push_back({{"share", share_json(s.share)},
                         {"batch", s.batch},
                         {"slots", s.slots},
                         {"slowdown", s.slowdown},
                         {"runs", s.runs}});
    nlohmann::json mj = {{"gpu", m.gpu}, {"samples", std::move(samples)}};
    if (m.spell > Duration()) mj["spell_us"] = m.spell.to_us();
    if (!m.source.empty()) mj["source"] = m.source;
    cont.push_back(std::move(mj));
  }
  if (!cont.empty()) j["contention"] = std::move(cont);
}

nlohmann::json to_json(const ProfileSet& s) {
  nlohmann::json j = {{"schema_version", kSchemaVersion}, {"kind", "profiles"}};
  if (!s.name.empty()) j["name"] = s.name;
  if (!s.source.empty()) j["source"] = s.source;
  write_inline_profiles(s, j, "models");
  return j;
}

}  // namespace servescope

#include "model/import/glet_import.h"

#include <algorithm>
#include <map>

#include "model/core/error.h"
#include "model/io/csv_reader.h"
#include "model/io/file_io.h"

namespace servescope {

std::vector<UtilisationProfile> parse_glet_utilisation(const std::string& text, const std::string& file,
                                                       const std::string& gpu) {
  const CsvDocument doc(text, file);
  std::map<std::string, std::vector<UtilisationSample>> by_model;
  std::map<std::string, std::vector<int>> lines;
  for (const auto& row : doc.rows()) {
    if (row.cells.front() == "bench") continue;  // header
    doc.expect_columns(row, 6);
    const std::string model(row.cells[0]);
    UtilisationSample s;
    s.batch = static_cast<int>(doc.integer(row, 1, 1, kMaxBatchSize));
    s.sm_util = doc.number(row, 3, 0, 100) / 100.0;
    s.l2_util = doc.number(row, 4, 0, 100) / 100.0;
    s.dram_util = doc.number(row, 5, 0, 100) / 100.0;
    auto& samples = by_model[model];
    if (std::ranges::any_of(samples, [&](const UtilisationSample& o) { return o.batch == s.batch; }))
      doc.fail(row, 1, "a second row for model '" + model + "' at batch " + std::to_string(s.batch));
    samples.push_back(s);
  }
  if (by_model.empty()) throw InputError(file, "", "no utilisation rows");
  std::vector<UtilisationProfile> out;
  for (auto& [model, samples] : by_model) {
    std::ranges::sort(samples, {}, &UtilisationSample::batch);
    out.push_back(UtilisationProfile{model, gpu, std::move(samples), {}});
  }
  return out;
}

InterferenceModel parse_glet_interference(const std::string& text, const std::string& file, const std::string& gpu) {
  const CsvDocument doc(text, file);
  const CsvRow* values = nullptr;
  for (const auto& row : doc.rows()) {
    if (row.cells.front() == "l2_util_m1") continue;  // header
    if (values) doc.fail(row, "expected a single row of coefficients");
    values = &row;
  }
  if (!values) throw InputError(file, "", "no coefficient row");
  doc.expect_columns(*values, 5);
  InterferenceModel m;
  m.gpu = gpu;
  m.l2_self = doc.number(*values, 0, -100, 100);
  m.l2_other = doc.number(*values, 1, -100, 100);
  m.dram_self = doc.number(*values, 2, -100, 100);
  m.dram_other = doc.number(*values, 3, -100, 100);
  m.constant = doc.number(*values, 4, -100, 100);
  m.source = file;
  return m;
}

PartitionImportResult parse_partition_latency_csv(const std::string& text, const std::string& file,
                                                  const std::string& gpu) {
  const CsvDocument doc(text, file);
  // model -> partition % -> batch -> latency
  std::map<std::string, std::map<int, std::map<int, Duration>>> table;
  for (const auto& row : doc.rows()) {
    doc.expect_columns(row, 7);
    if (row.cells[5] != "latency") doc.fail(row, 5, "expected the word 'latency' in column 6");
    const std::string model(row.cells[0]);
    const auto batch = static_cast<int>(doc.integer(row, 1, 1, kMaxBatchSize));
    const auto pct = static_cast<int>(doc.integer(row, 2, 1, 100));
    const auto seconds = doc.number(row, 6, 0, 1e6);
    if (!table[model][pct].emplace(batch, Duration::from_s(seconds)).second)
      doc.fail(row,
               "a second row for '" + model + "' at " + std::to_string(pct) + "% and batch " + std::to_string(batch));
  }
  if (table.empty()) throw InputError(file, "", "no latency rows");
  PartitionImportResult result;
  result.profiles.name = "Partition latency tables";
  result.profiles.source = file;
  for (const auto& [model, by_pct] : table) {
    ModelProfile p;
    p.name = model;
    p.form = ProfileForm::Table;
    p.description = "latency by GPU partition and batch, from " + file;
    for (const auto& [pct, by_batch] : by_pct) {
      std::vector<int> batches;
      std::vector<Duration> latency;
      for (const auto& [b, l] : by_batch) {
        batches.push_back(b);
        latency.push_back(l);
      }
      int raised = 0;
      p.batch_tables.push_back(BatchTable{gpu, GpuShare::percent(pct), BatchCurve(batches, latency, &raised)});
      result.monotone_fixes += raised;
    }
    result.profiles.models.push_back(std::move(p));
  }
  return result;
}

GletImportResult import_glet(const std::string& util_csv, const std::string& interference_csv,
                             const std::string& partition_csv, const std::string& gpu_name, const GpuCatalog& catalog) {
  const auto& gpu = catalog.canonical_id(gpu_name);
  GletImportResult result;
  result.profiles.name = "glet profiles (" + gpu + ")";
  if (!partition_csv.empty()) {
    auto part = parse_partition_latency_csv(read_text_file(partition_csv), partition_csv, gpu);
    result.profiles = std::move(part.profiles);
    result.monotone_fixes = part.monotone_fixes;
  }
  if (!util_csv.empty()) result.profiles.utilisation = parse_glet_utilisation(read_text_file(util_csv), util_csv, gpu);
  if (!interference_csv.empty())
    result.profiles.interference.push_back(
        parse_glet_interference(read_text_file(interference_csv), interference_csv, gpu));
  return result;
}

}  // namespace servescope

#include "model/import/alphabeta_import.h"

#include <algorithm>
#include <map>

#include "model/core/error.h"
#include "model/io/csv_reader.h"
#include "model/io/file_io.h"

namespace servescope {

ProfileSet parse_alphabeta_csv(const std::string& text, const std::string& file, const GpuCatalog& catalog) {
  const CsvDocument doc(text, file);
  if (doc.rows().empty()) throw InputError(file, "", "empty table: expected a header row");
  const auto& header = doc.rows().front();
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < header.cells.size(); ++i) {
    const std::string name(header.cells[i]);
    if (!col.emplace(name, i).second) doc.fail(header, i, "column '" + name + "' appears twice");
  }
  auto find = [&](std::string_view name) -> std::optional<std::size_t> {
    const auto it = col.find(std::string(name));
    if (it == col.end()) return std::nullopt;
    return it->second;
  };
  // A duration column in ms or µs; the scale turns the cell into µs.
  auto duration_column = [&](std::string_view base, bool required) -> std::optional<std::pair<std::size_t, double>> {
    const auto ms = find(std::string(base) + "_ms");
    const auto us = find(std::string(base) + "_us");
    if (ms && us) doc.fail(header, "give " + std::string(base) + " in ms or in us, not both");
    if (ms) return std::pair{*ms, 1000.0};
    if (us) return std::pair{*us, 1.0};
    if (required) doc.fail(header, "missing column " + std::string(base) + "_ms (or " + std::string(base) + "_us)");
    return std::nullopt;
  };
  const auto model_col = find("model");
  const auto gpu_col = find("gpu");
  if (!model_col) doc.fail(header, "missing column 'model'");
  if (!gpu_col) doc.fail(header, "missing column 'gpu'");
  const auto alpha = *duration_column("alpha", true);
  const auto beta = *duration_column("beta", true);
  const auto slo = duration_column("slo", false);
  const auto max_batch = find("max_batch");

  ProfileSet set;
  set.name = "Linear fits from " + file;
  set.source = file;
  for (std::size_t r = 1; r < doc.rows().size(); ++r) {
    const auto& row = doc.rows()[r];
    const std::string model(doc.cell(row, *model_col));
    if (model.empty()) doc.fail(row, *model_col, "empty model name");
    const std::string gpu_name(doc.cell(row, *gpu_col));
    const auto* gpu = catalog.find(gpu_name);
    if (!gpu) doc.fail(row, *gpu_col, "unknown GPU type '" + gpu_name + "' (known: " + catalog.known_ids() + ")");
    LinearFit fit;
    fit.gpu = gpu->id;
    fit.share = GpuShare::whole();
    fit.alpha = Duration::from_us(doc.number(row, alpha.first, 0, kMaxFileDurationUs / alpha.second) * alpha.second);
    fit.beta = Duration::from_us(doc.number(row, beta.first, 0, kMaxFileDurationUs / beta.second) * beta.second);
    if (fit.alpha == Duration() && fit.beta == Duration()) doc.fail(row, "alpha and beta are both zero");
    if (max_batch) fit.max_batch = static_cast<int>(doc.integer(row, *max_batch, 1, kMaxBatchSize));

    auto it = std::ranges::find(set.models, model, &ModelProfile::name);
    if (it == set.models.end()) {
      ModelProfile p;
      p.name = model;
      p.form = ProfileForm::Linear;
      set.models.push_back(std::move(p));
      it = set.models.end() - 1;
    }
    if (std::ranges::any_of(it->linear_fits, [&](const LinearFit& f) { return f.gpu == fit.gpu; }))
      doc.fail(row, "a second fit for model '" + model + "' on " + fit.gpu);
    if (slo) {
      const auto value =
          Duration::from_us(doc.number(row, slo->first, 1e-3, kMaxFileDurationUs / slo->second) * slo->second);
      if (it->default_slo && *it->default_slo != value)
        doc.fail(row, slo->first, "model '" + model + "' already has a different SLO");
      it->default_slo = value;
    }
    it->linear_fits.push_back(fit);
  }
  if (set.models.empty()) throw InputError(file, "", "no data rows after the header");
  return set;
}

ProfileSet import_alphabeta_csv(const std::string& path, const GpuCatalog& catalog) {
  return parse_alphabeta_csv(read_text_file(path), path, catalog);
}

}  // namespace servescope

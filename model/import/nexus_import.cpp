#include "model/import/nexus_import.h"

#include "model/core/error.h"
#include "model/core/text.h"
#include "model/io/csv_reader.h"
#include "model/io/file_io.h"

namespace servescope {

NexusImportResult parse_nexus_profile(const std::string& text, const std::string& file, const GpuCatalog& catalog,
                                      const std::string& name) {
  const CsvDocument doc(text, file);
  const auto& rows = doc.rows();
  if (rows.size() < 2) throw InputError(file, "", "truncated: expected a model id line and a GPU line");
  const auto model_id = std::string(rows[0].cells.front());
  const auto gpu_name = std::string(rows[1].cells.front());
  const auto* gpu = catalog.find(gpu_name);
  if (!gpu) doc.fail(rows[1], 0, "unknown GPU type '" + gpu_name + "' (known: " + catalog.known_ids() + ")");

  enum class Section { None, Forward, Pre, Post } section = Section::None;
  std::vector<int> batches;
  std::vector<Duration> latency;
  std::optional<Duration> pre, post;
  for (std::size_t i = 2; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const auto first = row.cells.front();
    if (first == "Forward latency") {
      section = Section::Forward;
      continue;
    }
    if (first == "Preprocess latency") {
      section = Section::Pre;
      continue;
    }
    if (first == "Postprocess latency") {
      section = Section::Post;
      continue;
    }
    if (first == "batch" || first == "mean(us)") continue;  // column headers
    switch (section) {
      case Section::None:
        doc.fail(row, "expected a 'Forward latency' section first");
      case Section::Forward: {
        doc.expect_columns(row, 2);
        const auto b = static_cast<int>(doc.integer(row, 0, 1, kMaxBatchSize));
        if (!batches.empty() && b <= batches.back()) doc.fail(row, 0, "batch sizes must increase");
        batches.push_back(b);
        latency.push_back(Duration::from_us(doc.number(row, 1, 0, kMaxFileDurationUs)));
        break;
      }
      case Section::Pre:
        pre = Duration::from_us(doc.number(row, 0, 0, kMaxFileDurationUs));
        break;
      case Section::Post:
        post = Duration::from_us(doc.number(row, 0, 0, kMaxFileDurationUs));
        break;
    }
  }
  if (batches.empty()) throw InputError(file, "", "no forward-latency rows");

  NexusImportResult result;
  auto& p = result.profile;
  // "framework:model:version[:HxW]"
  const auto first_colon = model_id.find(':');
  const auto second_colon = model_id.find(':', first_colon == std::string::npos ? 0 : first_colon + 1);
  p.name = !name.empty() ? name
           : first_colon == std::string::npos
               ? model_id
               : model_id.substr(first_colon + 1, second_colon == std::string::npos ? std::string::npos
                                                                                    : second_colon - first_colon - 1);
  p.description = "Nexus profile " + model_id + " on " + gpu_name;
  p.form = ProfileForm::Table;
  p.preprocess = pre.value_or(Duration());
  p.postprocess = post.value_or(Duration());
  p.batch_tables.push_back(
      BatchTable{gpu->id, GpuShare::whole(), BatchCurve(batches, latency, &result.monotone_fixes)});
  return result;
}

NexusImportResult import_nexus_profile(const std::string& path, const GpuCatalog& catalog, const std::string& name) {
  return parse_nexus_profile(read_text_file(path), path, catalog, name);
}

}  // namespace servescope

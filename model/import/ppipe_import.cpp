#include "model/import/ppipe_import.h"

#include <algorithm>
#include <map>
#include <set>

#include "model/core/error.h"
#include "model/core/text.h"
#include "model/io/csv_reader.h"
#include "model/io/file_io.h"
#include "model/io/json_cursor.h"

namespace servescope {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kTimingDir = "models/block-timing-tf32";
constexpr std::string_view kTransPrefix = "contraction_trans-size_";

struct TimingFile {
  std::string dnn, gpu;
  int mps = 1;
  fs::path path;
};

// "{dnn}-{GPU}-{k}.csv": dnn names contain '-', GPU names and k do not.
std::optional<TimingFile> parse_timing_name(const fs::path& path) {
  if (path.extension() != ".csv") return std::nullopt;
  const std::string stem = path.stem().string();
  const auto k_dash = stem.rfind('-');
  if (k_dash == std::string::npos || k_dash == 0) return std::nullopt;
  const auto gpu_dash = stem.rfind('-', k_dash - 1);
  if (gpu_dash == std::string::npos || gpu_dash == 0) return std::nullopt;
  const auto k = parse_integer(std::string_view(stem).substr(k_dash + 1));
  if (!k || *k < 1 || *k > 64) return std::nullopt;
  return TimingFile{stem.substr(0, gpu_dash), stem.substr(gpu_dash + 1, k_dash - gpu_dash - 1), static_cast<int>(*k),
                    path};
}

std::vector<TimingFile> timing_files(const fs::path& data) {
  const auto dir = data / kTimingDir;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(dir.string(), "", "no such folder (expected the PPipe artifact's data/ folder)");
  std::vector<TimingFile> out;
  for (const auto& entry : fs::directory_iterator(dir))
    if (auto t = parse_timing_name(entry.path())) out.push_back(std::move(*t));
  std::ranges::sort(out, {}, [](const TimingFile& t) { return std::tie(t.dnn, t.gpu, t.mps); });
  return out;
}

std::vector<std::vector<Duration>> read_block_timing(const fs::path& path) {
  const CsvDocument doc(read_text_file(path), path.string());
  std::vector<std::vector<Duration>> rows;
  for (const auto& row : doc.rows()) {
    std::vector<Duration> cells;
    for (std::size_t c = 0; c < row.cells.size(); ++c)
      cells.push_back(Duration::from_us(doc.number(row, c, 0, kMaxFileDurationUs)));
    if (!rows.empty() && cells.size() != rows.front().size())
      doc.fail(row, "expected " + std::to_string(rows.front().size()) + " batch sizes like the first row, found " +
                        std::to_string(cells.size()));
    if (cells.size() > static_cast<std::size_t>(kMaxBatchSize)) doc.fail(row, "too many batch sizes");
    rows.push_back(std::move(cells));
  }
  if (rows.empty()) throw InputError(path.string(), "", "no block rows");
  if (rows.size() > static_cast<std::size_t>(kMaxBlocks)) throw InputError(path.string(), "", "too many blocks");
  return rows;
}

fs::path trans_size_file(const fs::path& data, const std::string& dnn, const std::string& wanted) {
  const auto dir = data / "prepartition_mappings" / dnn;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(dir.string(), "", "no such folder: the boundary sizes of '" + dnn + "' are missing");
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (name.starts_with(kTransPrefix) && entry.path().extension() == ".csv") {
      const auto variant = entry.path().stem().string().substr(kTransPrefix.size());
      if (wanted.empty() || variant == wanted) found.push_back(entry.path());
    }
  }
  std::ranges::sort(found);
  if (found.size() == 1) return found.front();
  if (found.empty())
    throw InputError(dir.string(), "", "no " + std::string(kTransPrefix) + (wanted.empty() ? "*" : wanted) + ".csv");
  std::string list;
  for (const auto& f : found)
    list += " " + f.filename().string();
  throw InputError(dir.string(), "", "several boundary-size files; choose one with --prepartition:" + list);
}

std::vector<std::int64_t> read_trans_sizes(const fs::path& path) {
  const CsvDocument doc(read_text_file(path), path.string());
  std::vector<std::int64_t> out;
  for (const auto& row : doc.rows()) {
    if (row.cells.size() != 1) doc.fail(row, "expected one byte count per line");
    out.push_back(doc.integer(row, 0, 0, std::int64_t{1} << 40));
  }
  return out;
}

// Mean whole-model L4 latency at batch 1 from trtexec's timing export; nullopt when absent.
std::optional<Duration> l4_mean_latency(const fs::path& data, const std::string& dnn) {
  const auto dir = data / "models/model-profile-tf32" / dnn / "L4-1" / "1";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (!name.ends_with(".engine.timing.json")) continue;
    const auto file = entry.path().string();
    const auto json = parse_json_text(read_text_file(entry.path()), file);
    const JsonCursor root(json, file);
    const auto n = root.size();
    if (n == 0) root.fail("no timing iterations");
    double sum_ms = 0;
    for (std::size_t i = 0; i < n; ++i)
      sum_ms += root[i].at("computeMs").as_double(0, 1e7);
    return Duration::from_ms(sum_ms / static_cast<double>(n));
  }
  return std::nullopt;
}

}  // namespace

fs::path ppipe_data_dir(const fs::path& dir) {
  std::error_code ec;
  if (fs::is_directory(dir / kTimingDir, ec)) return dir;
  if (fs::is_directory(dir / "data" / kTimingDir, ec)) return dir / "data";
  throw InputError(dir.string(), "", "not a PPipe data folder (no " + std::string(kTimingDir) + " inside)");
}

std::vector<std::string> list_ppipe_models(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& t : timing_files(ppipe_data_dir(dir)))
    names.insert(t.dnn);
  return {names.begin(), names.end()};
}

ModelProfile import_ppipe_model(const fs::path& dir, const std::string& dnn, const GpuCatalog& catalog,
                                const PpipeImportOptions& options) {
  const auto data = ppipe_data_dir(dir);
  ModelProfile p;
  p.name = dnn;
  p.form = ProfileForm::Blocks;
  p.description = "PPipe block timings (TensorRT, tf32) from " + data.string();
  for (const auto& t : timing_files(data)) {
    if (t.dnn != dnn) continue;
    const auto* gpu = catalog.find(t.gpu);
    if (!gpu)
      throw InputError(t.path.string(), "", "unknown GPU type '" + t.gpu + "' (known: " + catalog.known_ids() + ")");
    const auto rows = read_block_timing(t.path);
    if (p.block_tables.empty()) {
      p.block_count = static_cast<int>(rows.size());
    } else if (static_cast<int>(rows.size()) != p.block_count) {
      throw InputError(t.path.string(), "",
                       "has " + std::to_string(rows.size()) + " blocks; the other tables of '" + dnn + "' have " +
                           std::to_string(p.block_count));
    }
    BlockTable table{gpu->id, GpuShare::mps(t.mps), {}, {}, {}};
    const auto batches = batch_range(static_cast<int>(rows.front().size()));
    for (std::size_t b = 0; b < rows.size(); ++b) {
      int raised = 0;
      table.blocks.emplace_back(batches, rows[b], &raised);
      if (raised > 0)
        throw InputError(t.path.string(), "line " + std::to_string(b + 1),
                         "latency decreases with batch size; fix the profile (PPipe's are monotone)");
    }
    p.block_tables.push_back(std::move(table));
  }
  if (p.block_tables.empty())
    throw InputError((data / kTimingDir).string(), "", "no block timings for model '" + dnn + "'");
  const auto trans = trans_size_file(data, dnn, options.prepartition);
  p.boundary_bytes = read_trans_sizes(trans);
  if (p.boundary_bytes.size() != static_cast<std::size_t>(p.block_count - 1))
    throw InputError(trans.string(), "",
                     "has " + std::to_string(p.boundary_bytes.size()) + " boundary sizes; the model has " +
                         std::to_string(p.block_count) + " blocks, so " + std::to_string(p.block_count - 1) +
                         " are needed");
  if (auto l4 = l4_mean_latency(data, dnn)) {
    p.default_slo = Duration::from_us(l4->to_us() * options.slo_multiplier);
  }
  return p;
}

ProfileSet import_ppipe(const fs::path& dir, const std::vector<std::string>& dnns, const GpuCatalog& catalog,
                        const PpipeImportOptions& options) {
  ProfileSet set;
  set.name = "PPipe block profiles";
  set.source = "PPipe artifact (github.com/JonnyKong/PPipe) data/: block timings, boundary bytes, SLO = " +
               format_number(options.slo_multiplier) + " x mean L4 latency at batch 1";
  for (const auto& dnn : dnns)
    set.models.push_back(import_ppipe_model(dir, dnn, catalog, options));
  return set;
}

}  // namespace servescope

// file_fuzz's readers: every reader of a file ServeScope has, called in process as the CLI and the GUI
// call it (documents and projects with their plans and runs, pipeline and gpu-let plans, timelines,
// run series, load sweeps, the CSV and Nexus importers, trace files).
#include <cstdio>
#include <ostream>
#include <streambuf>
#include <string>
#include <utility>
#include <vector>

#include "engine/analysis/run_csv.h"
#include "engine/analysis/run_series.h"
#include "engine/analysis/saved_artifacts.h"
#include "engine/glet/glet_plan_json.h"
#include "engine/ppipe/pipeline_plan_json.h"
#include "engine/systems/scenario_planner.h"
#include "engine/timeline/chrome_trace.h"
#include "engine/timeline/timeline_data.h"
#include "model/gpu/gpu_catalog.h"
#include "model/import/alphabeta_import.h"
#include "model/import/glet_import.h"
#include "model/import/nexus_import.h"
#include "model/io/document.h"
#include "model/io/file_io.h"
#include "model/io/json_cursor.h"
#include "model/io/model_json.h"
#include "model/io/trace_file.h"
#include "tests/fuzz/file_fuzz_support.h"

using namespace servescope;

namespace file_fuzz {
namespace {

class NullBuffer : public std::streambuf {
 protected:
  int overflow(int c) override { return c == EOF ? 0 : c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

}  // namespace

const std::vector<Reader>& readers() {
  static const std::vector<Reader> all = [] {
    std::vector<Reader> r;
    r.push_back({"document (open in the GUI, validate)", Family::Json, [](const std::string& path) {
                   auto doc = load_document(path);
                   const auto project = project_from_document(std::move(doc), path);
                   (void)to_json(project).dump();  // what saving it writes
                 }});
    // Opening a project reads its kept plans and runs in full (saved_artifacts.h); the plan view
    // then summarises each plan and the run views read each run.
    r.push_back({"project plans and runs (plan and run views)", Family::Json, [](const std::string& path) {
                   const auto project = project_from_document(load_document(path), path);
                   engine::check_saved_artifacts(project, path);
                   for (const auto& plan : project.plans)
                     (void)engine::summarize_plan(plan.body, path);
                 }});
    r.push_back({"pipeline plan (simulate/sweep --plan)", Family::Json,
                 [](const std::string& path) { (void)engine::load_pipeline_plan(path); }});
    r.push_back({"glet plan (simulate --plan)", Family::Json,
                 [](const std::string& path) { (void)engine::load_glet_plan(path); }});
    r.push_back({"timeline (export chrome-trace)", Family::Json, [](const std::string& path) {
                   const auto timeline = engine::load_timeline(path);
                   NullBuffer null;
                   std::ostream out(&null);
                   engine::write_chrome_trace(out, timeline);
                 }});
    r.push_back({"run series (export metrics-csv, charts)", Family::Json, [](const std::string& path) {
                   const auto json = parse_json_text(read_text_file(path), path);
                   const auto series = engine::run_series(json, path);
                   NullBuffer null;
                   std::ostream out(&null);
                   engine::write_run_csv(out, series);
                 }});
    r.push_back({"load sweep (charts)", Family::Json, [](const std::string& path) {
                   (void)engine::attainment_vs_load(parse_json_text(read_text_file(path), path), path);
                 }});
    r.push_back({"alpha/beta CSV import", Family::Text, [](const std::string& path) {
                   (void)parse_alphabeta_csv(read_text_file(path), path, GpuCatalog::builtin());
                 }});
    r.push_back({"Nexus profile import", Family::Text, [](const std::string& path) {
                   (void)parse_nexus_profile(read_text_file(path), path, GpuCatalog::builtin());
                 }});
    r.push_back({"gpu-let utilisation import", Family::Text, [](const std::string& path) {
                   (void)parse_glet_utilisation(read_text_file(path), path, "RTX2080Ti");
                 }});
    r.push_back({"gpu-let interference import", Family::Text, [](const std::string& path) {
                   (void)parse_glet_interference(read_text_file(path), path, "RTX2080Ti");
                 }});
    r.push_back({"partition latency import", Family::Text, [](const std::string& path) {
                   (void)parse_partition_latency_csv(read_text_file(path), path, "RTX2080Ti");
                 }});
    r.push_back({"trace file", Family::Text, [](const std::string& path) { (void)load_trace_file(path); }});
    return r;
  }();
  return all;
}

}  // namespace file_fuzz

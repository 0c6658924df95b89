// Golden test against the PPipe authors' plans (../shared/data/PPipe/data/plans): for every
// partition, our profile query and transfer model recompute the latencies their planner used,
//   lat_infer = Σ block-timing[{dnn}-{gpu}-{mps+1}][start:end][bs−1]
//   lat_trans = bs × trans_size[end−1] × 8 / (bw_gbps × 10³)   (0 after the last block),
// within 0.05 µs. Skips when the reference data is absent.
#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>

#include "model/import/ppipe_import.h"
#include "model/import/ppipe_reference_plan.h"
#include "tests/support/test_support.h"

using namespace servescope;
namespace fs = std::filesystem;

TEST(PpipeGolden, RecomputesEveryReferencePartition) {
  SERVESCOPE_REQUIRE_SHARED_DATA("PPipe/data/plans");
  const auto data = shared_data / "PPipe/data";
  std::map<std::string, ModelProfile> profiles;
  int files = 0, partitions = 0, slo_checked = 0;
  double worst_infer = 0, worst_trans = 0;
  std::vector<fs::path> plan_files;
  for (const auto& dir : fs::directory_iterator(data / "plans"))
    if (dir.is_directory())
      for (const auto& f : fs::directory_iterator(dir.path()))
        if (f.path().extension() == ".json") plan_files.push_back(f.path());
  std::ranges::sort(plan_files);
  for (const auto& path : plan_files) {
    ++files;
    for (const auto& model : load_ppipe_reference_plan(path.string())) {
      auto it = profiles.find(model.dnn);
      if (it == profiles.end())
        it = profiles.emplace(model.dnn, import_ppipe_model(data, model.dnn, GpuCatalog::builtin())).first;
      const auto& profile = it->second;
      // The plan's SLO is 5 × the mean whole-model L4 latency the importer derives.
      ASSERT_TRUE(profile.default_slo) << model.dnn;
      EXPECT_NEAR(profile.default_slo->to_us(), model.slo_us, 0.01) << path;
      ++slo_checked;
      for (const auto& pipe : model.pipelines) {
        for (const auto& part : pipe.partitions) {
          ++partitions;
          const auto gpu = GpuCatalog::builtin().canonical_id(part.gpu);
          const auto infer = profile.latency({gpu, GpuShare::mps(part.mps_divisor), part.batch, part.blocks});
          const double trans_us =
              part.blocks.end < profile.blocks()
                  ? transfer_time(profile.cut_bytes(part.blocks.end) * part.batch, model.bw_gbps).to_us()
                  : 0.0;
          const double e_infer = std::fabs(infer.to_us() - part.lat_infer_us);
          const double e_trans = std::fabs(trans_us - part.lat_trans_us);
          worst_infer = std::max(worst_infer, e_infer);
          worst_trans = std::max(worst_trans, e_trans);
          EXPECT_LE(e_infer, 0.05) << path.filename() << " " << part.dnn << " " << part.gpu << " blocks ["
                                   << part.blocks.begin << "," << part.blocks.end << ") bs " << part.batch;
          EXPECT_LE(e_trans, 0.05) << path.filename() << " " << part.dnn << " cut " << part.blocks.end;
        }
      }
    }
  }
  EXPECT_EQ(files, 252);
  EXPECT_EQ(partitions, 1192) << "the reference set has 1,192 partitions";
  RecordProperty("partitions", partitions);
  RecordProperty("worst_lat_infer_error_us", std::to_string(worst_infer));
  RecordProperty("worst_lat_trans_error_us", std::to_string(worst_trans));
  std::cout << "recomputed " << partitions << " partitions from " << files << " plans (" << slo_checked
            << " SLOs); worst error: lat_infer " << worst_infer << " us, lat_trans " << worst_trans << " us\n";
}

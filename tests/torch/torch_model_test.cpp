// A model exported into blocks (scripts/export_model.py, run by the ctest fixture into
// SERVESCOPE_TORCH_MODELS) runs in LibTorch: its blocks in order give the whole model's output,
// a stage boundary survives the trip through bytes a feature map takes, inputs made from request
// ids are the same every time, and broken folders are refused naming the file.
#include "torchexec/torch_model.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>

#include "model/core/error.h"
#include "tests/support/test_support.h"

namespace servescope::torchexec {
namespace {

// Where the torch.export fixture writes (tests/CMakeLists.txt).
std::filesystem::path exported(const std::string& name) {
  return std::filesystem::path(SERVESCOPE_TORCH_MODELS) / name;
}

#define REQUIRE_MODEL(path)                                                                      \
  if ((path).empty() || !std::filesystem::exists((path) / kExportedModelManifest)) {             \
    GTEST_SKIP() << "no exported model at " << (path) << " (the torch.export fixture makes it)"; \
  }

TEST(TorchModel, BlocksInOrderGiveTheWholeModel) {
  const auto folder = exported("resnet18");
  REQUIRE_MODEL(folder);
  const TorchModel model(read_exported_model(folder));
  ASSERT_EQ(model.blocks(), 3u);
  const std::vector<std::uint64_t> ids{1, 2, 3, 40};
  const auto input = model.synthesize_input(ids);
  EXPECT_EQ(input.shape(), (std::vector<std::int64_t>{4, 3, 32, 32}));
  const auto whole = model.run_whole(input);
  const auto split = model.run(0, model.blocks(), input);
  EXPECT_EQ(split.shape(), whole.shape());
  EXPECT_LE(split.max_abs_difference(whole), 1e-4 * std::max(1.0, whole.max_abs()));
  // Two stages with the feature map in between as bytes, as a pipeline moves it.
  const auto first = model.run(0, 1, input);
  EXPECT_EQ(first.bytes(), 4 * model.manifest().cut_bytes(1));
  auto shape = first.shape();
  const auto bytes = first.to_bytes();
  const auto received = Tensor::from_bytes(bytes, shape);
  const auto second = model.run(1, model.blocks(), received);
  EXPECT_LE(second.max_abs_difference(whole), 1e-4 * std::max(1.0, whole.max_abs()));
  // The same ids give the same input; another id another.
  EXPECT_EQ(model.synthesize_input(ids).max_abs_difference(input), 0.0);
  const std::vector<std::uint64_t> other{1, 2, 3, 41};
  EXPECT_GT(model.synthesize_input(other).max_abs_difference(input), 0.0);
  EXPECT_THROW((void)Tensor::from_bytes(std::span(bytes).first(bytes.size() - 4), shape), QueryError);
  EXPECT_THROW((void)model.run(2, 1, input), QueryError);
}

// Issue 48: models of a user's own run in their dtypes. Token ids are synthesised below the
// vocabulary, the same for the same request; the blocks in order give the whole model; the
// binned model's int64 cut survives the trip through bytes; the encoder's blocks got even work.
TEST(TorchModel, OwnModelsRunInTheirDtypes) {
  for (const std::string name : {"encoder", "gru_classifier", "binned"}) {
    SCOPED_TRACE(name);
    const auto folder = exported(name);
    REQUIRE_MODEL(folder);
    const TorchModel model(read_exported_model(folder));
    EXPECT_EQ(model.manifest().name, name);  // the factory's name, not the file's
    const std::vector<std::uint64_t> ids{5, 6, 7};
    const auto input = model.synthesize_input(ids);
    EXPECT_EQ(input.shape(), (std::vector<std::int64_t>{3, 32}));
    if (name != "binned") {
      EXPECT_EQ(model.manifest().input_dtype, TensorDType::Int64);
      EXPECT_EQ(model.manifest().vocabulary, 1000);
      EXPECT_EQ(input.bytes(), 3 * 32 * 8);
      EXPECT_LT(input.max_abs(), 1000.0);  // every id in the vocabulary
    } else {
      EXPECT_EQ(model.manifest().input_dtype, TensorDType::Float32);
      EXPECT_LE(input.max_abs(), 1.0);
    }
    EXPECT_EQ(model.synthesize_input(ids).max_abs_difference(input), 0.0);
    const auto whole = model.run_whole(input);
    EXPECT_LE(model.run(0, model.blocks(), input).max_abs_difference(whole), 1e-5 * std::max(1.0, whole.max_abs()));
    // Every cut through bytes, in the dtype the manifest gives it.
    for (std::size_t cut = 1; cut < model.blocks(); ++cut) {
      const auto before = model.run(0, cut, input);
      EXPECT_EQ(before.bytes(), 3 * model.manifest().cut_bytes(cut));
      const auto received =
          Tensor::from_bytes(before.to_bytes(), before.shape(), model.manifest().blocks[cut].input_dtype);
      const auto after = model.run(cut, model.blocks(), received);
      EXPECT_LE(after.max_abs_difference(whole), 1e-5 * std::max(1.0, whole.max_abs())) << "cut " << cut;
    }
  }
  const auto binned = exported("binned");
  REQUIRE_MODEL(binned);
  const auto manifest = read_exported_model(binned);
  EXPECT_EQ(manifest.blocks[0].output_dtype, TensorDType::Int64);
  EXPECT_EQ(manifest.cut_bytes(1), 32 * 8);
}

// Copies the exported folder, breaks one thing, and expects the load to name the file.
void expect_refused(const std::filesystem::path& folder,
                    const std::function<void(const std::filesystem::path&)>& breaks, const std::string& file,
                    const std::string& says) {
  test::TempDir tmp;
  const auto copy = tmp.path() / "model";
  std::filesystem::copy(folder, copy);
  breaks(copy);
  try {
    const TorchModel model(read_exported_model(copy));
    ADD_FAILURE() << "loaded a broken folder (" << says << ")";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(file), std::string::npos) << what;
    EXPECT_NE(what.find(says), std::string::npos) << what;
  }
}

TEST(TorchModel, BrokenFoldersAreRefusedNamingTheFile) {
  const auto folder = exported("resnet18");
  REQUIRE_MODEL(folder);
  // A corrupt TorchScript file.
  expect_refused(
      folder, [](const auto& dir) { std::ofstream(dir / "block_01.pt") << "not a zip archive"; }, "block_01.pt",
      "not a TorchScript file");
  // A missing block.
  expect_refused(
      folder, [](const auto& dir) { std::filesystem::remove(dir / "block_02.pt"); }, "block_02.pt",
      "not a regular file");
  // A block swapped for another: its tensors disagree with the manifest.
  expect_refused(
      folder,
      [](const auto& dir) {
        std::filesystem::copy_file(dir / "block_02.pt", dir / "block_01.pt",
                                   std::filesystem::copy_options::overwrite_existing);
      },
      "block_01.pt", "failed");
}

}  // namespace
}  // namespace servescope::torchexec

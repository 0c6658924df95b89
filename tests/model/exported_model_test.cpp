// A model folder's manifest (docs/formats.md "Model folders") is checked before LibTorch sees a
// file: shapes that chain, bytes per sample that match the shapes, plain file names of files that
// exist. Each refusal is an InputError naming the manifest and the place.
#include "model/exported/exported_model.h"

#include <gtest/gtest.h>

#include "model/core/error.h"
#include "tests/support/test_support.h"

namespace servescope {
namespace {

const char* kGood = R"({"schema_version": 1, "kind": "torch-model", "name": "tiny", "seed": 3,
 "input": {"shape": [3, 8, 8], "dtype": "float32"}, "output_shape": [10], "whole": "whole.pt",
 "blocks": [{"file": "block_00.pt", "input_shape": [3, 8, 8], "output_shape": [4, 4, 4], "output_bytes_per_sample": 256},
            {"file": "block_01.pt", "input_shape": [4, 4, 4], "output_shape": [10], "output_bytes_per_sample": 40}]})";

struct Folder {
  test::TempDir dir;
  explicit Folder(const std::string& manifest) {
    dir.write("block_00.pt", "x");
    dir.write("block_01.pt", "x");
    dir.write("whole.pt", "x");
    dir.write(kExportedModelManifest, manifest);
  }
};

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(ExportedModel, ReadsAFolderWhoseShapesChain) {
  Folder f(kGood);
  const auto m = read_exported_model(f.dir.path());
  EXPECT_EQ(m.name, "tiny");
  EXPECT_EQ(m.seed, 3u);
  EXPECT_EQ(m.input_shape, (std::vector<std::int64_t>{3, 8, 8}));
  ASSERT_EQ(m.blocks.size(), 2u);
  EXPECT_EQ(m.cut_bytes(1), 256);
  EXPECT_EQ(m.path_of(m.blocks[1].file), f.dir.path() / "block_01.pt");
  EXPECT_EQ(element_count({3, 8, 8}), 192);
}

// Issue 48: token ids in, an int64 cut inside; a manifest without dtypes holds float32.
TEST(ExportedModel, ReadsEachBoundarysDtype) {
  const std::string tokens = R"({"schema_version": 1, "kind": "torch-model", "name": "enc", "seed": 0,
 "input": {"shape": [32], "dtype": "int64", "vocabulary": 1000}, "output_shape": [8], "whole": "whole.pt",
 "work_shares": [0.5, 0.5],
 "blocks": [{"file": "block_00.pt", "input_shape": [32], "input_dtype": "int64", "output_shape": [32],
             "output_dtype": "int32", "output_bytes_per_sample": 128},
            {"file": "block_01.pt", "input_shape": [32], "input_dtype": "int32", "output_shape": [8],
             "output_dtype": "float16", "output_bytes_per_sample": 16}]})";
  Folder f(tokens);
  const auto m = read_exported_model(f.dir.path());
  EXPECT_EQ(m.input_dtype, TensorDType::Int64);
  EXPECT_EQ(m.vocabulary, 1000);
  EXPECT_EQ(m.blocks[0].output_dtype, TensorDType::Int32);
  EXPECT_EQ(m.blocks[1].input_dtype, TensorDType::Int32);
  EXPECT_EQ(m.cut_bytes(1), 128);
  const auto old = read_exported_model(Folder(kGood).dir.path());
  EXPECT_EQ(old.input_dtype, TensorDType::Float32);
  EXPECT_EQ(old.blocks[1].output_dtype, TensorDType::Float32);
  EXPECT_EQ(old.vocabulary, 0);
  EXPECT_EQ(element_bytes(TensorDType::Bool), 1);
  EXPECT_EQ(parse_tensor_dtype("float16"), TensorDType::Float16);
  EXPECT_FALSE(parse_tensor_dtype("float64").has_value());
}

TEST(ExportedModel, RefusesABadFolderNamingTheFileAndThePlace) {
  struct Case {
    std::string from, to, says;
  };
  const std::vector<Case> cases = {
      {R"("output_bytes_per_sample": 256)", R"("output_bytes_per_sample": 255)",
       "255 bytes per sample, but a float32 4x4x4 tensor is 256"},
      {R"("input_shape": [4, 4, 4])", R"("input_shape": [4, 4, 5])", "block 1 takes 4x4x5 but block 0 gives 4x4x4"},
      {R"("input_shape": [3, 8, 8], "output_shape")", R"("input_shape": [3, 8, 9], "output_shape")",
       "the model's input is 3x8x8"},
      {R"("output_shape": [10], "whole")", R"("output_shape": [11], "whole")", "its last block gives 10"},
      {R"("file": "block_01.pt")", R"("file": "missing.pt")", "'missing.pt' is not a regular file"},
      {R"("file": "block_01.pt")", R"("file": "../block_01.pt")", "is not a plain file name"},
      {R"("dtype": "float32")", R"("dtype": "complex64")", "expected a dtype (float32, float16, int64, int32, bool)"},
      {R"("dtype": "float32")", R"("dtype": "int64")", "vocabulary"},
      {R"("dtype": "float32")", R"("dtype": "float32", "vocabulary": 10)", "only an integer input has a vocabulary"},
      {R"("output_shape": [4, 4, 4], "output_bytes_per_sample": 256)",
       R"("output_shape": [4, 4, 4], "output_dtype": "int64", "output_bytes_per_sample": 256)",
       "256 bytes per sample, but a int64 4x4x4 tensor is 512"},
      {R"("input_shape": [4, 4, 4])", R"("input_shape": [4, 4, 4], "input_dtype": "int32")",
       "block 1 takes int32 but block 0 gives float32"},
      {R"("kind": "torch-model")", R"("kind": "profiles")", "torch-model"},
      {R"("output_shape": [4, 4, 4])", R"("output_shape": [])", "1 to 8 dimensions"},
      {R"("seed": 3)", R"("seed": 3, "bogus": 1)", "bogus"},
  };
  for (const auto& c : cases) {
    Folder f(replaced(kGood, c.from, c.to));
    try {
      (void)read_exported_model(f.dir.path());
      ADD_FAILURE() << "accepted: " << c.to;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(kExportedModelManifest), std::string::npos) << what;
      EXPECT_NE(what.find(c.says), std::string::npos) << what;
    }
  }
  test::TempDir empty;
  EXPECT_THROW((void)read_exported_model(empty.path()), InputError);  // no manifest
  EXPECT_THROW((void)read_exported_model(empty.path() / "nope"), InputError);
}

}  // namespace
}  // namespace servescope

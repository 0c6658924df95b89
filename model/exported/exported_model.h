// A model exported into blocks (scripts/export_model.py; docs/formats.md "Model folders"): a folder
// with one TorchScript file per block, the whole model for checking outputs, and a manifest
// (servescope-model.json) giving the input's shape and dtype (token ids: with the vocabulary they
// are drawn from) and, per block, its input and output tensor shapes and dtypes and the bytes per
// sample that cross the cut after it: PPipe's pre-partitioned model
// (seed 000 §2.1), made from a real network. This is the folder's format only; loading and running
// the TorchScript is torchexec/'s job, so the format can be read and checked without LibTorch.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace servescope {

inline constexpr const char* kExportedModelManifest = "servescope-model.json";
inline constexpr std::size_t kMaxExportedBlocks = 1024;
inline constexpr std::size_t kMaxTensorRank = 8;

// What a boundary's tensor holds (issue 48): manifests without it hold float32.
enum class TensorDType : std::uint8_t { Float32, Float16, Int64, Int32, Bool };
std::string_view to_string(TensorDType dtype);
std::optional<TensorDType> parse_tensor_dtype(std::string_view text);
std::int64_t element_bytes(TensorDType dtype);
bool is_integer(TensorDType dtype);  // int64, int32: drawn below a vocabulary when synthesised

struct ExportedBlock {
  std::string file;                                     // relative to the folder, a plain file name
  std::vector<std::int64_t> input_shape, output_shape;  // per sample (no batch dimension)
  TensorDType input_dtype = TensorDType::Float32, output_dtype = TensorDType::Float32;
  std::int64_t output_bytes_per_sample = 0;
};

struct ExportedModel {
  std::filesystem::path folder;
  std::string name;
  std::string source;  // how it was built, e.g. "torchvision.models.resnet50(weights=None)"
  std::uint64_t seed = 0;
  std::vector<std::int64_t> input_shape;  // per sample
  TensorDType input_dtype = TensorDType::Float32;
  std::int64_t vocabulary = 0;  // integer inputs take 0 … vocabulary − 1 (0 for other dtypes)
  std::string whole;            // the whole model's file
  std::vector<ExportedBlock> blocks;

  std::filesystem::path path_of(const std::string& file) const { return folder / file; }
  // Bytes per sample crossing the cut before block j (0 < j < blocks.size()).
  std::int64_t cut_bytes(std::size_t j) const { return blocks.at(j - 1).output_bytes_per_sample; }
};

// Elements of a per-sample shape; throws QueryError when it does not fit 2^40.
std::int64_t element_count(const std::vector<std::int64_t>& shape);
// "3x224x224", as messages write a shape.
std::string shape_text(const std::vector<std::int64_t>& shape);

// Reads and checks the folder's manifest: the kind and version, shapes and dtypes that chain from
// the input through every block, bytes per sample that agree with each output's shape and dtype, an
// integer input's vocabulary, and
// files that are plain names of regular files in the folder. Throws InputError naming the
// manifest (or the missing file) and the place.
ExportedModel read_exported_model(const std::filesystem::path& folder);

}  // namespace servescope

#include "model/exported/exported_model.h"

#include "model/core/error.h"
#include "model/core/text.h"
#include "model/io/file_io.h"
#include "model/io/json_cursor.h"
#include "model/io/json_text.h"

namespace servescope {
namespace {

constexpr std::int64_t kMaxElements = std::int64_t{1} << 40;
constexpr std::int64_t kMaxElementBytes = 8;
constexpr int kDTypeCount = 5;

TensorDType dtype_from(const JsonCursor& c) {
  const auto text = c.as_string();
  const auto dtype = parse_tensor_dtype(text);
  if (!dtype) c.fail("expected a dtype (float32, float16, int64, int32, bool), got '" + text + "'");
  return *dtype;
}

// The dtype at `key` of `c`, float32 where a manifest written before dtypes leaves it out.
TensorDType dtype_or_float(const JsonCursor& c, std::string_view key) {
  const auto at = c.find(key);
  return at ? dtype_from(*at) : TensorDType::Float32;
}

std::vector<std::int64_t> shape_from(const JsonCursor& c) {
  const std::size_t rank = c.size();
  if (rank == 0 || rank > kMaxTensorRank)
    c.fail("a shape has 1 to " + std::to_string(kMaxTensorRank) + " dimensions, not " + std::to_string(rank));
  std::vector<std::int64_t> shape;
  for (std::size_t i = 0; i < rank; ++i)
    shape.push_back(c[i].as_int(1, kMaxElements));
  std::int64_t n = 1;
  for (const auto d : shape) {
    if (n > kMaxElements / d) c.fail("a shape of more than 2^40 elements per sample");
    n *= d;
  }
  return shape;
}

// A file named by the manifest: a plain name (no folder, no "..") of a regular file beside it.
std::string file_in(const JsonCursor& c, const std::filesystem::path& folder) {
  auto name = c.as_string();
  const std::filesystem::path p(name);
  if (p.has_parent_path() || name == "." || name == ".." || p.is_absolute())
    c.fail("'" + name + "' is not a plain file name in the model folder");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(folder / p, ec))
    c.fail("'" + name + "' is not a regular file in " + folder.string());
  return name;
}

}  // namespace

std::string_view to_string(TensorDType dtype) {
  switch (dtype) {
    case TensorDType::Float32:
      return "float32";
    case TensorDType::Float16:
      return "float16";
    case TensorDType::Int64:
      return "int64";
    case TensorDType::Int32:
      return "int32";
    case TensorDType::Bool:
      return "bool";
  }
  return "?";
}

std::optional<TensorDType> parse_tensor_dtype(std::string_view text) {
  return enum_from_string<TensorDType>(text, kDTypeCount);
}

std::int64_t element_bytes(TensorDType dtype) {
  switch (dtype) {
    case TensorDType::Float32:
    case TensorDType::Int32:
      return 4;
    case TensorDType::Float16:
      return 2;
    case TensorDType::Int64:
      return 8;
    case TensorDType::Bool:
      return 1;
  }
  return 4;
}

bool is_integer(TensorDType dtype) {
  return dtype == TensorDType::Int64 || dtype == TensorDType::Int32;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out;
  for (const auto d : shape)
    out += (out.empty() ? "" : "x") + std::to_string(d);
  return out;
}

std::int64_t element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (const auto d : shape) {
    if (d <= 0 || n > kMaxElements / d) throw QueryError("tensor shape " + shape_text(shape) + " is out of range");
    n *= d;
  }
  return n;
}

ExportedModel read_exported_model(const std::filesystem::path& folder) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec))
    throw InputError(folder.string(), "", "not a model folder (export one with scripts/export_model.py)");
  const auto manifest = folder / kExportedModelManifest;
  const std::string file = manifest.string();
  const auto json = parse_json_text(read_text_file(manifest, 16u << 20), file);
  const JsonCursor root(json, file);
  expect_document_header(root, "torch-model");
  root.expect_object({"schema_version", "kind", "name", "source", "seed", "input", "output_shape", "whole", "check",
                      "blocks", "work_shares"});
  ExportedModel m;
  m.folder = folder;
  m.name = root.at("name").as_string();
  m.source = root.string_or("source", "");
  m.seed = static_cast<std::uint64_t>(root.int_or("seed", 0, 0, std::int64_t{1} << 62));
  const auto input = root.at("input");
  input.expect_object({"shape", "dtype", "vocabulary"});
  m.input_shape = shape_from(input.at("shape"));
  m.input_dtype = dtype_or_float(input, "dtype");
  if (is_integer(m.input_dtype))
    m.vocabulary = input.at("vocabulary").as_int(1, kMaxElements);  // what synthesised ids are drawn below
  else if (const auto v = input.find("vocabulary"))
    v->fail("only an integer input has a vocabulary");
  m.whole = file_in(root.at("whole"), folder);
  const auto blocks = root.at("blocks");
  if (blocks.size() == 0 || blocks.size() > kMaxExportedBlocks)
    blocks.fail("a model has 1 to " + std::to_string(kMaxExportedBlocks) + " blocks, not " +
                std::to_string(blocks.size()));
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const auto b = blocks[k];
    b.expect_object({"file", "input_shape", "input_dtype", "output_shape", "output_dtype", "output_bytes_per_sample"});
    ExportedBlock block;
    block.file = file_in(b.at("file"), folder);
    block.input_shape = shape_from(b.at("input_shape"));
    block.output_shape = shape_from(b.at("output_shape"));
    block.input_dtype = dtype_or_float(b, "input_dtype");
    block.output_dtype = dtype_or_float(b, "output_dtype");
    block.output_bytes_per_sample = b.at("output_bytes_per_sample").as_int(1, kMaxElements * kMaxElementBytes);
    if (const auto expected = k == 0 ? m.input_dtype : m.blocks.back().output_dtype; block.input_dtype != expected)
      b.at("input_dtype")
          .fail("block " + std::to_string(k) + " takes " + std::string(to_string(block.input_dtype)) + " but " +
                (k == 0 ? "the model's input is " : "block " + std::to_string(k - 1) + " gives ") +
                std::string(to_string(expected)));
    const auto& expected_in = k == 0 ? m.input_shape : m.blocks.back().output_shape;
    if (block.input_shape != expected_in)
      b.at("input_shape")
          .fail("block " + std::to_string(k) + " takes " + shape_text(block.input_shape) + " but " +
                (k == 0 ? "the model's input is " : "block " + std::to_string(k - 1) + " gives ") +
                shape_text(expected_in));
    if (const auto bytes = element_count(block.output_shape) * element_bytes(block.output_dtype);
        block.output_bytes_per_sample != bytes)
      b.at("output_bytes_per_sample")
          .fail(std::to_string(block.output_bytes_per_sample) + " bytes per sample, but a " +
                std::string(to_string(block.output_dtype)) + " " + shape_text(block.output_shape) + " tensor is " +
                std::to_string(bytes));
    m.blocks.push_back(std::move(block));
  }
  if (const auto out = root.find("output_shape"); out && shape_from(*out) != m.blocks.back().output_shape)
    out->fail("the model's output is " + shape_text(shape_from(*out)) + " but its last block gives " +
              shape_text(m.blocks.back().output_shape));
  return m;
}

}  // namespace servescope

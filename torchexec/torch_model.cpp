#include "torchexec/torch_model.h"

#include <ATen/Parallel.h>
#include <cstring>
#include <torch/cuda.h>
#include <torch/script.h>

#include "model/core/error.h"

// With a CUDA LibTorch (torchexec/CMakeLists.txt): Debian's ships these headers too, but not the
// libraries behind them.
#ifdef SERVESCOPE_TORCH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAStream.h>

#include "cudaexec/device_properties.h"
#endif

namespace servescope::torchexec {
namespace {

// LibTorch's messages run to many lines (a C++ backtrace, a TorchScript traceback): the first
// line says what failed to load, the last non-empty one what went wrong in a run.
std::string first_line(std::string text) {
  if (const auto nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  return text;
}

std::string last_line(const std::string& text) {
  auto end = text.find_last_not_of("\n ");
  if (end == std::string::npos) return text;
  const auto start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end + 1 - (start == std::string::npos ? 0 : start + 1));
}

std::vector<std::int64_t> per_sample(const at::Tensor& t) {
  const auto sizes = t.sizes();
  return {sizes.begin() + 1, sizes.end()};
}

torch::jit::Module load(const std::filesystem::path& path, const torch::Device& device) {
  try {
    auto m = torch::jit::load(path.string(), device);
    m.eval();
    return m;
  } catch (const c10::Error& e) {
    throw InputError(path.string(), "",
                     "not a TorchScript file LibTorch can load: " + first_line(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    throw InputError(path.string(), "", "not a TorchScript file LibTorch can load: " + first_line(e.what()));
  }
}

at::Tensor forward(torch::jit::Module& m, const at::Tensor& x, const std::filesystem::path& file) {
  try {
    auto out = m.forward({x});
    if (!out.isTensor()) throw InputError(file.string(), "", "the block returns " + out.tagKind() + ", not a tensor");
    return out.toTensor();
  } catch (const InputError&) {
    throw;
  } catch (const c10::Error& e) {
    throw InputError(
        file.string(), "",
        "running it on a " + shape_text(x.sizes().vec()) + " tensor failed: " + last_line(e.what_without_backtrace()));
  } catch (const std::exception& e) {  // the TorchScript interpreter's errors, with their traceback
    throw InputError(file.string(), "",
                     "running it on a " + shape_text(x.sizes().vec()) + " tensor failed: " + last_line(e.what()));
  }
}

// Waits for the kernels that compute `x`: on CUDA a forward pass returns once they are queued.
// Only this thread's stream: another slot's kernels on the same GPU are not this batch's time.
void finish(const torch::Tensor& x) {
  if (!x.is_cuda()) return;
#ifdef SERVESCOPE_TORCH_CUDA
  c10::cuda::getCurrentCUDAStream(x.device().index()).synchronize();
#else
  torch::cuda::synchronize(x.device().index());
#endif
}

torch::ScalarType scalar_type(TensorDType dtype) {
  switch (dtype) {
    case TensorDType::Float32:
      return torch::kFloat32;
    case TensorDType::Float16:
      return torch::kFloat16;
    case TensorDType::Int64:
      return torch::kInt64;
    case TensorDType::Int32:
      return torch::kInt32;
    case TensorDType::Bool:
      return torch::kBool;
  }
  return torch::kFloat32;
}

constexpr const char* kNoCuda =
    "this LibTorch has no CUDA (Debian's libtorch-dev is built for the CPU only: build servescope-torch against a "
    "CUDA LibTorch, as bench/gpu/build_torch.sh does with PyTorch's); use --device cpu";

}  // namespace

struct Tensor::Impl {
  at::Tensor t;
};

Tensor::Tensor() : impl_(std::make_unique<Impl>()) {}
Tensor::~Tensor() = default;
Tensor::Tensor(Tensor&&) noexcept = default;
Tensor& Tensor::operator=(Tensor&&) noexcept = default;
Tensor::Tensor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::vector<std::int64_t> Tensor::shape() const {
  return impl_->t.defined() ? impl_->t.sizes().vec() : std::vector<std::int64_t>{};
}

std::int64_t Tensor::bytes() const {
  return impl_->t.defined() ? static_cast<std::int64_t>(impl_->t.numel() * impl_->t.element_size()) : 0;
}

std::vector<std::uint8_t> Tensor::to_bytes() const {
  const auto c = impl_->t.cpu().contiguous();
  std::vector<std::uint8_t> out(static_cast<std::size_t>(c.numel() * c.element_size()));
  if (!out.empty()) std::memcpy(out.data(), c.data_ptr(), out.size());
  return out;
}

Tensor Tensor::from_bytes(std::span<const std::uint8_t> bytes, const std::vector<std::int64_t>& shape,
                          TensorDType dtype) {
  const auto expected = static_cast<std::size_t>(element_count(shape) * element_bytes(dtype));
  if (bytes.size() != expected)
    throw QueryError("a " + shape_text(shape) + " " + std::string(to_string(dtype)) + " tensor is " +
                     std::to_string(expected) + " bytes, not " + std::to_string(bytes.size()));
  auto t = torch::empty(shape, scalar_type(dtype));
  if (expected > 0) std::memcpy(t.data_ptr(), bytes.data(), expected);
  return Tensor(std::make_unique<Impl>(Impl{std::move(t)}));
}

double Tensor::max_abs_difference(const Tensor& other) const {
  if (shape() != other.shape())
    throw QueryError("comparing a " + shape_text(shape()) + " tensor with a " + shape_text(other.shape()) + " one");
  return (impl_->t - other.impl_->t).abs().max().item<double>();
}

double Tensor::max_abs() const {
  return impl_->t.numel() ? impl_->t.abs().max().item<double>() : 0.0;
}

std::vector<Tensor> Tensor::samples() const {
  std::vector<Tensor> out;
  if (!impl_->t.defined()) return out;
  for (auto& part : impl_->t.split(1))
    out.emplace_back(std::make_unique<Impl>(Impl{std::move(part)}));
  return out;
}

Tensor Tensor::concat(const std::vector<const Tensor*>& parts) {
  std::vector<at::Tensor> ts;
  ts.reserve(parts.size());
  for (const auto* p : parts)
    ts.push_back(p->impl_->t);
  if (ts.size() == 1) return Tensor(std::make_unique<Impl>(Impl{ts.front()}));
  try {
    return Tensor(std::make_unique<Impl>(Impl{torch::cat(ts)}));
  } catch (const c10::Error& e) {
    throw QueryError("samples of different shapes cannot make one batch: " + first_line(e.what_without_backtrace()));
  }
}

struct TorchModel::Impl {
  torch::Device device{torch::kCPU};
  std::vector<torch::jit::Module> blocks;
  torch::jit::Module whole;
};

TorchModel::TorchModel(ExportedModel manifest, ComputeDevice device)
    : manifest_(std::move(manifest)), impl_(std::make_unique<Impl>()) {
  if (device == ComputeDevice::Cuda) {
    if (!cuda_available()) throw QueryError(kNoCuda);
    impl_->device = torch::Device(torch::kCUDA);
  }
  torch::NoGradGuard no_grad;
  for (const auto& b : manifest_.blocks)
    impl_->blocks.push_back(load(manifest_.path_of(b.file), impl_->device));
  impl_->whole = load(manifest_.path_of(manifest_.whole), impl_->device);
  // One sample through every block: the shapes must be the manifest's, or a stage would send
  // feature maps of one size while the plan moved another.
  std::vector<std::int64_t> shape{1};
  shape.insert(shape.end(), manifest_.input_shape.begin(), manifest_.input_shape.end());
  // Zeros of the input's dtype: a token id of 0 is in every vocabulary.
  const auto options = torch::TensorOptions().device(impl_->device).dtype(scalar_type(manifest_.input_dtype));
  auto x = torch::zeros(shape, options);
  for (std::size_t k = 0; k < impl_->blocks.size(); ++k) {
    const auto& b = manifest_.blocks[k];
    const auto file = manifest_.path_of(b.file);
    x = forward(impl_->blocks[k], x, file);
    if (per_sample(x) != b.output_shape)
      throw InputError(
          file.string(), "",
          "gives " + shape_text(per_sample(x)) + " per sample, but the manifest says " + shape_text(b.output_shape));
    // A feature map travels as its dtype's bytes: one of another dtype would be read wrongly.
    if (x.scalar_type() != scalar_type(b.output_dtype))
      throw InputError(file.string(), "",
                       "gives " + std::string(c10::toString(x.scalar_type())) + ", but the manifest says " +
                           std::string(to_string(b.output_dtype)));
  }
  const auto out = forward(impl_->whole, torch::zeros(shape, options), manifest_.path_of(manifest_.whole));
  if (per_sample(out) != manifest_.blocks.back().output_shape)
    throw InputError(manifest_.path_of(manifest_.whole).string(), "",
                     "gives " + shape_text(per_sample(out)) + " per sample, but the last block gives " +
                         shape_text(manifest_.blocks.back().output_shape));
}

TorchModel::~TorchModel() = default;

ComputeDevice TorchModel::device() const {
  return impl_->device.is_cuda() ? ComputeDevice::Cuda : ComputeDevice::Cpu;
}

Tensor TorchModel::run(std::size_t begin, std::size_t end, const Tensor& input) const {
  if (begin >= end || end > impl_->blocks.size())
    throw QueryError("blocks [" + std::to_string(begin) + ", " + std::to_string(end) + ") of model '" + manifest_.name +
                     "', which has " + std::to_string(impl_->blocks.size()));
  torch::NoGradGuard no_grad;
  auto x = input.impl().t.to(impl_->device);
  for (std::size_t k = begin; k < end; ++k)
    x = forward(impl_->blocks[k], x, manifest_.path_of(manifest_.blocks[k].file));
  finish(x);
  return Tensor(std::make_unique<Tensor::Impl>(Tensor::Impl{std::move(x)}));
}

Tensor TorchModel::run_whole(const Tensor& input) const {
  torch::NoGradGuard no_grad;
  auto x = forward(impl_->whole, input.impl().t.to(impl_->device), manifest_.path_of(manifest_.whole));
  finish(x);
  return Tensor(std::make_unique<Tensor::Impl>(Tensor::Impl{std::move(x)}));
}

Tensor TorchModel::synthesize_input(std::span<const std::uint64_t> request_ids) const {
  std::vector<std::int64_t> shape{static_cast<std::int64_t>(request_ids.size())};
  shape.insert(shape.end(), manifest_.input_shape.begin(), manifest_.input_shape.end());
  const auto per = static_cast<std::size_t>(element_count(manifest_.input_shape));
  const auto dtype = manifest_.input_dtype;
  // Drawn as float32 or int64, then converted to the input's dtype (float16, int32, bool).
  const bool integer = is_integer(dtype) || dtype == TensorDType::Bool;
  auto t = torch::empty(shape, integer ? torch::kInt64 : torch::kFloat32);
  const auto range = dtype == TensorDType::Bool ? std::uint64_t{2} : static_cast<std::uint64_t>(manifest_.vocabulary);
  for (std::size_t r = 0; r < request_ids.size(); ++r) {
    // From a generator of the request's own, in the input's domain: uniform in [-1, 1) (the scale
    // of normalised images), or ids below the vocabulary (token ids). SplitMix64: a 224×224
    // batch of 8 is 1.2 M draws, made on the worker's clock, so a cheap generator keeps the
    // synthesis out of the measured serving (a Mersenne twister took ~4 ms).
    std::uint64_t state = request_ids[r] * 0x9E3779B97F4A7C15ULL + manifest_.seed;
    const auto next = [&state] {
      std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      return z ^ (z >> 31);
    };
    if (integer) {
      auto* data = t.data_ptr<std::int64_t>();
      for (std::size_t i = 0; i < per; ++i)
        data[r * per + i] = static_cast<std::int64_t>(next() % range);
    } else {
      auto* data = t.data_ptr<float>();
      for (std::size_t i = 0; i < per; ++i)
        data[r * per + i] = static_cast<float>(static_cast<double>(next() >> 11) * 0x1.0p-52 - 1.0);
    }
  }
  return Tensor(std::make_unique<Tensor::Impl>(Tensor::Impl{t.to(impl_->device, scalar_type(dtype))}));
}

bool cuda_available() {
  return torch::cuda::is_available();
}

engine::gpu::GpuDevice cuda_device() {
#ifdef SERVESCOPE_TORCH_CUDA
  if (!cuda_available()) throw QueryError("LibTorch sees no GPU here (CUDA_VISIBLE_DEVICES, the driver)");
  return cudaexec::gpu_device_of(0, *at::cuda::getDeviceProperties(0));
#else
  throw QueryError(kNoCuda);
#endif
}

void use_own_stream(ComputeDevice device) {
#ifdef SERVESCOPE_TORCH_CUDA
  if (device == ComputeDevice::Cuda) c10::cuda::setCurrentCUDAStream(c10::cuda::getStreamFromPool());
#else
  (void)device;  // a model on CUDA was refused at loading
#endif
}

void set_threads(int threads) {
  // at::set_num_threads also resizes LibTorch's thread pool and clears oneDNN's cache of compiled
  // kernels, which then recompiles on the next run (7 ms a batch on a small model): only when
  // the count changes. OpenMP keeps the count per thread, so each slot thread keeps its own.
  thread_local int current = 0;
  threads = std::max(1, threads);
  if (threads == current) return;
  at::set_num_threads(threads);
  current = threads;
}

int threads() {
  return at::get_num_threads();
}

}  // namespace servescope::torchexec

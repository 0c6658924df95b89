#include "cudaexec/cublas_library.h"

#include <dlfcn.h>

#include <string>
#include <type_traits>

#include "cudaexec/cuda_check.h"

namespace servescope::cudaexec {
namespace {

// The header's own declarations pick the types: a toolkit that changed one fails to build here
// instead of calling through a wrong signature. Unevaluated, so nothing links against cuBLAS.
static_assert(std::is_same_v<decltype(&cublasCreate_v2), decltype(CublasApi::create)>);
static_assert(std::is_same_v<decltype(&cublasDestroy_v2), decltype(CublasApi::destroy)>);
static_assert(std::is_same_v<decltype(&cublasSetStream_v2), decltype(CublasApi::set_stream)>);
static_assert(std::is_same_v<decltype(&cublasGetStatusName), decltype(CublasApi::status_name)>);
static_assert(std::is_same_v<decltype(&cublasGetStatusString), decltype(CublasApi::status_string)>);
// cublasGemmStridedBatchedEx is overloaded (an inline legacy form): this must select one of them.
static_assert(sizeof(static_cast<CublasApi::GemmStridedBatchedEx*>(&cublasGemmStridedBatchedEx)) > 0);

std::string loader_error() {
  const char* why = ::dlerror();
  return why ? why : "unknown reason";
}

template <class F>
void resolve(void* library, const char* name, F*& into, std::string& missing) {
  into = reinterpret_cast<F*>(::dlsym(library, name));
  if (!into) missing += (missing.empty() ? "" : ", ") + std::string(name);
}

CublasApi open_cublas() {
  const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  void* library = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::string tried;
  if (!library) tried = loader_error();  // names what it tried to open
#ifdef SERVESCOPE_CUDA_LIBRARY_DIR
  if (!library) {
    const std::string path = std::string(SERVESCOPE_CUDA_LIBRARY_DIR) + "/" + soname;
    library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) tried += "; " + loader_error();
  }
#endif
  if (!library)
    throw CudaError("cannot open cuBLAS (" + tried + "): put the folder that holds " + soname +
                    " (the CUDA toolkit's lib64) on LD_LIBRARY_PATH");
  // The library stays open for the life of the process: handles and streams outlive any caller.
  CublasApi api;
  std::string missing;
  resolve(library, "cublasCreate_v2", api.create, missing);
  resolve(library, "cublasDestroy_v2", api.destroy, missing);
  resolve(library, "cublasSetStream_v2", api.set_stream, missing);
  resolve(library, "cublasGemmStridedBatchedEx", api.gemm_strided_batched_ex, missing);
  resolve(library, "cublasGetStatusName", api.status_name, missing);
  resolve(library, "cublasGetStatusString", api.status_string, missing);
  if (!missing.empty()) {
    ::dlclose(library);
    throw CudaError("the cuBLAS opened as " + soname + " lacks " + missing);
  }
  return api;
}

}  // namespace

const CublasApi& cublas() {
  static const CublasApi api = open_cublas();
  return api;
}

}  // namespace servescope::cudaexec

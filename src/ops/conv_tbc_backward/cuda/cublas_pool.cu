// The cuBLAS loader and handle pool (see cublas_pool.h).
#include <dlfcn.h>

#include <map>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/conv_tbc_backward/cuda/cublas_pool.h"

namespace openaclnn::conv_tbc::cuda {
namespace {

// The symbol behind a cublas_v2.h name (some are macros for their _v2 symbols).
#define OPENACLNN_SYMBOL_NAME(name) OPENACLNN_SYMBOL_STRING(name)
#define OPENACLNN_SYMBOL_STRING(name) #name

struct Loaded {
  CublasApi api{};
  bool ok = false;
  std::string error;
};

const Loaded& TheLibrary() {
  static const Loaded* loaded = [] {
    auto* l = new Loaded;
    const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
    // The soname through the loader's search path (LD_LIBRARY_PATH, this library's RUNPATH,
    // ldconfig), then the toolkit's folder this library was built against.
    void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
#ifdef OPENACLNN_CUDA_LIBRARY_DIR
    if (handle == nullptr) {
      handle = dlopen((std::string(OPENACLNN_CUDA_LIBRARY_DIR) + "/" + soname).c_str(),
                      RTLD_NOW | RTLD_LOCAL);
    }
#endif
    if (handle == nullptr) {
      const char* why = dlerror();
      l->error = "cannot load " + soname + ": " + (why != nullptr ? why : "unknown reason");
      return l;
    }
    bool missing = false;
    auto bind = [&](auto* slot, const char* symbol) {
      void* address = dlsym(handle, symbol);
      if (address == nullptr) {
        if (!missing) l->error = soname + " has no symbol " + symbol;
        missing = true;
      }
      *slot = reinterpret_cast<std::remove_pointer_t<decltype(slot)>>(address);
    };
    CublasApi& a = l->api;
    bind(&a.create, OPENACLNN_SYMBOL_NAME(cublasCreate));
    bind(&a.destroy, OPENACLNN_SYMBOL_NAME(cublasDestroy));
    bind(&a.set_stream, OPENACLNN_SYMBOL_NAME(cublasSetStream));
    bind(&a.set_workspace, OPENACLNN_SYMBOL_NAME(cublasSetWorkspace));
    bind(&a.set_pointer_mode, OPENACLNN_SYMBOL_NAME(cublasSetPointerMode));
    bind(&a.set_atomics_mode, "cublasSetAtomicsMode");
    bind(&a.set_math_mode, "cublasSetMathMode");
    bind(&a.status_name, "cublasGetStatusName");
    bind(&a.status_string, "cublasGetStatusString");
    bind(&a.gemm_ex, "cublasGemmEx");
    bind(&a.gemm_strided_batched_ex, "cublasGemmStridedBatchedEx");
    l->ok = !missing;
    return l;
  }();
  return *loaded;
}

struct Pool {
  std::mutex mutex;
  std::map<int, std::vector<cublasHandle_t>> free;  // by device
};

// Never destroyed: destroying handles during static destruction can run after the CUDA runtime
// has shut down. A process holds at most as many handles per device as it had concurrent
// launches.
Pool& ThePool() {
  static Pool* pool = new Pool;
  return *pool;
}

Status Configure(const CublasApi& api, cublasHandle_t handle) {
  cublasStatus_t s = api.set_pointer_mode(handle, CUBLAS_POINTER_MODE_HOST);
  if (s != CUBLAS_STATUS_SUCCESS) return CublasError("cublasSetPointerMode", "new handle", s);
  // Atomics would make the results depend on timing (decision D6).
  s = api.set_atomics_mode(handle, CUBLAS_ATOMICS_NOT_ALLOWED);
  if (s != CUBLAS_STATUS_SUCCESS) return CublasError("cublasSetAtomicsMode", "new handle", s);
  // Default math: no TF32 for FLOAT; split-K reductions in the fp32 accumulator type.
  s = api.set_math_mode(
      handle, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH |
                                        CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
  if (s != CUBLAS_STATUS_SUCCESS) return CublasError("cublasSetMathMode", "new handle", s);
  return Status::Ok();
}

}  // namespace

const CublasApi* Cublas() { return TheLibrary().ok ? &TheLibrary().api : nullptr; }
const char* CublasLoadError() { return TheLibrary().error.c_str(); }

CublasLease::~CublasLease() {
  if (handle_ == nullptr) return;
  Pool& pool = ThePool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  pool.free[device_].push_back(handle_);
}

Status CublasLease::Acquire(int device) {
  Pool& pool = ThePool();
  {
    std::lock_guard<std::mutex> lock(pool.mutex);
    std::vector<cublasHandle_t>& handles = pool.free[device];
    if (!handles.empty()) {
      handle_ = handles.back();
      handles.pop_back();
      device_ = device;
      return Status::Ok();
    }
  }
  const CublasApi* api = Cublas();
  if (api == nullptr) return ErrorStatus(ACLNN_ERR_RUNTIME_ERROR, "%s", CublasLoadError());
  cublasHandle_t handle = nullptr;
  const cublasStatus_t s = api->create(&handle);
  if (s != CUBLAS_STATUS_SUCCESS) return CublasError("cublasCreate", "handle pool", s);
  const Status configured = Configure(*api, handle);
  if (!configured.ok()) {
    (void)api->destroy(handle);
    return configured;
  }
  handle_ = handle;
  device_ = device;
  return Status::Ok();
}

Status CublasError(const char* call, const char* what, cublasStatus_t status) {
  const CublasApi* api = Cublas();
  return ErrorStatus(ACLNN_ERR_RUNTIME_ERROR, "%s (%s) failed: %s (%s)", call, what,
                     api != nullptr ? api->status_name(status) : "?",
                     api != nullptr ? api->status_string(status) : "cuBLAS is not loaded");
}

Status CudaError(const char* call, const char* what, cudaError_t error) {
  return ErrorStatus(ACLNN_ERR_RUNTIME_ERROR, "%s (%s) failed: %s (%s)", call, what,
                     cudaGetErrorName(error), cudaGetErrorString(error));
}

}  // namespace openaclnn::conv_tbc::cuda

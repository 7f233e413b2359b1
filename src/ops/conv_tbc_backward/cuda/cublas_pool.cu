// The cuBLAS handle pool (see cublas_pool.h).
#include <map>
#include <mutex>
#include <vector>

#include "ops/conv_tbc_backward/cuda/cublas_pool.h"

namespace openaclnn::conv_tbc::cuda {
namespace {

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

Status Configure(cublasHandle_t handle) {
  cublasStatus_t s = cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST);
  if (s != CUBLAS_STATUS_SUCCESS) return CublasError("cublasSetPointerMode", "new handle", s);
  // Atomics would make the results depend on timing (decision D6).
  s = cublasSetAtomicsMode(handle, CUBLAS_ATOMICS_NOT_ALLOWED);
  if (s != CUBLAS_STATUS_SUCCESS) return CublasError("cublasSetAtomicsMode", "new handle", s);
  // Default math: no TF32 for FLOAT; split-K reductions in the fp32 accumulator type.
  s = cublasSetMathMode(
      handle, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH |
                                        CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
  if (s != CUBLAS_STATUS_SUCCESS) return CublasError("cublasSetMathMode", "new handle", s);
  return Status::Ok();
}

}  // namespace

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
  cublasHandle_t handle = nullptr;
  const cublasStatus_t s = cublasCreate(&handle);
  if (s != CUBLAS_STATUS_SUCCESS) return CublasError("cublasCreate", "handle pool", s);
  const Status configured = Configure(handle);
  if (!configured.ok()) {
    (void)cublasDestroy(handle);
    return configured;
  }
  handle_ = handle;
  device_ = device;
  return Status::Ok();
}

Status CublasError(const char* call, const char* what, cublasStatus_t status) {
  return ErrorStatus(ACLNN_ERR_RUNTIME_ERROR, "%s (%s) failed: %s (%s)", call, what,
                     cublasGetStatusName(status), cublasGetStatusString(status));
}

Status CudaError(const char* call, const char* what, cudaError_t error) {
  return ErrorStatus(ACLNN_ERR_RUNTIME_ERROR, "%s (%s) failed: %s (%s)", call, what,
                     cudaGetErrorName(error), cudaGetErrorString(error));
}

}  // namespace openaclnn::conv_tbc::cuda

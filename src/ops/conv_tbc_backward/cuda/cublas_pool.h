#pragma once
// cuBLAS handles of the CUDA ConvTbc backward. A handle keeps its stream and workspace as state, so
// one handle must never be configured by two threads at once: a launch leases a handle from a
// process-wide pool per device for the time it takes to queue its products, then returns it.
// Internal to cuda/ (it names CUDA types).

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "api/status.h"

namespace openaclnn::conv_tbc::cuda {

// cuBLAS, loaded with dlopen at the first use rather than linked: a process that never runs a
// product on a GPU (every CPU user) does not map cuBLAS and cuBLASLt (about 600 MB of libraries,
// 200 MB of resident memory and tens of milliseconds at start-up).
struct CublasApi {
  cublasStatus_t (*create)(cublasHandle_t*);
  cublasStatus_t (*destroy)(cublasHandle_t);
  cublasStatus_t (*set_stream)(cublasHandle_t, cudaStream_t);
  cublasStatus_t (*set_workspace)(cublasHandle_t, void*, size_t);
  cublasStatus_t (*set_pointer_mode)(cublasHandle_t, cublasPointerMode_t);
  cublasStatus_t (*set_atomics_mode)(cublasHandle_t, cublasAtomicsMode_t);
  cublasStatus_t (*set_math_mode)(cublasHandle_t, cublasMath_t);
  const char* (*status_name)(cublasStatus_t);
  const char* (*status_string)(cublasStatus_t);
  cublasStatus_t (*gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                            const void*, const void*, cudaDataType, int, const void*, cudaDataType,
                            int, const void*, void*, cudaDataType, int, cublasComputeType_t,
                            cublasGemmAlgo_t);
  cublasStatus_t (*gemm_strided_batched_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                            int, int, int, const void*, const void*, cudaDataType,
                                            int, long long, const void*, cudaDataType, int,
                                            long long, const void*, void*, cudaDataType, int,
                                            long long, int, cublasComputeType_t, cublasGemmAlgo_t);
};

// The loaded library, or nullptr when it cannot be loaded (then CublasLoadError() says why).
const CublasApi* Cublas();
const char* CublasLoadError();

class CublasLease {
 public:
  CublasLease() = default;
  ~CublasLease();
  CublasLease(const CublasLease&) = delete;
  CublasLease& operator=(const CublasLease&) = delete;

  // Takes a free handle of `device`, which must be the calling thread's current device, or
  // creates one (pointer mode host, atomics not allowed, no TF32 or reduced-precision math).
  Status Acquire(int device);
  cublasHandle_t get() const { return handle_; }

 private:
  int device_ = -1;
  cublasHandle_t handle_ = nullptr;
};

// ACLNN_ERR_RUNTIME_ERROR: "<call> (<what>) failed: <name> (<description>)".
Status CublasError(const char* call, const char* what, cublasStatus_t status);
Status CudaError(const char* call, const char* what, cudaError_t error);

}  // namespace openaclnn::conv_tbc::cuda

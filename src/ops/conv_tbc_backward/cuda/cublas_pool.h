#pragma once
// cuBLAS handles of the CUDA ConvTbc backward. A handle keeps its stream and workspace as state, so
// one handle must never be configured by two threads at once: a launch leases a handle from a
// process-wide pool per device for the time it takes to queue its products, then returns it.
// Internal to cuda/ (it names CUDA types).

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "api/status.h"

namespace openaclnn::conv_tbc::cuda {

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

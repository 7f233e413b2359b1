#pragma once
// Makes the device of a CUDA stream current for one launch and gives the calling thread its own
// device back afterwards: a stream may belong to a GPU other than the thread's current one (the
// runtime records streams per device), and kernels and cuBLAS calls go to the current device.

#include <cuda_runtime.h>

#include "api/status.h"

namespace openaclnn::cuda {

class StreamDeviceGuard {
 public:
  StreamDeviceGuard() = default;
  StreamDeviceGuard(const StreamDeviceGuard&) = delete;
  StreamDeviceGuard& operator=(const StreamDeviceGuard&) = delete;
  ~StreamDeviceGuard() {
    if (switched_) (void)cudaSetDevice(previous_);
  }
  // `what` names the launch in the error message.
  Status Enter(cudaStream_t stream, const char* what) {
    cudaError_t e = cudaStreamGetDevice(stream, &device_);
    if (e == cudaSuccess) e = cudaGetDevice(&previous_);
    if (e != cudaSuccess) return Failed(what, e);
    if (previous_ == device_) return Status::Ok();
    e = cudaSetDevice(device_);
    if (e != cudaSuccess) return Failed(what, e);
    switched_ = true;
    return Status::Ok();
  }
  // The stream's GPU (after a successful Enter).
  int device() const { return device_; }

 private:
  static Status Failed(const char* what, cudaError_t e) {
    return ErrorStatus(ACLNN_ERR_RUNTIME_ERROR,
                       "%s: could not make the stream's GPU current: %s (%s)", what,
                       cudaGetErrorName(e), cudaGetErrorString(e));
  }
  int device_ = 0;
  int previous_ = 0;
  bool switched_ = false;
};

}  // namespace openaclnn::cuda

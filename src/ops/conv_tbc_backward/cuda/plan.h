#pragma once
// The CUDA implementation of aclnnConvTbcBackward ("cuda_cublas"): per-tap cuBLAS products with
// fp32 accumulation on the GPU. Plain C++ (no CUDA types), so the operator's implementation list
// can name it whether or not the translation unit sees the CUDA headers.

#include <memory>

#include "api/executor.h"
#include "ops/conv_tbc_backward/problem.h"

namespace openaclnn::conv_tbc::cuda {

// nullptr when the plan handles `problem`, otherwise why not (then a CPU plan runs host-staged).
const char* CudaDeclines(const Problem& problem);
// A plan whose Launch queues every pass on the given cudaStream_t; Run refuses (CPU device).
std::unique_ptr<Plan> MakeCudaPlan(const Problem& problem, WorkspaceBooking* workspace);

}  // namespace openaclnn::conv_tbc::cuda

#pragma once
// The CUDA implementation of LayerNorm backward ("cuda_rows"): fused row kernels chosen by N,
// fp32 column partials per chunk of rows in the workspace, and a fixed-order reduction kernel for
// gradWeight and gradBias. Plain C++ header: the CUDA code lives in the .cu files next to it.

#include <memory>

#include "api/executor.h"
#include "ops/layer_norm_backward/problem.h"

namespace openaclnn::layer_norm_backward::cuda {

const char* CudaDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeCudaPlan(const Problem& problem, WorkspaceBooking* workspace);

}  // namespace openaclnn::layer_norm_backward::cuda

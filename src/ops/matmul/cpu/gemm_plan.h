#pragma once
// The fast CPU implementation of the matmul family: fixed output tiles, one single-threaded GEMM
// call (kernels/cpu/gemm.h) per tile, run as thread-pool tasks.

#include <memory>

#include "api/executor.h"
#include "ops/matmul/problem.h"

namespace openaclnn::matmul {

const char* GemmDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeGemmPlan(const Problem& problem, WorkspaceBooking* workspace);

}  // namespace openaclnn::matmul

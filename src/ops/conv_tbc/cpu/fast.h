#pragma once
// The fast CPU aclnnConvTbc: one matrix product per tap through the shared GEMM provider.

#include <memory>

#include "api/executor.h"
#include "ops/conv_tbc/problem.h"

namespace openaclnn::conv_tbc_forward::cpu {

const char* FastDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace);

}  // namespace openaclnn::conv_tbc_forward::cpu

#pragma once
// aclnnReduceSum on the reduction engine (kernels/cpu/reduce_engine.h).

#include <memory>

#include "api/executor.h"
#include "ops/reduce_sum/problem.h"

namespace openaclnn::reduce_sum::cpu {

const char* FastDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace);

}  // namespace openaclnn::reduce_sum::cpu

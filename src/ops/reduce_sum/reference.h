#pragma once
// The float64 reference of aclnnReduceSum (last in the implementation list): plain loops over the
// input in row-major order, float sums in double, integer sums in int64.

#include <memory>

#include "api/executor.h"
#include "ops/reduce_sum/problem.h"

namespace openaclnn::reduce_sum {

const char* ReferenceDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace);

}  // namespace openaclnn::reduce_sum

#pragma once
// The float64 reference implementation of aclnnConvTbc (last in the implementation list).

#include <memory>

#include "api/executor.h"
#include "ops/conv_tbc/problem.h"

namespace openaclnn::conv_tbc_forward {

const char* ReferenceDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace);

}  // namespace openaclnn::conv_tbc_forward

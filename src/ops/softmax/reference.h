#pragma once
// The float64 reference of the four softmax operators (last in each implementation list): every
// row computed in double with plain loops, rounded once to the output dtype.

#include <memory>

#include "api/executor.h"
#include "ops/softmax/problem.h"

namespace openaclnn::softmax {

const char* ReferenceDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace);

}  // namespace openaclnn::softmax

#pragma once
// The row engine shared by the four softmax operators: rows along `dim` (any strides), computed in
// float (double for DOUBLE tensors), rows split over the thread pool in chunks fixed by the shape.

#include <memory>

#include "api/executor.h"
#include "ops/softmax/problem.h"

namespace openaclnn::softmax::cpu {

const char* FastDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace);

}  // namespace openaclnn::softmax::cpu

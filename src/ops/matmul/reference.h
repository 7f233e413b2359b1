#pragma once
// The float64 reference of the matmul family: plain loops over any strides, the last
// implementation in the list and the golden model of the tests.

#include <memory>

#include "api/executor.h"
#include "ops/matmul/problem.h"

namespace openaclnn::matmul {

// Each output element: alpha * sum_p A(i, p) * B(p, j) (+ beta * self(i, j)) in float64, with
// the operands rounded as cubeMathType asks (self too under USE_FP16), then the FLOAT16 rounding of
// USE_FP16, then one cast to out's dtype. Elements are written in row-major order.
const char* ReferenceDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace);

}  // namespace openaclnn::matmul

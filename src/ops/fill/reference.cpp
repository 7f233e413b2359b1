#include "ops/fill/reference.h"

namespace openaclnn::fill {
// The value converted once and written to every element in row-major order.

std::unique_ptr<Plan> MakeReferencePlan(const pointwise::Problem& problem,
                                        WorkspaceBooking* workspace) {
  return pointwise::MakeReferencePlan(problem, workspace, pointwise::ReferenceArithmetic{});
}

}  // namespace openaclnn::fill

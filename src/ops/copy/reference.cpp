#include "ops/copy/reference.h"

namespace openaclnn::copy {
// A conversion only: the engine's element conversions, applied in row-major order.

std::unique_ptr<Plan> MakeReferencePlan(const pointwise::Problem& problem,
                                        WorkspaceBooking* workspace) {
  return pointwise::MakeReferencePlan(problem, workspace, pointwise::ReferenceArithmetic{});
}

}  // namespace openaclnn::copy

#include "ops/div/reference.h"

namespace openaclnn::div {
namespace {

// self / other in float64 (Div always computes in a floating type, so no word form).
double OnDoubles(double x, double y, double) { return x / y; }

}  // namespace

std::unique_ptr<Plan> MakeReferencePlan(const pointwise::Problem& problem,
                                        WorkspaceBooking* workspace) {
  return pointwise::MakeReferencePlan(problem, workspace, {OnDoubles, nullptr});
}

}  // namespace openaclnn::div

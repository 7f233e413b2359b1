#include "ops/mul/reference.h"

namespace openaclnn::mul {
namespace {

// self * other, in float64 and on two's complement words.
double OnDoubles(double x, double y, double) { return x * y; }
uint64_t OnWords(uint64_t x, uint64_t y, uint64_t) { return x * y; }

}  // namespace

std::unique_ptr<Plan> MakeReferencePlan(const pointwise::Problem& problem,
                                        WorkspaceBooking* workspace) {
  return pointwise::MakeReferencePlan(problem, workspace, {OnDoubles, OnWords});
}

}  // namespace openaclnn::mul

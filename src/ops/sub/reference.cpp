#include "ops/sub/reference.h"

namespace openaclnn::sub {
namespace {

// self - alpha * other, in float64 and on two's complement words.
double OnDoubles(double x, double y, double alpha) { return x - alpha * y; }
uint64_t OnWords(uint64_t x, uint64_t y, uint64_t alpha) { return x - alpha * y; }

}  // namespace

std::unique_ptr<Plan> MakeReferencePlan(const pointwise::Problem& problem,
                                        WorkspaceBooking* workspace) {
  return pointwise::MakeReferencePlan(problem, workspace, {OnDoubles, OnWords});
}

}  // namespace openaclnn::sub

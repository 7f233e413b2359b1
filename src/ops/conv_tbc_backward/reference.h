#pragma once
// The float64 reference of aclnnConvTbcBackward: plain loops, any strides, the last
// implementation in the list and the golden model of the tests.

#include <cstdint>
#include <memory>

#include "api/executor.h"
#include "ops/conv_tbc_backward/problem.h"

namespace openaclnn::conv_tbc {

struct ConvShape {
  int64_t t_in = 0;
  int64_t batch = 0;
  int64_t c_in = 0;
  int64_t c_out = 0;
  int64_t taps = 0;
  int64_t pad = 0;
  int64_t t_out() const { return t_in + 2 * pad + 1 - taps; }
};

// The mathematics of spec 5.2 on contiguous TBC arrays: dy (t_out, B, Cout), x (t_in, B, Cin),
// w (K, Cin, Cout) give gx (t_in, B, Cin), gw (K, Cin, Cout) and gb (Cout) = sum of dy over time
// and batch. Any output pointer may be null to skip it.
void ConvTbcBackwardF64(const ConvShape& shape, const double* dy, const double* x, const double* w,
                        double* gx, double* gw, double* gb);

// The reference as an implementation: loads the views (with the cubeMathType input rounding) into
// float64 workspace arrays, runs ConvTbcBackwardF64, and stores through the output views (with
// the FLOAT16 result rounding of cubeMathType 2, then one cast to each output dtype).
const char* ReferenceDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace);

}  // namespace openaclnn::conv_tbc

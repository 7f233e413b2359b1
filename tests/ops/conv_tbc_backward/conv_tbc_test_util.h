#pragma once
// Helpers of the aclnnConvTbcBackward tests: the layouts (conv_tbc_layouts.h, on
// test::DeviceTensor), the two-phase call, and the rounding the float64 golden is fed.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "api/dtype.h"
#include "ops/conv_tbc_backward/conv_tbc_layouts.h"
#include "ops/conv_tbc_backward/reference.h"

namespace openaclnn::test {

struct CallResult {
  aclnnStatus phase1 = 0;
  aclnnStatus phase2 = 0;
  aclError sync = 0;
  uint64_t workspace = 0;
  std::string message;
};

// Two-phase call on `stream` (allocating the workspace), then synchronisation.
CallResult CallConvTbcBackward(const aclTensor* self, const aclTensor* input,
                               const aclTensor* weight, const aclTensor* bias, int64_t pad,
                               int8_t cube_math_type, aclTensor* grad_input, aclTensor* grad_weight,
                               aclTensor* grad_bias, aclrtStream stream);

// Rounding the emulation applies to self, input and weight (decision D7), as the test sees it.
float EmulationRound(float value, int cube_math_type, aclDataType promoted);

}  // namespace openaclnn::test

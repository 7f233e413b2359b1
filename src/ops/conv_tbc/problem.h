#pragma once
// A validated aclnnConvTbc call: sizes, dtypes, numerics and the frozen tensor views.

#include <cstdint>
#include <string>

#include "acl/acl_base.h"
#include "api/tensor_desc.h"

namespace openaclnn::conv_tbc_forward {

// How self, weight and bias are rounded before the products (decision E6).
enum class InputRounding {
  kNone,  // cubeMathType 0 and 4, or 1/3 with 16-bit data
  kHf32,  // cubeMathType 1 or 3 with FLOAT: self and weight keep 11 mantissa bits
  kHalf,  // cubeMathType 2: self, weight and bias rounded to FLOAT16
};

struct Problem {
  // Layout is Time, Batch, Channel: self (t_in, batch, c_in), weight (taps, c_in, c_out),
  // bias (c_out), out (t_out, batch, c_out), t_out = t_in + 2 * pad + 1 - taps.
  int64_t t_in = 0;
  int64_t t_out = 0;
  int64_t batch = 0;
  int64_t c_in = 0;
  int64_t c_out = 0;
  int64_t taps = 0;
  int64_t pad = 0;
  int cube_math_type = 0;
  InputRounding rounding = InputRounding::kNone;
  // cubeMathType 2: the fp32 result is rounded to FLOAT16 before the cast to out's dtype.
  bool round_result_to_half = false;

  TensorDesc self;
  TensorDesc weight;
  TensorDesc bias;
  TensorDesc out;

  // "T_in=4 T_out=4 B=2 Cin=3 Cout=5 K=3 pad=1 dtype=FLOAT bias=FLOAT cubeMathType=0"
  std::string Describe() const;
};

// The tensor parameters' slots in Bindings and PlanBuilder, in API parameter order.
enum InputSlot : int { kSelf = 0, kWeight = 1, kBias = 2 };
enum OutputSlot : int { kOut = 0 };

// Scalar element transform for InputRounding.
float ApplyRounding(InputRounding rounding, float value);

}  // namespace openaclnn::conv_tbc_forward

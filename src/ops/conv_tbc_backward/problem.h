#pragma once
// A validated aclnnConvTbcBackward call: sizes, dtypes, numerics and the frozen tensor views.

#include <cstdint>
#include <string>

#include "acl/acl_base.h"
#include "api/tensor_desc.h"
#include "kernels/cpu/gemm_rows.h"

namespace openaclnn::conv_tbc {

// How self, input and weight are rounded before the products (spec decision D7; shared with the
// matmul family in kernels/cpu/gemm_rows.h).
using InputRounding = cpu::InputRounding;
using cpu::ApplyRounding;

// The tensor parameters' slots in Bindings and PlanBuilder, in API parameter order.
enum InputSlot : int { kSelf = 0, kInput = 1, kWeight = 2, kBias = 3 };
enum OutputSlot : int { kGradInput = 0, kGradWeight = 1, kGradBias = 2 };

struct Problem {
  // Layout is Time, Batch, Channel: self (t_out, batch, c_out), input (t_in, batch, c_in),
  // weight (taps, c_in, c_out), bias (c_out). t_out = t_in + 2 * pad + 1 - taps.
  int64_t t_in = 0;
  int64_t t_out = 0;
  int64_t batch = 0;
  int64_t c_in = 0;
  int64_t c_out = 0;
  int64_t taps = 0;
  int64_t pad = 0;
  int8_t cube_math_type = 0;
  aclDataType promoted = ACL_FLOAT;  // promote(promote(self, input), weight)
  InputRounding rounding = InputRounding::kNone;
  // cubeMathType 2: gradInput and gradWeight are rounded to FLOAT16 before the cast to the
  // output dtype.
  bool round_result_to_half = false;
  bool deterministic = false;  // ACL_OPT_DETERMINISTIC at phase 1 (every CPU path is)

  TensorDesc self;  // dY
  TensorDesc input;
  TensorDesc weight;
  TensorDesc grad_input;
  TensorDesc grad_weight;
  TensorDesc grad_bias;

  std::string Describe() const;
};

// Whether the view of an output can map two indices to one address (then stores run serially, in
// a fixed order, so the last write is always the same one).
bool MayOverlap(const TensorDesc& desc);

}  // namespace openaclnn::conv_tbc

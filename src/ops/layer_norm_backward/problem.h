#pragma once
// The normalised LayerNorm backward problem that phase 1 builds from the API arguments.

#include <cstdint>
#include <string>

#include "api/tensor_desc.h"

namespace openaclnn::layer_norm_backward {

// The tensor parameters' slots in Bindings and PlanBuilder, in API parameter order. The output
// slots are also the indices of outputMask.
enum InputSlot : int { kGradOut = 0, kInput = 1, kMean = 2, kRstd = 3, kWeight = 4, kBias = 5 };
enum OutputSlot : int { kGradInput = 0, kGradWeight = 1, kGradBias = 2 };

// Input and gradOut are viewed as [M, N]: M = product of the leading `begin` dims, N = product
// of the trailing (normalised) dims.
struct Problem {
  int64_t m = 0;
  int64_t n = 0;
  int begin = 0;  // number of leading (non-normalised) dims of input
  TensorDesc grad_out;
  TensorDesc input;
  TensorDesc mean;  // any shape with M elements, read in row-major order of its view
  TensorDesc rstd;  // same shape as mean
  bool has_weight = false;
  TensorDesc weight;  // valid when has_weight; shape == normalizedShape
  bool mask[3] = {false, false, false};
  TensorDesc grad_input;   // valid when mask[0]
  TensorDesc grad_weight;  // valid when mask[1]; any shape with N elements
  TensorDesc grad_bias;    // valid when mask[2]; any shape with N elements

  bool AnyParamGrad() const { return mask[1] || mask[2]; }
  // "M=2 N=4 input=FLOAT weight=none mean=FLOAT rstd=FLOAT mask=[1,1,0] out=FLOAT,FLOAT,-"
  std::string Describe() const;
};

}  // namespace openaclnn::layer_norm_backward

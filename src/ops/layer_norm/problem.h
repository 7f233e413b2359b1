#pragma once
// The normalised LayerNorm forward problem that phase 1 builds from the API arguments.

#include <cstdint>
#include <string>

#include "api/tensor_desc.h"

namespace openaclnn::layer_norm {

// The tensor parameters' slots in Bindings and PlanBuilder, in API parameter order.
enum InputSlot : int { kInput = 0, kWeight = 1, kBias = 2 };
enum OutputSlot : int { kOut = 0, kMean = 1, kRstd = 2 };

// input and out are viewed as [M, N]: M = product of the leading `begin` dims, N = product of the
// trailing (normalised) dims. mean and rstd have M elements in any shape and are written in the
// row-major order of their views.
struct Problem {
  int64_t m = 0;
  int64_t n = 0;
  int begin = 0;
  float eps = 0.0f;  // narrowed from double, as CANN does
  int impl_mode = 0;
  TensorDesc input;
  TensorDesc out;
  bool has_weight = false;
  bool has_bias = false;
  bool has_mean = false;
  bool has_rstd = false;
  TensorDesc weight;  // shape == normalizedShape
  TensorDesc bias;
  TensorDesc mean;
  TensorDesc rstd;

  // "M=2 N=4 input=FLOAT weight=FLOAT bias=none out=FLOAT mean=FLOAT rstd=- eps=1e-05"
  std::string Describe() const;
};

}  // namespace openaclnn::layer_norm

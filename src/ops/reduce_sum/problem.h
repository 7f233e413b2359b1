#pragma once
// The normalised aclnnReduceSum problem that phase 1 builds from the API arguments.

#include <string>

#include "api/reduce.h"

namespace openaclnn::reduce_sum {

// Bindings: inputs {self}, outputs {out}.
enum BindingIndex { kSelf = 0, kOut = 0 };

struct Problem : ReduceProblem {
  // "self=FLOAT[4, 8] dims=0b10 keepDims=0 out=BF16[4]"
  std::string Describe() const;
};

}  // namespace openaclnn::reduce_sum

#pragma once
// The normalised problems of aclnnNLLLoss and aclnnNLLLossBackward, their checkers, float64
// references and CPU implementations, and the target reading both share.
//
// self is seen as `n` rows of `c` classes: (N, C) gives n = N; (C) gives one row (n = 1) whose
// target is the 0-d target tensor.

#include <cstdint>
#include <memory>
#include <string>

#include "aclnn/acl_meta.h"
#include "api/executor.h"
#include "api/status.h"
#include "api/tensor_desc.h"

namespace openaclnn::nll_loss {

enum class Kind { kForward, kBackward };
enum Reduction : int64_t { kNone = 0, kMean = 1, kSum = 2 };

// Bindings. Forward: inputs {self, target, weight}, outputs {out, totalWeightOut}. Backward:
// inputs {gradOutput, self, target, weight, totalWeight}, outputs {out}.
constexpr int kFwdSelf = 0, kFwdTarget = 1, kFwdWeight = 2, kFwdOut = 0, kFwdTotal = 1;
constexpr int kBwdGradOutput = 0, kBwdSelf = 1, kBwdTarget = 2, kBwdWeight = 3, kBwdTotal = 4,
              kBwdOut = 0;

struct Problem {
  Kind kind = Kind::kForward;
  int64_t reduction = kMean;
  int64_t ignore_index = -100;
  int64_t n = 0;           // rows
  int64_t c = 0;           // classes
  bool batched = false;    // self is (N, C)
  TensorDesc self;         // forward only (the backward needs its shape alone)
  TensorDesc target;       // n elements
  TensorDesc weight;       // c elements
  TensorDesc grad_output;  // backward: n elements (none, batched) or 1
  TensorDesc total;        // forward: totalWeightOut; backward: totalWeight (read for mean)
  TensorDesc out;          // forward: n elements (none, batched) or 1; backward: self's shape
  // Element strides of a row and of a class in self (forward) or out (backward); the row stride is
  // 0 when self is (C).
  int64_t row_stride = 0, class_stride = 0;
  // Stride between the per-row elements of out (forward, none, batched) or gradOutput (backward,
  // none, batched); 0 when there is a single element.
  int64_t per_row_stride = 0;
  // True when out (forward) or gradOutput (backward) holds one value per row.
  bool per_row() const { return reduction == kNone && batched; }
  std::string Describe() const;
};

inline const char* OpName(Kind kind) {
  return kind == Kind::kForward ? "aclnnNLLLoss" : "aclnnNLLLossBackward";
}

Status CheckForward(const aclTensor* self, const aclTensor* target, const aclTensor* weight,
                    int64_t reduction, int64_t ignore_index, const aclTensor* out,
                    const aclTensor* total_weight_out, Problem* problem);
Status CheckBackward(const aclTensor* grad_output, const aclTensor* self, const aclTensor* target,
                     const aclTensor* weight, int64_t reduction, int64_t ignore_index,
                     const aclTensor* total_weight, const aclTensor* out, Problem* problem);

// Reads the n targets in row-major order into dst. A target equal to ignoreIndex is stored as -1
// (the row counts for nothing); any other value outside [0, c) fails with 161002 naming the
// element and its value (the stream adds the operator's name), before anything is written. With
// dst null the targets are only checked.
Status ReadTargets(const Problem& p, const void* target_base, int64_t* dst);

const char* ReferenceDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace);

namespace cpu {
const char* FastDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace);
}  // namespace cpu

}  // namespace openaclnn::nll_loss

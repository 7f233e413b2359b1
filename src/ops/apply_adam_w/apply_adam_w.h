#pragma once
// aclnnApplyAdamWV2: the normalised problem, the step's scalars, the checker, the float64
// reference and the CPU kernel.
//
// One step, elementwise, as torch.optim.AdamW:
//   g = maximize ? -grad : grad
//   var = var * (1 - lr * weightDecay)
//   m = beta1 * m + (1 - beta1) * g
//   v = beta2 * v + (1 - beta2) * g^2
//   vmax = amsgrad ? (maxGradNorm = max(maxGradNorm, v)) : v
//   var = var - (lr / (1 - beta1^step)) * m / (sqrt(vmax) / sqrt(1 - beta2^step) + eps)

#include <cstdint>
#include <memory>
#include <string>

#include "aclnn/acl_meta.h"
#include "api/executor.h"
#include "api/status.h"
#include "api/tensor_desc.h"

namespace openaclnn::apply_adam_w {

// Executor bindings: grad and step are inputs; the four tensors updated in place are outputs (so
// that host staging on a CUDA device copies them back), each side in API order.
enum InputSlot : int { kGrad = 0, kStep = 1 };
enum OutputSlot : int { kVar = 0, kM = 1, kV = 2, kMaxGradNorm = 3 };

struct Problem {
  int64_t numel = 0;
  float lr = 0, beta1 = 0, beta2 = 0, weight_decay = 0, eps = 0;
  bool amsgrad = false, maximize = false;
  TensorDesc var, m, v, max_grad_norm, grad;  // max_grad_norm valid when amsgrad
  TensorDesc step;                            // one INT64 or FLOAT element
  std::string Describe() const;
};

// The per-step scalars, from the step value read at launch, in double.
struct StepScalars {
  double decay = 1;      // 1 - lr * weightDecay
  double step_size = 0;  // lr / (1 - beta1^step)
  double bc2_sqrt = 1;   // sqrt(1 - beta2^step)
};
// Reads the step tensor (bound at `step_data`) and derives the scalars; 161002 when the step is
// not a finite number > 0.
Status ReadStepScalars(const Problem& p, const void* step_data, StepScalars* scalars);

Status CheckArguments(aclTensor* var, aclTensor* m, aclTensor* v, aclTensor* max_grad_norm,
                      const aclTensor* grad, const aclTensor* step, float lr, float beta1,
                      float beta2, float weight_decay, float eps, bool amsgrad, bool maximize,
                      Problem* problem);

const char* ReferenceDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace);

namespace cpu {
const char* FastDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace);
}  // namespace cpu

}  // namespace openaclnn::apply_adam_w

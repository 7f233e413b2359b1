#pragma once
// aclnnApplyAdamW (V1) and aclnnApplyAdamWV2: the normalised problem, the step's scalars, the
// checkers, the float64 reference and the CPU kernel, shared by both.
//
// V2's step, elementwise, as torch.optim.AdamW:
//   g = maximize ? -grad : grad
//   var = var * (1 - lr * weightDecay)
//   m = beta1 * m + (1 - beta1) * g
//   v = beta2 * v + (1 - beta2) * g^2
//   vmax = amsgrad ? (maxGradNorm = max(maxGradNorm, v)) : v
//   var = var - (lr / (1 - beta1^step)) * m / (sqrt(vmax) / sqrt(1 - beta2^step) + eps)
// V1 is the same update with its hyperparameters in one-element tensors read at launch, the bias
// corrections from beta1Power and beta2Power (beta^(t-1), so beta^t = betaPower * beta), and
// maxGradNormOptional an input only: with amsgrad the denominator uses max(maxGradNorm, v), and
// neither maxGradNorm nor vRef receives that maximum (vRef keeps the plain v).

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
// V1's inputs, in API order: grad first (as V2), then the seven scalar tensors, then
// maxGradNormOptional; its outputs are kVar, kM, kV.
enum V1InputSlot : int {
  kV1Beta1Power = 1,
  kV1Beta2Power,
  kV1Lr,
  kV1WeightDecay,
  kV1Beta1,
  kV1Beta2,
  kV1Eps,
  kV1MaxGradNorm,
};
constexpr int kV1ScalarCount = 7;  // beta1Power .. eps

struct Problem {
  int64_t numel = 0;
  float lr = 0, beta1 = 0, beta2 = 0, weight_decay = 0, eps = 0;
  bool amsgrad = false, maximize = false;
  TensorDesc var, m, v, max_grad_norm, grad;  // max_grad_norm valid when amsgrad
  TensorDesc step;                            // V2: one INT64 or FLOAT element
  // V1: the hyperparameters are the one-element tensors scalars[i] bound at input slot i + 1
  // (beta1Power, beta2Power, lr, weightDecay, beta1, beta2, eps), and max_grad_norm is the input
  // at kV1MaxGradNorm, read and never written.
  bool v1 = false;
  TensorDesc scalars[kV1ScalarCount];
  std::string Describe() const;
};

// The per-step scalars, from the values read at launch, in double (beta1, beta2, eps as the
// update uses them, in float).
struct StepScalars {
  float beta1 = 0, beta2 = 0, eps = 0;
  double decay = 1;      // 1 - lr * weightDecay
  double step_size = 0;  // lr / (1 - beta1^t)
  double bc2_sqrt = 1;   // sqrt(1 - beta2^t)
};
// Reads the step tensor (V2) or the scalar tensors (V1) from the bound inputs and derives the
// scalars; V2: 161002 when the step is not a finite number > 0.
Status ReadStepScalars(const Problem& p, const Bindings& bindings, StepScalars* scalars);
// The maxGradNorm operand at launch: V2's output, V1's input; nullptr without amsgrad.
void* MaxGradNormData(const Problem& p, const Bindings& bindings);

Status CheckArguments(aclTensor* var, aclTensor* m, aclTensor* v, aclTensor* max_grad_norm,
                      const aclTensor* grad, const aclTensor* step, float lr, float beta1,
                      float beta2, float weight_decay, float eps, bool amsgrad, bool maximize,
                      Problem* problem);
Status CheckArgumentsV1(aclTensor* var, aclTensor* m, aclTensor* v, const aclTensor* beta1_power,
                        const aclTensor* beta2_power, const aclTensor* lr,
                        const aclTensor* weight_decay, const aclTensor* beta1,
                        const aclTensor* beta2, const aclTensor* eps, const aclTensor* grad,
                        const aclTensor* max_grad_norm, bool amsgrad, bool maximize,
                        Problem* problem);

const char* ReferenceDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace);

namespace cpu {
const char* FastDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace);
}  // namespace cpu

}  // namespace openaclnn::apply_adam_w

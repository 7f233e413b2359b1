#pragma once
// The normalised RmsNormGrad problem, its checker, reference and fast CPU implementation.

#include <cstdint>
#include <memory>
#include <string>

#include "aclnn/acl_meta.h"
#include "api/executor.h"
#include "api/status.h"
#include "api/tensor_desc.h"

namespace openaclnn::rms_norm_grad {

enum InputSlot : int { kDy = 0, kX = 1, kRstd = 2, kGamma = 3 };
enum OutputSlot : int { kDx = 0, kDgamma = 1 };

// dy and x are viewed as [M, N]: N = product of gamma's dims (the trailing dims of x).
struct Problem {
  int64_t m = 0;
  int64_t n = 0;
  int begin = 0;
  TensorDesc dy;
  TensorDesc x;
  TensorDesc rstd;  // M FLOAT values, read in row-major order of its view
  TensorDesc gamma;
  TensorDesc dx;
  TensorDesc dgamma;  // FLOAT, gamma's shape
  std::string Describe() const;
};

Status CheckArguments(const aclTensor* dy, const aclTensor* x, const aclTensor* rstd,
                      const aclTensor* gamma, const aclTensor* dx, const aclTensor* dgamma,
                      Problem* problem);

const char* ReferenceDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace);

namespace cpu {
const char* FastDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace);
}  // namespace cpu

}  // namespace openaclnn::rms_norm_grad

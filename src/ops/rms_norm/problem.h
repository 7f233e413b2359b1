#pragma once
// The normalised RmsNorm problem, its checker, reference and fast CPU implementation.

#include <cstdint>
#include <memory>
#include <string>

#include "aclnn/acl_meta.h"
#include "api/executor.h"
#include "api/status.h"
#include "api/tensor_desc.h"

namespace openaclnn::rms_norm {

enum InputSlot : int { kX = 0, kGamma = 1 };
enum OutputSlot : int { kY = 0, kRstd = 1 };

// x is viewed as [M, N]: M = product of the leading `begin` dims, N = product of gamma's dims
// (the trailing rank(gamma) dims of x).
struct Problem {
  int64_t m = 0;
  int64_t n = 0;
  int begin = 0;
  double epsilon = 1e-6;
  TensorDesc x;
  TensorDesc gamma;
  TensorDesc y;
  TensorDesc rstd;  // M elements, read in row-major order of its view
  std::string Describe() const;
};

// Shape rules shared with RmsNormGrad. gamma's shape must be the trailing dims of x's shape
// (1 <= rank(gamma) <= rank(x)); on success *begin = rank(x) - rank(gamma).
Status CheckGammaShape(const aclTensor& x, const char* x_name, const aclTensor& gamma,
                       const char* gamma_name, int* begin);
// rstd holds one value per row: its shape is x's leading dims, optionally followed by ones for
// the normalised dims (the forward's keep-dims form).
Status CheckRstdShape(const aclTensor& x, const char* x_name, int begin, const aclTensor& rstd,
                      const char* rstd_name);
// x FLOAT, FLOAT16 or BFLOAT16; gamma the same dtype as x or FLOAT.
Status CheckXGammaDtypes(const aclTensor& x, const char* x_name, const aclTensor& gamma,
                         const char* gamma_name);

Status CheckArguments(const aclTensor* x, const aclTensor* gamma, double epsilon,
                      const aclTensor* y, const aclTensor* rstd, Problem* problem);

const char* ReferenceDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace);

namespace cpu {
const char* FastDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace);
}  // namespace cpu

}  // namespace openaclnn::rms_norm

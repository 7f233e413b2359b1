// aclnnRmsNormGrad: the two public entry points and the implementation list.
#include <string>

#include "aclnnop/aclnn_rms_norm_grad.h"
#include "api/dtype.h"
#include "api/executor.h"
#include "ops/rms_norm_grad/problem.h"

namespace openaclnn::rms_norm_grad {

std::string Problem::Describe() const {
  std::string s = "M=" + std::to_string(m) + " N=" + std::to_string(n) +
                  " x=" + DTypeName(x.dtype) + " gamma=" + DTypeName(gamma.dtype);
  if (!x.IsContiguous() || !dy.IsContiguous() || !dx.IsContiguous()) s += " strided";
  return s;
}

namespace {

constexpr const char* kOpName = "aclnnRmsNormGrad";

const Implementation<Problem> kImplementations[] = {
    {"cpu_rows", DeviceKind::kCpu, cpu::FastDeclines, cpu::MakeFastPlan},
    {"reference", DeviceKind::kCpu, ReferenceDeclines, MakeReferencePlan},
};

}  // namespace
}  // namespace openaclnn::rms_norm_grad

aclnnStatus aclnnRmsNormGradGetWorkspaceSize(const aclTensor* dy, const aclTensor* x,
                                             const aclTensor* rstd, const aclTensor* gamma,
                                             const aclTensor* dxOut, const aclTensor* dgammaOut,
                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace openaclnn;
  return RunPhase1(rms_norm_grad::kOpName, workspaceSize, executor, {dy, x, rstd, gamma},
                   {dxOut, dgammaOut}, [&](PlanBuilder* builder) -> Status {
                     rms_norm_grad::Problem problem;
                     OPENACLNN_RETURN_IF_ERROR(rms_norm_grad::CheckArguments(
                         dy, x, rstd, gamma, dxOut, dgammaOut, &problem));
                     if (VerboseEnabled()) builder->problem = problem.Describe();
                     // N == 0: dx and dgamma are empty. M == 0 still writes dgamma = 0.
                     if (problem.n == 0) return Status::Ok();
                     return ChooseImplementation("rms_norm_grad", rms_norm_grad::kImplementations,
                                                 problem, builder);
                   });
}

aclnnStatus aclnnRmsNormGrad(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  return openaclnn::RunPhase2(openaclnn::rms_norm_grad::kOpName, workspace, workspaceSize, executor,
                              stream);
}

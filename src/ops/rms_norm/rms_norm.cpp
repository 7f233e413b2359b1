// aclnnRmsNorm: the two public entry points and the implementation list.
#include <string>

#include "aclnnop/aclnn_rms_norm.h"
#include "api/dtype.h"
#include "api/executor.h"
#include "ops/rms_norm/problem.h"

namespace openaclnn::rms_norm {

std::string Problem::Describe() const {
  std::string s = "M=" + std::to_string(m) + " N=" + std::to_string(n) +
                  " x=" + DTypeName(x.dtype) + " gamma=" + DTypeName(gamma.dtype) +
                  " epsilon=" + std::to_string(epsilon);
  if (!x.IsContiguous() || !y.IsContiguous()) s += " strided";
  return s;
}

namespace {

constexpr const char* kOpName = "aclnnRmsNorm";

const Implementation<Problem> kImplementations[] = {
    {"cpu_rows", DeviceKind::kCpu, cpu::FastDeclines, cpu::MakeFastPlan},
    {"reference", DeviceKind::kCpu, ReferenceDeclines, MakeReferencePlan},
};

}  // namespace
}  // namespace openaclnn::rms_norm

aclnnStatus aclnnRmsNormGetWorkspaceSize(const aclTensor* x, const aclTensor* gamma, double epsilon,
                                         const aclTensor* yOut, const aclTensor* rstdOut,
                                         uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace openaclnn;
  return RunPhase1(rms_norm::kOpName, workspaceSize, executor, {x, gamma}, {yOut, rstdOut},
                   [&](PlanBuilder* builder) -> Status {
                     rms_norm::Problem problem;
                     OPENACLNN_RETURN_IF_ERROR(
                         rms_norm::CheckArguments(x, gamma, epsilon, yOut, rstdOut, &problem));
                     if (VerboseEnabled()) builder->problem = problem.Describe();
                     // An empty x: y and rstd are empty too (N > 0 is checked), nothing to do.
                     if (problem.m == 0) return Status::Ok();
                     return ChooseImplementation("rms_norm", rms_norm::kImplementations, problem,
                                                 builder);
                   });
}

aclnnStatus aclnnRmsNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                         aclrtStream stream) {
  return openaclnn::RunPhase2(openaclnn::rms_norm::kOpName, workspace, workspaceSize, executor,
                              stream);
}

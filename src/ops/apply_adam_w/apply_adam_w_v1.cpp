// aclnnApplyAdamW (V1): the public entry points and the implementation list
// (OPENACLNN_FORCE_IMPL=apply_adam_w=reference). The plans are V2's (apply_adam_w.h).
#include "aclnnop/aclnn_apply_adam_w.h"
#include "api/executor.h"
#include "ops/apply_adam_w/apply_adam_w.h"

namespace openaclnn::apply_adam_w {
namespace {

constexpr const char* kOpNameV1 = "aclnnApplyAdamW";

const Implementation<Problem> kImplementationsV1[] = {
    {"cpu_blocks", DeviceKind::kCpu, cpu::FastDeclines, cpu::MakeFastPlan},
    {"reference", DeviceKind::kCpu, ReferenceDeclines, MakeReferencePlan},
};

}  // namespace
}  // namespace openaclnn::apply_adam_w

aclnnStatus aclnnApplyAdamWGetWorkspaceSize(
    aclTensor* varRef, aclTensor* mRef, aclTensor* vRef, const aclTensor* beta1Power,
    const aclTensor* beta2Power, const aclTensor* lr, const aclTensor* weightDecay,
    const aclTensor* beta1, const aclTensor* beta2, const aclTensor* eps, const aclTensor* grad,
    const aclTensor* maxGradNormOptional, bool amsgrad, bool maximize, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  using namespace openaclnn;
  // The tensors updated in place are outputs; maxGradNormOptional is only read.
  return RunPhase1(
      apply_adam_w::kOpNameV1, workspaceSize, executor,
      {grad, beta1Power, beta2Power, lr, weightDecay, beta1, beta2, eps, maxGradNormOptional},
      {varRef, mRef, vRef}, [&](PlanBuilder* builder) -> Status {
        apply_adam_w::Problem problem;
        OPENACLNN_RETURN_IF_ERROR(apply_adam_w::CheckArgumentsV1(
            varRef, mRef, vRef, beta1Power, beta2Power, lr, weightDecay, beta1, beta2, eps, grad,
            maxGradNormOptional, amsgrad, maximize, &problem));
        // Without amsgrad maxGradNormOptional is not read.
        builder->input_unused[apply_adam_w::kV1MaxGradNorm] = !amsgrad;
        if (VerboseEnabled()) builder->problem = problem.Describe();
        if (problem.numel == 0) return Status::Ok();
        return ChooseImplementation("apply_adam_w", apply_adam_w::kImplementationsV1, problem,
                                    builder);
      });
}

aclnnStatus aclnnApplyAdamW(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                            aclrtStream stream) {
  return openaclnn::RunPhase2(openaclnn::apply_adam_w::kOpNameV1, workspace, workspaceSize,
                              executor, stream);
}

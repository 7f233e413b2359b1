// aclnnApplyAdamWV2: the public entry points and the implementation list
// (OPENACLNN_FORCE_IMPL=apply_adam_w_v2=reference).
#include "ops/apply_adam_w/apply_adam_w.h"

#include "aclnnop/aclnn_apply_adam_w_v2.h"
#include "api/executor.h"

namespace openaclnn::apply_adam_w {
namespace {

constexpr const char* kOpName = "aclnnApplyAdamWV2";

const Implementation<Problem> kImplementations[] = {
    {"cpu_blocks", DeviceKind::kCpu, cpu::FastDeclines, cpu::MakeFastPlan},
    {"reference", DeviceKind::kCpu, ReferenceDeclines, MakeReferencePlan},
};

}  // namespace
}  // namespace openaclnn::apply_adam_w

aclnnStatus aclnnApplyAdamWV2GetWorkspaceSize(aclTensor* varRef, aclTensor* mRef, aclTensor* vRef,
                                              aclTensor* maxGradNormOptionalRef,
                                              const aclTensor* grad, const aclTensor* step,
                                              float lr, float beta1, float beta2, float weightDecay,
                                              float eps, bool amsgrad, bool maximize,
                                              uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace openaclnn;
  // The tensors updated in place are outputs, as the library's other in-place operators have them.
  return RunPhase1(apply_adam_w::kOpName, workspaceSize, executor, {grad, step},
                   {varRef, mRef, vRef, maxGradNormOptionalRef},
                   [&](PlanBuilder* builder) -> Status {
                     apply_adam_w::Problem problem;
                     OPENACLNN_RETURN_IF_ERROR(apply_adam_w::CheckArguments(
                         varRef, mRef, vRef, maxGradNormOptionalRef, grad, step, lr, beta1, beta2,
                         weightDecay, eps, amsgrad, maximize, &problem));
                     // Without amsgrad maxGradNormOptionalRef is neither read nor written.
                     builder->output_unused[apply_adam_w::kMaxGradNorm] = !amsgrad;
                     if (VerboseEnabled()) builder->problem = problem.Describe();
                     if (problem.numel == 0) return Status::Ok();
                     return ChooseImplementation("apply_adam_w_v2", apply_adam_w::kImplementations,
                                                 problem, builder);
                   });
}

aclnnStatus aclnnApplyAdamWV2(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                              aclrtStream stream) {
  return openaclnn::RunPhase2(openaclnn::apply_adam_w::kOpName, workspace, workspaceSize, executor,
                              stream);
}

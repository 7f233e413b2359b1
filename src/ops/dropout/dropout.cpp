// aclnnDropoutGenMask, aclnnDropoutGenMaskV2, aclnnDropoutGenMaskV2Tensor and aclnnDropoutDoMask:
// the public entry points and
// the implementation lists (OPENACLNN_FORCE_IMPL=dropout_gen_mask=reference,
// dropout_do_mask=reference).
#include "ops/dropout/dropout.h"

#include "aclnnop/aclnn_dropout_do_mask.h"
#include "aclnnop/aclnn_dropout_gen_mask.h"
#include "api/executor.h"

namespace openaclnn::dropout {
namespace {

constexpr const char* kGenMask = "aclnnDropoutGenMask";
constexpr const char* kGenMaskV2 = "aclnnDropoutGenMaskV2";
constexpr const char* kGenMaskV2Tensor = "aclnnDropoutGenMaskV2Tensor";
constexpr const char* kDoMask = "aclnnDropoutDoMask";

const Implementation<GenMaskProblem> kGenMaskImplementations[] = {
    {"cpu_philox", DeviceKind::kCpu, cpu::GenMaskFastDeclines, cpu::MakeGenMaskFastPlan},
    {"reference", DeviceKind::kCpu, GenMaskReferenceDeclines, MakeGenMaskReferencePlan},
};

const Implementation<DoMaskProblem> kDoMaskImplementations[] = {
    {"cpu_blocks", DeviceKind::kCpu, cpu::DoMaskFastDeclines, cpu::MakeDoMaskFastPlan},
    {"reference", DeviceKind::kCpu, DoMaskReferenceDeclines, MakeDoMaskReferencePlan},
};

// seed_tensor / offset_tensor: V2Tensor's (executor inputs 0 and 1), else null.
aclnnStatus GenMaskPhase1(const char* op_name, const aclIntArray* shape, double prob, int64_t seed,
                          int64_t offset, aclDataType prob_dtype, aclTensor* out,
                          const aclTensor* seed_tensor, const aclTensor* offset_tensor,
                          bool tensor_form, uint64_t* workspace_size, aclOpExecutor** executor) {
  auto build = [&](PlanBuilder* builder) -> Status {
    GenMaskProblem problem;
    OPENACLNN_RETURN_IF_ERROR(CheckGenMask(shape, prob, seed, offset, prob_dtype, out, seed_tensor,
                                           offset_tensor, tensor_form, &problem));
    if (VerboseEnabled()) builder->problem = problem.Describe();
    if (problem.mask_bytes == 0) return Status::Ok();
    return ChooseImplementation("dropout_gen_mask", kGenMaskImplementations, problem, builder);
  };
  if (tensor_form) {
    return RunPhase1(op_name, workspace_size, executor, {seed_tensor, offset_tensor}, {out}, build);
  }
  return RunPhase1(op_name, workspace_size, executor, {}, {out}, build);
}

}  // namespace
}  // namespace openaclnn::dropout

aclnnStatus aclnnDropoutGenMaskGetWorkspaceSize(const aclIntArray* shape, double prob, int64_t seed,
                                                int64_t offset, aclTensor* out,
                                                uint64_t* workspaceSize, aclOpExecutor** executor) {
  // The first version draws with prob as FLOAT.
  return openaclnn::dropout::GenMaskPhase1(openaclnn::dropout::kGenMask, shape, prob, seed, offset,
                                           ACL_FLOAT, out, nullptr, nullptr, false, workspaceSize,
                                           executor);
}

aclnnStatus aclnnDropoutGenMask(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                aclrtStream stream) {
  return openaclnn::RunPhase2(openaclnn::dropout::kGenMask, workspace, workspaceSize, executor,
                              stream);
}

aclnnStatus aclnnDropoutGenMaskV2GetWorkspaceSize(const aclIntArray* shape, double prob,
                                                  int64_t seed, int64_t offset,
                                                  aclDataType probDataType, aclTensor* out,
                                                  uint64_t* workspaceSize,
                                                  aclOpExecutor** executor) {
  return openaclnn::dropout::GenMaskPhase1(openaclnn::dropout::kGenMaskV2, shape, prob, seed,
                                           offset, probDataType, out, nullptr, nullptr, false,
                                           workspaceSize, executor);
}

aclnnStatus aclnnDropoutGenMaskV2(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                  aclrtStream stream) {
  return openaclnn::RunPhase2(openaclnn::dropout::kGenMaskV2, workspace, workspaceSize, executor,
                              stream);
}

aclnnStatus aclnnDropoutGenMaskV2TensorGetWorkspaceSize(const aclIntArray* shape, double prob,
                                                        const aclTensor* seedTensor,
                                                        const aclTensor* offsetTensor,
                                                        int64_t offset, aclDataType probDataType,
                                                        aclTensor* out, uint64_t* workspaceSize,
                                                        aclOpExecutor** executor) {
  return openaclnn::dropout::GenMaskPhase1(openaclnn::dropout::kGenMaskV2Tensor, shape, prob, 0,
                                           offset, probDataType, out, seedTensor, offsetTensor,
                                           true, workspaceSize, executor);
}

aclnnStatus aclnnDropoutGenMaskV2Tensor(void* workspace, uint64_t workspaceSize,
                                        aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::RunPhase2(openaclnn::dropout::kGenMaskV2Tensor, workspace, workspaceSize,
                              executor, stream);
}

aclnnStatus aclnnDropoutDoMaskGetWorkspaceSize(const aclTensor* self, const aclTensor* mask,
                                               double prob, aclTensor* out, uint64_t* workspaceSize,
                                               aclOpExecutor** executor) {
  using namespace openaclnn;
  return RunPhase1(dropout::kDoMask, workspaceSize, executor, {self, mask}, {out},
                   [&](PlanBuilder* builder) -> Status {
                     dropout::DoMaskProblem problem;
                     bool nothing_to_do = false;
                     OPENACLNN_RETURN_IF_ERROR(
                         dropout::CheckDoMask(self, mask, prob, out, &problem, &nothing_to_do));
                     if (nothing_to_do) return Status::Ok();
                     if (VerboseEnabled()) builder->problem = problem.Describe();
                     return ChooseImplementation("dropout_do_mask", dropout::kDoMaskImplementations,
                                                 problem, builder);
                   });
}

aclnnStatus aclnnDropoutDoMask(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                               aclrtStream stream) {
  return openaclnn::RunPhase2(openaclnn::dropout::kDoMask, workspace, workspaceSize, executor,
                              stream);
}

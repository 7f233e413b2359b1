// aclnnSub, aclnnSubs, aclnnInplaceSub and aclnnInplaceSubs (out = self - alpha * other): the
// public entry points. The pointwise engine (api/pointwise.h) plans and runs them; the
// implementation list is the engine's, then the float64 reference
// (OPENACLNN_FORCE_IMPL=sub=reference).
#include "aclnnop/aclnn_sub.h"
#include "api/pointwise.h"
#include "ops/sub/checker.h"
#include "ops/sub/reference.h"

namespace openaclnn::sub {
constexpr const char* kName = "aclnnSub";
constexpr const char* kNameScalar = "aclnnSubs";
constexpr const char* kNameInplace = "aclnnInplaceSub";
constexpr const char* kNameInplaceScalar = "aclnnInplaceSubs";
}  // namespace openaclnn::sub

namespace pointwise = openaclnn::pointwise;
using openaclnn::pointwise::PointwisePhase1;
using openaclnn::pointwise::Problem;
namespace op = openaclnn::sub;

aclnnStatus aclnnSubGetWorkspaceSize(const aclTensor* self, const aclTensor* other,
                                     const aclScalar* alpha, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  return PointwisePhase1(op::kName, op::kImplementations, workspaceSize, executor, {self, other},
                         {out}, [&](Problem* p) {
                           return pointwise::CheckTensorForm(op::kRules, self, other, alpha, out,
                                                             p);
                         });
}

aclnnStatus aclnnSub(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                     aclrtStream stream) {
  return openaclnn::RunPhase2(op::kName, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnSubsGetWorkspaceSize(const aclTensor* self, const aclScalar* other,
                                      const aclScalar* alpha, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return PointwisePhase1(op::kNameScalar, op::kImplementations, workspaceSize, executor, {self},
                         {out}, [&](Problem* p) {
                           return pointwise::CheckScalarForm(op::kRules, self, other, alpha, out,
                                                             p);
                         });
}

aclnnStatus aclnnSubs(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                      aclrtStream stream) {
  return openaclnn::RunPhase2(op::kNameScalar, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceSubGetWorkspaceSize(aclTensor* selfRef, const aclTensor* other,
                                            const aclScalar* alpha, uint64_t* workspaceSize,
                                            aclOpExecutor** executor) {
  return PointwisePhase1(op::kNameInplace, op::kImplementations, workspaceSize, executor,
                         {selfRef, other}, {selfRef}, [&](Problem* p) {
                           return pointwise::CheckInplaceTensorForm(op::kRules, selfRef, other,
                                                                    alpha, p);
                         });
}

aclnnStatus aclnnInplaceSub(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                            aclrtStream stream) {
  return openaclnn::RunPhase2(op::kNameInplace, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceSubsGetWorkspaceSize(aclTensor* selfRef, const aclScalar* other,
                                             const aclScalar* alpha, uint64_t* workspaceSize,
                                             aclOpExecutor** executor) {
  return PointwisePhase1(op::kNameInplaceScalar, op::kImplementations, workspaceSize, executor,
                         {selfRef}, {selfRef}, [&](Problem* p) {
                           return pointwise::CheckInplaceScalarForm(op::kRules, selfRef, other,
                                                                    alpha, p);
                         });
}

aclnnStatus aclnnInplaceSubs(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  return openaclnn::RunPhase2(op::kNameInplaceScalar, workspace, workspaceSize, executor, stream);
}

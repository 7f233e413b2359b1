// aclnnAdd, aclnnAdds, aclnnInplaceAdd and aclnnInplaceAdds (out = self + alpha * other): the
// public entry points. The pointwise engine (api/pointwise.h) plans and runs them; the
// implementation list is the engine's, then the float64 reference
// (OPENACLNN_FORCE_IMPL=add=reference).
#include "aclnnop/aclnn_add.h"
#include "api/pointwise.h"
#include "ops/add/checker.h"
#include "ops/add/reference.h"

namespace openaclnn::add {
constexpr const char* kName = "aclnnAdd";
constexpr const char* kNameScalar = "aclnnAdds";
constexpr const char* kNameInplace = "aclnnInplaceAdd";
constexpr const char* kNameInplaceScalar = "aclnnInplaceAdds";
}  // namespace openaclnn::add

namespace pointwise = openaclnn::pointwise;
using openaclnn::pointwise::PointwisePhase1;
using openaclnn::pointwise::Problem;
namespace op = openaclnn::add;

aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor* self, const aclTensor* other,
                                     const aclScalar* alpha, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  return PointwisePhase1(op::kName, op::kImplementations, workspaceSize, executor, {self, other},
                         {out}, [&](Problem* p) {
                           return pointwise::CheckTensorForm(op::kRules, self, other, alpha, out,
                                                             p);
                         });
}

aclnnStatus aclnnAdd(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                     aclrtStream stream) {
  return openaclnn::RunPhase2(op::kName, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAddsGetWorkspaceSize(const aclTensor* self, const aclScalar* other,
                                      const aclScalar* alpha, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return PointwisePhase1(op::kNameScalar, op::kImplementations, workspaceSize, executor, {self},
                         {out}, [&](Problem* p) {
                           return pointwise::CheckScalarForm(op::kRules, self, other, alpha, out,
                                                             p);
                         });
}

aclnnStatus aclnnAdds(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                      aclrtStream stream) {
  return openaclnn::RunPhase2(op::kNameScalar, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceAddGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* other,
                                            const aclScalar* alpha, uint64_t* workspaceSize,
                                            aclOpExecutor** executor) {
  return PointwisePhase1(op::kNameInplace, op::kImplementations, workspaceSize, executor,
                         {selfRef, other}, {selfRef}, [&](Problem* p) {
                           return pointwise::CheckInplaceTensorForm(op::kRules, selfRef, other,
                                                                    alpha, p);
                         });
}

aclnnStatus aclnnInplaceAdd(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                            aclrtStream stream) {
  return openaclnn::RunPhase2(op::kNameInplace, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceAddsGetWorkspaceSize(const aclTensor* selfRef, const aclScalar* other,
                                             const aclScalar* alpha, uint64_t* workspaceSize,
                                             aclOpExecutor** executor) {
  return PointwisePhase1(op::kNameInplaceScalar, op::kImplementations, workspaceSize, executor,
                         {selfRef}, {selfRef}, [&](Problem* p) {
                           return pointwise::CheckInplaceScalarForm(op::kRules, selfRef, other,
                                                                    alpha, p);
                         });
}

aclnnStatus aclnnInplaceAdds(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  return openaclnn::RunPhase2(op::kNameInplaceScalar, workspace, workspaceSize, executor, stream);
}

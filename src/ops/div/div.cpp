// aclnnDiv, aclnnDivs, aclnnInplaceDiv and aclnnInplaceDivs (out = self / other): the public
// entry points. The pointwise engine (api/pointwise.h) plans and runs them; the implementation
// list is the engine's, then the float64 reference (OPENACLNN_FORCE_IMPL=div=reference).
#include "aclnnop/aclnn_div.h"
#include "api/pointwise.h"
#include "ops/div/checker.h"
#include "ops/div/reference.h"

namespace openaclnn::div {
constexpr const char* kName = "aclnnDiv";
constexpr const char* kNameScalar = "aclnnDivs";
constexpr const char* kNameInplace = "aclnnInplaceDiv";
constexpr const char* kNameInplaceScalar = "aclnnInplaceDivs";
}  // namespace openaclnn::div

namespace pointwise = openaclnn::pointwise;
using openaclnn::pointwise::PointwisePhase1;
using openaclnn::pointwise::Problem;
namespace op = openaclnn::div;

aclnnStatus aclnnDivGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  return PointwisePhase1(op::kName, op::kImplementations, workspaceSize, executor, {self, other},
                         {out}, [&](Problem* p) {
                           return pointwise::CheckTensorForm(op::kRules, self, other, nullptr, out,
                                                             p);
                         });
}

aclnnStatus aclnnDiv(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                     aclrtStream stream) {
  return openaclnn::RunPhase2(op::kName, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnDivsGetWorkspaceSize(const aclTensor* self, const aclScalar* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return PointwisePhase1(op::kNameScalar, op::kImplementations, workspaceSize, executor, {self},
                         {out}, [&](Problem* p) {
                           return pointwise::CheckScalarForm(op::kRules, self, other, nullptr, out,
                                                             p);
                         });
}

aclnnStatus aclnnDivs(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                      aclrtStream stream) {
  return openaclnn::RunPhase2(op::kNameScalar, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceDivGetWorkspaceSize(aclTensor* selfRef, const aclTensor* other,
                                            uint64_t* workspaceSize, aclOpExecutor** executor) {
  return PointwisePhase1(op::kNameInplace, op::kImplementations, workspaceSize, executor,
                         {selfRef, other}, {selfRef}, [&](Problem* p) {
                           return pointwise::CheckInplaceTensorForm(op::kRules, selfRef, other,
                                                                    nullptr, p);
                         });
}

aclnnStatus aclnnInplaceDiv(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                            aclrtStream stream) {
  return openaclnn::RunPhase2(op::kNameInplace, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceDivsGetWorkspaceSize(aclTensor* selfRef, const aclScalar* other,
                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  return PointwisePhase1(op::kNameInplaceScalar, op::kImplementations, workspaceSize, executor,
                         {selfRef}, {selfRef}, [&](Problem* p) {
                           return pointwise::CheckInplaceScalarForm(op::kRules, selfRef, other,
                                                                    nullptr, p);
                         });
}

aclnnStatus aclnnInplaceDivs(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  return openaclnn::RunPhase2(op::kNameInplaceScalar, workspace, workspaceSize, executor, stream);
}

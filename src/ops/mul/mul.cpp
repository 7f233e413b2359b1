// aclnnMul, aclnnMuls, aclnnInplaceMul and aclnnInplaceMuls (out = self * other): the public
// entry points. The pointwise engine (api/pointwise.h) plans and runs them; the implementation
// list is the engine's, then the float64 reference (OPENACLNN_FORCE_IMPL=mul=reference).
#include "aclnnop/aclnn_mul.h"
#include "api/pointwise.h"
#include "ops/mul/checker.h"
#include "ops/mul/reference.h"

namespace openaclnn::mul {
constexpr const char* kName = "aclnnMul";
constexpr const char* kNameScalar = "aclnnMuls";
constexpr const char* kNameInplace = "aclnnInplaceMul";
constexpr const char* kNameInplaceScalar = "aclnnInplaceMuls";
}  // namespace openaclnn::mul

namespace pointwise = openaclnn::pointwise;
using openaclnn::pointwise::PointwisePhase1;
using openaclnn::pointwise::Problem;
namespace op = openaclnn::mul;

aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  return PointwisePhase1(op::kName, op::kImplementations, workspaceSize, executor, {self, other},
                         {out}, [&](Problem* p) {
                           return pointwise::CheckTensorForm(op::kRules, self, other, nullptr, out,
                                                             p);
                         });
}

aclnnStatus aclnnMul(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                     aclrtStream stream) {
  return openaclnn::RunPhase2(op::kName, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMulsGetWorkspaceSize(const aclTensor* self, const aclScalar* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return PointwisePhase1(op::kNameScalar, op::kImplementations, workspaceSize, executor, {self},
                         {out}, [&](Problem* p) {
                           return pointwise::CheckScalarForm(op::kRules, self, other, nullptr, out,
                                                             p);
                         });
}

aclnnStatus aclnnMuls(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                      aclrtStream stream) {
  return openaclnn::RunPhase2(op::kNameScalar, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceMulGetWorkspaceSize(aclTensor* selfRef, const aclTensor* other,
                                            uint64_t* workspaceSize, aclOpExecutor** executor) {
  return PointwisePhase1(op::kNameInplace, op::kImplementations, workspaceSize, executor,
                         {selfRef, other}, {selfRef}, [&](Problem* p) {
                           return pointwise::CheckInplaceTensorForm(op::kRules, selfRef, other,
                                                                    nullptr, p);
                         });
}

aclnnStatus aclnnInplaceMul(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                            aclrtStream stream) {
  return openaclnn::RunPhase2(op::kNameInplace, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceMulsGetWorkspaceSize(aclTensor* selfRef, const aclScalar* other,
                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  return PointwisePhase1(op::kNameInplaceScalar, op::kImplementations, workspaceSize, executor,
                         {selfRef}, {selfRef}, [&](Problem* p) {
                           return pointwise::CheckInplaceScalarForm(op::kRules, selfRef, other,
                                                                    nullptr, p);
                         });
}

aclnnStatus aclnnInplaceMuls(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  return openaclnn::RunPhase2(op::kNameInplaceScalar, workspace, workspaceSize, executor, stream);
}

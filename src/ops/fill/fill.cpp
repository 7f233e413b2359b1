// aclnnInplaceZero, aclnnInplaceOne and aclnnInplaceFillScalar: the public entry points, on the
// pointwise engine's fill path (OPENACLNN_FORCE_IMPL=zero=reference, one=..., fill_scalar=...).
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_ones.h"
#include "aclnnop/aclnn_zero.h"
#include "api/pointwise.h"
#include "ops/fill/checker.h"
#include "ops/fill/reference.h"

namespace {
constexpr const char* kZero = "aclnnInplaceZero";
constexpr const char* kOne = "aclnnInplaceOne";
constexpr const char* kFillScalar = "aclnnInplaceFillScalar";
using openaclnn::pointwise::PointwisePhase1;
using openaclnn::pointwise::Problem;
}  // namespace

aclnnStatus aclnnInplaceZeroGetWorkspaceSize(aclTensor* selfRef, uint64_t* workspaceSize,
                                             aclOpExecutor** executor) {
  return PointwisePhase1(kZero, openaclnn::fill::kImplementations, workspaceSize, executor, {},
                         {selfRef}, [&](Problem* p) {
                           return openaclnn::fill::CheckFill(selfRef, nullptr, false, 0, "zero", p);
                         });
}

aclnnStatus aclnnInplaceZero(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  return openaclnn::RunPhase2(kZero, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceOneGetWorkspaceSize(const aclTensor* selfRef, uint64_t* workspaceSize,
                                            aclOpExecutor** executor) {
  return PointwisePhase1(
      kOne, openaclnn::fill::kImplementations, workspaceSize, executor, {}, {selfRef},
      [&](Problem* p) { return openaclnn::fill::CheckFill(selfRef, nullptr, false, 1, "one", p); });
}

aclnnStatus aclnnInplaceOne(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                            aclrtStream stream) {
  return openaclnn::RunPhase2(kOne, workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceFillScalarGetWorkspaceSize(aclTensor* selfRef, const aclScalar* value,
                                                   uint64_t* workspaceSize,
                                                   aclOpExecutor** executor) {
  return PointwisePhase1(kFillScalar, openaclnn::fill::kImplementations, workspaceSize, executor,
                         {}, {selfRef}, [&](Problem* p) {
                           return openaclnn::fill::CheckFill(selfRef, value, true, 0, "fill_scalar",
                                                             p);
                         });
}

aclnnStatus aclnnInplaceFillScalar(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream) {
  return openaclnn::RunPhase2(kFillScalar, workspace, workspaceSize, executor, stream);
}

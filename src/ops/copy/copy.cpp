// aclnnInplaceCopy (selfRef = src, broadcast and converted): the public entry points, on the
// pointwise engine's conversion path (OPENACLNN_FORCE_IMPL=copy=reference for the reference).
#include "aclnnop/aclnn_copy.h"
#include "api/pointwise.h"
#include "ops/copy/checker.h"
#include "ops/copy/reference.h"

namespace {
constexpr const char* kName = "aclnnInplaceCopy";
}  // namespace

aclnnStatus aclnnInplaceCopyGetWorkspaceSize(aclTensor* selfRef, const aclTensor* src,
                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  return openaclnn::pointwise::PointwisePhase1(
      kName, openaclnn::copy::kImplementations, workspaceSize, executor, {src}, {selfRef},
      [&](openaclnn::pointwise::Problem* p) {
        return openaclnn::copy::CheckInplaceCopy(selfRef, src, p);
      });
}

aclnnStatus aclnnInplaceCopy(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  return openaclnn::RunPhase2(kName, workspace, workspaceSize, executor, stream);
}

// aclnnCast (out = self converted to dtype): the public entry points, on the pointwise engine's
// conversion path (OPENACLNN_FORCE_IMPL=cast=reference for the reference).
#include "aclnnop/aclnn_cast.h"
#include "api/pointwise.h"
#include "ops/cast/checker.h"
#include "ops/cast/reference.h"

namespace {
constexpr const char* kName = "aclnnCast";
}  // namespace

aclnnStatus aclnnCastGetWorkspaceSize(const aclTensor* self, const aclDataType dtype,
                                      aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor) {
  return openaclnn::pointwise::PointwisePhase1(
      kName, openaclnn::cast::kImplementations, workspaceSize, executor, {self}, {out},
      [&](openaclnn::pointwise::Problem* p) {
        return openaclnn::cast::CheckCast(self, dtype, out, p);
      });
}

aclnnStatus aclnnCast(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                      aclrtStream stream) {
  return openaclnn::RunPhase2(kName, workspace, workspaceSize, executor, stream);
}

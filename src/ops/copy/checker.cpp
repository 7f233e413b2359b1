#include "ops/copy/checker.h"

#include <vector>

#include "runtime/meta.h"

namespace openaclnn::copy {

Status CheckInplaceCopy(const aclTensor* self_ref, const aclTensor* src,
                        pointwise::Problem* problem) {
  if (self_ref == nullptr) return NullptrError("selfRef");
  if (src == nullptr) return NullptrError("src");
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckMaxRank(*self_ref, "selfRef"));
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckMaxRank(*src, "src"));
  std::vector<int64_t> shape;
  if (!pointwise::BroadcastShapes(src->view_dims, self_ref->view_dims, &shape) ||
      shape != self_ref->view_dims) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "src shape %s must broadcast to selfRef shape %s",
                       ShapeString(*src).c_str(), ShapeString(*self_ref).c_str());
  }
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckSupported(*src, "src"));
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckSupported(*self_ref, "selfRef"));
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckExtents({{self_ref, "selfRef"}, {src, "src"}}));
  problem->op = pointwise::Op::kCopy;
  problem->op_key = "copy";
  problem->compute = ToElemType(self_ref->dtype);
  pointwise::DescribeOperands(self_ref, src, nullptr, problem);
  return Status::Ok();
}

}  // namespace openaclnn::copy

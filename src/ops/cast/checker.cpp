#include "ops/cast/checker.h"

#include "api/dtype.h"
#include "runtime/meta.h"

namespace openaclnn::cast {

Status CheckCast(const aclTensor* self, aclDataType dtype, const aclTensor* out,
                 pointwise::Problem* problem) {
  if (self == nullptr) return NullptrError("self");
  if (out == nullptr) return NullptrError("out");
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckSupported(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckOutShape(*out, "out", self->view_dims));
  if (!pointwise::IsSupported(dtype)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "dtype must be one of %s, got %s",
                       pointwise::SupportedList(), DTypeName(dtype));
  }
  if (out->dtype != dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "out dtype must be dtype %s, got %s",
                       DTypeName(dtype), DTypeName(out->dtype));
  }
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckMaxRank(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckExtents({{self, "self"}, {out, "out"}}));
  problem->op = pointwise::Op::kCopy;
  problem->op_key = "cast";
  problem->compute = ToElemType(dtype);
  pointwise::DescribeOperands(out, self, nullptr, problem);
  return Status::Ok();
}

}  // namespace openaclnn::cast

#include "ops/fill/checker.h"

#include "api/dtype.h"
#include "runtime/meta.h"

namespace openaclnn::fill {

Status CheckFill(const aclTensor* self_ref, const aclScalar* value, bool has_value_param,
                 int64_t constant, const char* op_key, pointwise::Problem* problem) {
  if (self_ref == nullptr) return NullptrError("selfRef");
  if (has_value_param && value == nullptr) return NullptrError("value");
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckSupported(*self_ref, "selfRef"));
  const ElemType self_type = ToElemType(self_ref->dtype);
  pointwise::ScalarValue v;
  v.type = ElemType::kInt64;
  v.i = constant;
  v.f = static_cast<double>(constant);
  if (has_value_param) {
    OPENACLNN_RETURN_IF_ERROR(pointwise::ReadScalarChecked(*value, "value", &v));
    if (!pointwise::CanCast(v.type, self_type)) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "value dtype %s cannot be converted to selfRef dtype %s (only BOOL "
                         "converts to BOOL)",
                         DTypeName(ToAclDataType(v.type)), DTypeName(self_ref->dtype));
    }
  }
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckMaxRank(*self_ref, "selfRef"));
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckExtents({{self_ref, "selfRef"}}));
  problem->op = pointwise::Op::kFill;
  problem->op_key = op_key;
  problem->compute = self_type;
  problem->has_scalar = true;
  problem->scalar_type = v.type;
  problem->scalar_f = v.f;
  problem->scalar_i = v.i;
  pointwise::DescribeOperands(self_ref, nullptr, nullptr, problem);
  return Status::Ok();
}

}  // namespace openaclnn::fill

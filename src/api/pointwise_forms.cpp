#include "api/pointwise_forms.h"

#include <vector>

namespace openaclnn::pointwise {
namespace {

BinaryArgs Args(const ArithmeticRules& rules, const aclTensor* self, const char* self_name,
                const aclScalar* alpha, const aclTensor* out, const char* out_name) {
  BinaryArgs a;
  a.op = rules.op;
  a.op_key = rules.op_key;
  a.self = self;
  a.self_name = self_name;
  a.alpha = rules.has_alpha ? alpha : nullptr;
  a.out = out;
  a.out_name = out_name;
  a.shape_first = rules.shape_first;
  a.float_result = rules.float_result;
  return a;
}

// nullptr checks of the out-of-place forms, in the operator's order; `other` is the tensor or the
// scalar.
Status CheckOutOfPlaceNullptrs(const ArithmeticRules& rules, const aclTensor* self,
                               const void* other, const aclScalar* alpha, const aclTensor* out) {
  if (rules.out_checked_first) {
    if (out == nullptr) return NullptrError("out");
    if (other == nullptr) return NullptrError("other");
    if (self == nullptr) return NullptrError("self");
    return Status::Ok();
  }
  if (self == nullptr) return NullptrError("self");
  if (other == nullptr) return NullptrError("other");
  if (rules.has_alpha && alpha == nullptr) return NullptrError("alpha");
  if (out == nullptr) return NullptrError("out");
  return Status::Ok();
}

}  // namespace

Status CheckTensorForm(const ArithmeticRules& rules, const aclTensor* self, const aclTensor* other,
                       const aclScalar* alpha, const aclTensor* out, Problem* problem) {
  OPENACLNN_RETURN_IF_ERROR(CheckOutOfPlaceNullptrs(rules, self, other, alpha, out));
  BinaryArgs a = Args(rules, self, "self", alpha, out, "out");
  a.other = other;
  return CheckBinary(a, problem);
}

Status CheckScalarForm(const ArithmeticRules& rules, const aclTensor* self, const aclScalar* other,
                       const aclScalar* alpha, const aclTensor* out, Problem* problem) {
  OPENACLNN_RETURN_IF_ERROR(CheckOutOfPlaceNullptrs(rules, self, other, alpha, out));
  BinaryArgs a = Args(rules, self, "self", alpha, out, "out");
  a.other_scalar = other;
  return CheckBinary(a, problem);
}

Status CheckInplaceTensorForm(const ArithmeticRules& rules, const aclTensor* self_ref,
                              const aclTensor* other, const aclScalar* alpha, Problem* problem) {
  if (self_ref == nullptr) return NullptrError("selfRef");
  if (other == nullptr) return NullptrError("other");
  if (rules.has_alpha) {
    std::vector<int64_t> shape;
    OPENACLNN_RETURN_IF_ERROR(Broadcast(*self_ref, "selfRef", *other, "other", &shape));
    OPENACLNN_RETURN_IF_ERROR(CheckOutShape(*self_ref, "selfRef", shape));
    if (alpha == nullptr) return NullptrError("alpha");
  }
  BinaryArgs a = Args(rules, self_ref, "selfRef", alpha, self_ref, "selfRef");
  a.other = other;
  return CheckBinary(a, problem);
}

Status CheckInplaceScalarForm(const ArithmeticRules& rules, const aclTensor* self_ref,
                              const aclScalar* other, const aclScalar* alpha, Problem* problem) {
  if (self_ref == nullptr) return NullptrError("selfRef");
  if (other == nullptr) return NullptrError("other");
  if (rules.has_alpha && alpha == nullptr) return NullptrError("alpha");
  BinaryArgs a = Args(rules, self_ref, "selfRef", alpha, self_ref, "selfRef");
  a.other_scalar = other;
  return CheckBinary(a, problem);
}

}  // namespace openaclnn::pointwise

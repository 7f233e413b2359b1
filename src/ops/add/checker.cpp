#include "ops/add/checker.h"

#include <vector>

namespace openaclnn::add {
namespace {

constexpr const char* kKey = "add";

pointwise::BinaryArgs Args(const aclTensor* self, const char* self_name, const aclScalar* alpha,
                           const aclTensor* out, const char* out_name) {
  pointwise::BinaryArgs a;
  a.op = pointwise::Op::kAdd;
  a.op_key = kKey;
  a.self = self;
  a.self_name = self_name;
  a.alpha = alpha;
  a.out = out;
  a.out_name = out_name;
  return a;
}

}  // namespace

Status CheckTensorForm(const aclTensor* self, const aclTensor* other, const aclScalar* alpha,
                       const aclTensor* out, pointwise::Problem* problem) {
  if (self == nullptr) return NullptrError("self");
  if (other == nullptr) return NullptrError("other");
  if (alpha == nullptr) return NullptrError("alpha");
  if (out == nullptr) return NullptrError("out");
  pointwise::BinaryArgs a = Args(self, "self", alpha, out, "out");
  a.other = other;
  return pointwise::CheckBinary(a, problem);
}

Status CheckScalarForm(const aclTensor* self, const aclScalar* other, const aclScalar* alpha,
                       const aclTensor* out, pointwise::Problem* problem) {
  if (self == nullptr) return NullptrError("self");
  if (other == nullptr) return NullptrError("other");
  if (alpha == nullptr) return NullptrError("alpha");
  if (out == nullptr) return NullptrError("out");
  pointwise::BinaryArgs a = Args(self, "self", alpha, out, "out");
  a.other_scalar = other;
  return pointwise::CheckBinary(a, problem);
}

Status CheckInplaceTensorForm(const aclTensor* self_ref, const aclTensor* other,
                              const aclScalar* alpha, pointwise::Problem* problem) {
  if (self_ref == nullptr) return NullptrError("selfRef");
  if (other == nullptr) return NullptrError("other");
  std::vector<int64_t> shape;
  OPENACLNN_RETURN_IF_ERROR(pointwise::Broadcast(*self_ref, "selfRef", *other, "other", &shape));
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckOutShape(*self_ref, "selfRef", shape));
  if (alpha == nullptr) return NullptrError("alpha");
  pointwise::BinaryArgs a = Args(self_ref, "selfRef", alpha, self_ref, "selfRef");
  a.other = other;
  return pointwise::CheckBinary(a, problem);
}

Status CheckInplaceScalarForm(const aclTensor* self_ref, const aclScalar* other,
                              const aclScalar* alpha, pointwise::Problem* problem) {
  if (self_ref == nullptr) return NullptrError("selfRef");
  if (other == nullptr) return NullptrError("other");
  if (alpha == nullptr) return NullptrError("alpha");
  pointwise::BinaryArgs a = Args(self_ref, "selfRef", alpha, self_ref, "selfRef");
  a.other_scalar = other;
  return pointwise::CheckBinary(a, problem);
}

}  // namespace openaclnn::add

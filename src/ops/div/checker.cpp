#include "ops/div/checker.h"

namespace openaclnn::div {
namespace {

constexpr const char* kKey = "div";

Status Check(const aclTensor* self, const char* self_name, const aclTensor* other,
             const aclScalar* other_scalar, const aclTensor* out, const char* out_name,
             pointwise::Problem* problem) {
  pointwise::BinaryArgs a;
  a.op = pointwise::Op::kDiv;
  a.op_key = kKey;
  a.self = self;
  a.self_name = self_name;
  a.other = other;
  a.other_scalar = other_scalar;
  a.out = out;
  a.out_name = out_name;
  a.shape_first = true;
  a.float_result = true;
  return pointwise::CheckBinary(a, problem);
}

}  // namespace

Status CheckTensorForm(const aclTensor* self, const aclTensor* other, const aclTensor* out,
                       pointwise::Problem* problem) {
  if (out == nullptr) return NullptrError("out");
  if (other == nullptr) return NullptrError("other");
  if (self == nullptr) return NullptrError("self");
  return Check(self, "self", other, nullptr, out, "out", problem);
}

Status CheckScalarForm(const aclTensor* self, const aclScalar* other, const aclTensor* out,
                       pointwise::Problem* problem) {
  if (out == nullptr) return NullptrError("out");
  if (other == nullptr) return NullptrError("other");
  if (self == nullptr) return NullptrError("self");
  return Check(self, "self", nullptr, other, out, "out", problem);
}

Status CheckInplaceTensorForm(const aclTensor* self_ref, const aclTensor* other,
                              pointwise::Problem* problem) {
  if (self_ref == nullptr) return NullptrError("selfRef");
  if (other == nullptr) return NullptrError("other");
  return Check(self_ref, "selfRef", other, nullptr, self_ref, "selfRef", problem);
}

Status CheckInplaceScalarForm(const aclTensor* self_ref, const aclScalar* other,
                              pointwise::Problem* problem) {
  if (self_ref == nullptr) return NullptrError("selfRef");
  if (other == nullptr) return NullptrError("other");
  return Check(self_ref, "selfRef", nullptr, other, self_ref, "selfRef", problem);
}

}  // namespace openaclnn::div

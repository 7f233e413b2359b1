// Parameter validation of aclnnNLLLossGetWorkspaceSize and aclnnNLLLossBackwardGetWorkspaceSize,
// in CANN's order: null pointers (161001), dtypes, reduction, shapes, then the extent of every
// view; every other failure 161002 with a message naming the parameter, what was expected and
// what was got.
#include <string>

#include "api/dtype.h"
#include "ops/nll_loss/problem.h"
#include "runtime/meta.h"

namespace openaclnn::nll_loss {
namespace {

constexpr const char* kFloatTypes = "FLOAT, FLOAT16, BFLOAT16";
constexpr const char* kTargetTypes = "INT64, INT32, UINT8";

bool FloatType(aclDataType t) { return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16; }
bool TargetType(aclDataType t) { return t == ACL_INT64 || t == ACL_INT32 || t == ACL_UINT8; }

Status CheckSameType(const aclTensor& t, const char* param, const aclTensor& ref,
                     const char* ref_param) {
  if (t.dtype == ref.dtype) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dtype must equal %s dtype %s, got %s", param,
                     ref_param, DTypeName(ref.dtype), DTypeName(t.dtype));
}

Status CheckReduction(int64_t reduction) {
  if (reduction >= kNone && reduction <= kSum) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                     "reduction must be 0 (none), 1 (mean) or 2 (sum), got %lld",
                     static_cast<long long>(reduction));
}

// self (N, C) or (C); target (N) or (); weight (C). Fills the shape fields of `p`.
Status CheckSelfTargetWeight(const aclTensor& self, const aclTensor& target,
                             const aclTensor& weight, Problem* p) {
  const size_t rank = self.view_dims.size();
  if (rank != 1 && rank != 2) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "self must be 1-D (C) or 2-D (N, C), got shape %s",
                       ShapeString(self).c_str());
  }
  p->batched = rank == 2;
  p->n = p->batched ? self.view_dims[0] : 1;
  p->c = self.view_dims[rank - 1];
  const bool target_ok = p->batched ? target.view_dims.size() == 1 && target.view_dims[0] == p->n
                                    : target.view_dims.empty();
  if (!target_ok) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "target shape must be %s for self of shape %s, got %s",
                       p->batched ? ("[" + std::to_string(p->n) + "]").c_str() : "[] (0-d)",
                       ShapeString(self).c_str(), ShapeString(target).c_str());
  }
  if (weight.view_dims.size() != 1 || weight.view_dims[0] != p->c) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "weight shape must be [%lld] (one weight per class of self %s), got %s",
                       static_cast<long long>(p->c), ShapeString(self).c_str(),
                       ShapeString(weight).c_str());
  }
  return Status::Ok();
}

// A tensor of one element, rank 0 or 1 ("[1]" or "[]").
Status CheckSingle(const aclTensor& t, const char* param, const char* why) {
  if (t.view_dims.size() <= 1 && Numel(t) == 1) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s shape must be [1] or [] (%s), got %s", param, why,
                     ShapeString(t).c_str());
}

// Per-row (N) or single, as reduction and self's rank say.
Status CheckPerRowOrSingle(const aclTensor& t, const char* param, const Problem& p) {
  if (!p.per_row()) {
    return CheckSingle(t, param,
                       p.reduction == kNone ? "reduction none with a 1-D self"
                                            : "reduction mean "
                                              "or sum");
  }
  if (t.view_dims.size() == 1 && t.view_dims[0] == p.n) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                     "%s shape must be [%lld] (reduction none with self (N, C)), got %s", param,
                     static_cast<long long>(p.n), ShapeString(t).c_str());
}

}  // namespace

Status CheckForward(const aclTensor* self, const aclTensor* target, const aclTensor* weight,
                    int64_t reduction, int64_t ignore_index, const aclTensor* out,
                    const aclTensor* total_weight_out, Problem* problem) {
  if (self == nullptr) return NullptrError("self");
  if (target == nullptr) return NullptrError("target");
  if (weight == nullptr) return NullptrError("weight");
  if (out == nullptr) return NullptrError("out");
  if (total_weight_out == nullptr) return NullptrError("totalWeightOut");
  OPENACLNN_RETURN_IF_ERROR(
      CheckDtypeListed(FloatType(self->dtype), "self", kFloatTypes, self->dtype));
  OPENACLNN_RETURN_IF_ERROR(CheckSameType(*weight, "weight", *self, "self"));
  OPENACLNN_RETURN_IF_ERROR(
      CheckDtypeListed(FloatType(out->dtype), "out", kFloatTypes, out->dtype));
  OPENACLNN_RETURN_IF_ERROR(CheckDtypeListed(FloatType(total_weight_out->dtype), "totalWeightOut",
                                             kFloatTypes, total_weight_out->dtype));
  OPENACLNN_RETURN_IF_ERROR(
      CheckDtypeListed(TargetType(target->dtype), "target", kTargetTypes, target->dtype));
  OPENACLNN_RETURN_IF_ERROR(CheckReduction(reduction));
  Problem& p = *problem;
  p.kind = Kind::kForward;
  p.reduction = reduction;
  p.ignore_index = ignore_index;
  OPENACLNN_RETURN_IF_ERROR(CheckSelfTargetWeight(*self, *target, *weight, &p));
  OPENACLNN_RETURN_IF_ERROR(CheckPerRowOrSingle(*out, "out", p));
  if (Numel(*total_weight_out) != 1 || total_weight_out->view_dims.size() > 1) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "totalWeightOut shape must be [1] or [], got %s",
                       ShapeString(*total_weight_out).c_str());
  }
  // CANN's check: no class, yet targets to look up.
  if (p.c == 0 && p.n > 0) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "target is out of bounds: self %s has no class, target has %lld elements",
                       ShapeString(*self).c_str(), static_cast<long long>(p.n));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*target, "target"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*weight, "weight"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*out, "out"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*total_weight_out, "totalWeightOut"));
  DescribeTensor(*self, &p.self);
  DescribeTensor(*target, &p.target);
  DescribeTensor(*weight, &p.weight);
  DescribeTensor(*out, &p.out);
  DescribeTensor(*total_weight_out, &p.total);
  p.row_stride = p.batched ? p.self.strides[0] : 0;
  p.class_stride = p.self.strides[p.self.rank - 1];
  p.per_row_stride = p.per_row() ? p.out.strides[0] : 0;
  return Status::Ok();
}

Status CheckBackward(const aclTensor* grad_output, const aclTensor* self, const aclTensor* target,
                     const aclTensor* weight, int64_t reduction, int64_t ignore_index,
                     const aclTensor* total_weight, const aclTensor* out, Problem* problem) {
  if (grad_output == nullptr) return NullptrError("gradOutput");
  if (self == nullptr) return NullptrError("self");
  if (target == nullptr) return NullptrError("target");
  if (weight == nullptr) return NullptrError("weight");
  if (total_weight == nullptr) return NullptrError("totalWeight");
  if (out == nullptr) return NullptrError("out");
  OPENACLNN_RETURN_IF_ERROR(
      CheckDtypeListed(FloatType(self->dtype), "self", kFloatTypes, self->dtype));
  OPENACLNN_RETURN_IF_ERROR(CheckSameType(*grad_output, "gradOutput", *self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckSameType(*weight, "weight", *self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckSameType(*total_weight, "totalWeight", *self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckSameType(*out, "out", *self, "self"));
  OPENACLNN_RETURN_IF_ERROR(
      CheckDtypeListed(TargetType(target->dtype), "target", kTargetTypes, target->dtype));
  OPENACLNN_RETURN_IF_ERROR(CheckReduction(reduction));
  Problem& p = *problem;
  p.kind = Kind::kBackward;
  p.reduction = reduction;
  p.ignore_index = ignore_index;
  OPENACLNN_RETURN_IF_ERROR(CheckSelfTargetWeight(*self, *target, *weight, &p));
  OPENACLNN_RETURN_IF_ERROR(CheckPerRowOrSingle(*grad_output, "gradOutput", p));
  OPENACLNN_RETURN_IF_ERROR(CheckSingle(*total_weight, "totalWeight", "one value"));
  if (out->view_dims != self->view_dims) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "out shape must equal self shape %s, got %s",
                       ShapeString(*self).c_str(), ShapeString(*out).c_str());
  }
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*grad_output, "gradOutput"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*target, "target"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*weight, "weight"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*total_weight, "totalWeight"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*out, "out"));
  DescribeTensor(*grad_output, &p.grad_output);
  DescribeTensor(*self, &p.self);
  DescribeTensor(*target, &p.target);
  DescribeTensor(*weight, &p.weight);
  DescribeTensor(*total_weight, &p.total);
  DescribeTensor(*out, &p.out);
  p.row_stride = p.batched ? p.out.strides[0] : 0;
  p.class_stride = p.out.strides[p.out.rank - 1];
  p.per_row_stride = p.per_row() ? p.grad_output.strides[0] : 0;
  return Status::Ok();
}

}  // namespace openaclnn::nll_loss

#include "ops/softmax/checker.h"

#include <string>

#include "api/dtype.h"
#include "api/tensor_desc.h"
#include "runtime/meta.h"

namespace openaclnn::softmax {
namespace {

constexpr const char* kForwardTypes = "FLOAT16, FLOAT, DOUBLE, BFLOAT16";
constexpr const char* kBackwardTypes = "FLOAT16, FLOAT, BFLOAT16";

bool ForwardType(aclDataType t) {
  return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16 || t == ACL_DOUBLE;
}
bool BackwardType(aclDataType t) { return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16; }

// dim in [-rank, rank - 1]; a 0-d tensor takes dim 0 or -1 (it is one row of one element).
Status NormalizeDim(int64_t dim, const aclTensor& t, const char* param, int* normalized) {
  const int64_t rank = static_cast<int64_t>(t.view_dims.size());
  const int64_t span = rank == 0 ? 1 : rank;
  if (dim < -span || dim >= span) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "dim must be in [%lld, %lld] for %s of shape %s, got %lld",
                       static_cast<long long>(-span), static_cast<long long>(span - 1), param,
                       ShapeString(t).c_str(), static_cast<long long>(dim));
  }
  *normalized = rank == 0 ? 0 : static_cast<int>(dim < 0 ? dim + rank : dim);
  return Status::Ok();
}

Status CheckSameShape(const aclTensor& t, const char* param, const aclTensor& ref,
                      const char* ref_param) {
  if (t.view_dims == ref.view_dims) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s shape must equal %s shape %s, got %s", param,
                     ref_param, ShapeString(ref).c_str(), ShapeString(t).c_str());
}

}  // namespace

Status CheckForward(Kind kind, const aclTensor* self, int64_t dim, const aclTensor* out,
                    Problem* problem) {
  if (self == nullptr) return NullptrError("self");
  if (out == nullptr) return NullptrError("out");
  OPENACLNN_RETURN_IF_ERROR(
      CheckDtypeListed(ForwardType(self->dtype), "self", kForwardTypes, self->dtype));
  OPENACLNN_RETURN_IF_ERROR(
      CheckDtypeListed(ForwardType(out->dtype), "out", kForwardTypes, out->dtype));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*self, "self"));
  Problem& p = *problem;
  p.kind = kind;
  OPENACLNN_RETURN_IF_ERROR(NormalizeDim(dim, *self, "self", &p.dim));
  OPENACLNN_RETURN_IF_ERROR(CheckSameShape(*out, "out", *self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*out, "out"));
  DescribeTensor(*self, &p.x);
  DescribeTensor(*out, &p.out);
  return Status::Ok();
}

Status CheckBackward(Kind kind, const aclTensor* grad_output, const aclTensor* output, int64_t dim,
                     const aclTensor* out, Problem* problem) {
  if (grad_output == nullptr) return NullptrError("gradOutput");
  if (output == nullptr) return NullptrError("output");
  if (out == nullptr) return NullptrError("out");
  OPENACLNN_RETURN_IF_ERROR(CheckDtypeListed(BackwardType(grad_output->dtype), "gradOutput",
                                             kBackwardTypes, grad_output->dtype));
  if (output->dtype != grad_output->dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "output dtype must equal gradOutput dtype %s, got %s",
                       DTypeName(grad_output->dtype), DTypeName(output->dtype));
  }
  OPENACLNN_RETURN_IF_ERROR(
      CheckDtypeListed(BackwardType(out->dtype), "out", kBackwardTypes, out->dtype));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*grad_output, "gradOutput"));
  Problem& p = *problem;
  p.kind = kind;
  OPENACLNN_RETURN_IF_ERROR(NormalizeDim(dim, *grad_output, "gradOutput", &p.dim));
  OPENACLNN_RETURN_IF_ERROR(CheckSameShape(*output, "output", *grad_output, "gradOutput"));
  OPENACLNN_RETURN_IF_ERROR(CheckSameShape(*out, "out", *grad_output, "gradOutput"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*grad_output, "gradOutput"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*output, "output"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*out, "out"));
  DescribeTensor(*grad_output, &p.x);
  DescribeTensor(*output, &p.y);
  DescribeTensor(*out, &p.out);
  return Status::Ok();
}

}  // namespace openaclnn::softmax

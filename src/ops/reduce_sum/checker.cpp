#include "ops/reduce_sum/checker.h"

#include <string>
#include <vector>

#include "api/dtype.h"
#include "api/elem_type.h"
#include "api/tensor_desc.h"
#include "runtime/meta.h"

namespace openaclnn::reduce_sum {
namespace {

constexpr const char* kSupported =
    "FLOAT16, FLOAT, INT8, INT16, INT32, INT64, UINT8, BOOL, DOUBLE, BFLOAT16";

// CANN's list without COMPLEX64 and COMPLEX128, which openaclnn does not implement.
bool Supported(aclDataType dtype) { return ToElemType(dtype) != ElemType::kInvalid; }

Status CheckDtype(aclDataType dtype, const char* what) {
  if (Supported(dtype)) return Status::Ok();
  const bool complex = dtype == ACL_COMPLEX64 || dtype == ACL_COMPLEX128;
  return ErrorStatus(
      ACLNN_ERR_PARAM_INVALID, "%s must be one of %s, got %s%s", what, kSupported, DTypeName(dtype),
      complex ? " (CANN sums complex tensors; openaclnn does not implement them)" : "");
}

}  // namespace

Status CheckArguments(const aclTensor* self, const aclIntArray* dims, bool keep_dims,
                      aclDataType dtype, const aclTensor* out, Problem* problem) {
  if (self == nullptr) return NullptrError("self");
  if (dims == nullptr) return NullptrError("dims");
  if (out == nullptr) return NullptrError("out");

  OPENACLNN_RETURN_IF_ERROR(CheckDtype(self->dtype, "self dtype"));
  OPENACLNN_RETURN_IF_ERROR(CheckDtype(out->dtype, "out dtype"));
  OPENACLNN_RETURN_IF_ERROR(CheckDtype(dtype, "dtype"));
  if (out->dtype != dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "out dtype must equal dtype %s, got %s",
                       DTypeName(dtype), DTypeName(out->dtype));
  }

  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*out, "out"));
  Problem& p = *problem;
  const int rank = static_cast<int>(self->view_dims.size());
  OPENACLNN_RETURN_IF_ERROR(NormalizeReduceDims(dims->values, rank, "dims", &p.mask));

  DescribeTensor(*self, &p.in);
  DescribeTensor(*out, &p.out);
  p.keep_dims = keep_dims;
  p.in_type = ToElemType(self->dtype);
  p.out_type = ToElemType(out->dtype);
  // CANN fills out with zeros for an empty self without looking at out's shape.
  if (p.in.Numel() != 0) {
    const std::vector<int64_t> expected = ReducedShape(p.in, p.mask, keep_dims);
    if (!OutputShapeAccepted(expected, p.out)) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "out shape must be %s (self %s reduced over dims %s, keepDims %s), got %s",
                         DimsString(expected).c_str(), ShapeString(*self).c_str(),
                         DimsString(dims->values).c_str(), keep_dims ? "true" : "false",
                         ShapeString(*out).c_str());
    }
  }
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*out, "out"));
  return Status::Ok();
}

}  // namespace openaclnn::reduce_sum

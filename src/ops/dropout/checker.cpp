// Parameter validation of aclnnDropoutGenMask(V2) and aclnnDropoutDoMask in CANN's order:
// nullptr (161001), then dtypes, prob's range and the shapes (161002).
#include <cmath>
#include <string>
#include <vector>

#include "api/dtype.h"
#include "ops/dropout/dropout.h"
#include "runtime/meta.h"

namespace openaclnn::dropout {
namespace {

Status CheckProb(double prob) {
  if (prob >= 0.0 && prob <= 1.0) return Status::Ok();  // false for NaN
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "prob must be between 0 and 1, got %g", prob);
}

// prob as the device sees it: converted to probDataType (0 and 1 stay exact).
double RoundProb(double prob, aclDataType dtype) {
  const float f = static_cast<float>(prob);
  switch (dtype) {
    case ACL_FLOAT16:
      return RoundThroughHalf(f);
    case ACL_BF16:
      return RoundThroughBFloat16(f);
    default:
      return f;
  }
}

Status CheckScalarInt64Tensor(const aclTensor& t, const char* param) {
  if (t.dtype != ACL_INT64) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dtype must be INT64, got %s", param,
                       DTypeName(t.dtype));
  }
  if (Numel(t) != 1 || t.view_dims.size() > static_cast<size_t>(kMaxRank)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s must hold exactly 1 element, got shape %s",
                       param, ShapeString(t).c_str());
  }
  return CheckTensorExtent(t, param);
}

}  // namespace

void ResolveSeedOffset(const GenMaskProblem& p, const Bindings& b, int64_t* seed, int64_t* offset) {
  *seed = p.seed;
  *offset = p.offset;
  if (!p.seed_offset_tensors) return;
  *seed = *static_cast<const int64_t*>(p.seed_tensor.First(static_cast<const void*>(b.inputs[0])));
  const int64_t base =
      *static_cast<const int64_t*>(p.offset_tensor.First(static_cast<const void*>(b.inputs[1])));
  // Wrapping addition, as the device's int64 add.
  *offset = static_cast<int64_t>(static_cast<uint64_t>(base) + static_cast<uint64_t>(p.offset));
}

Status CheckGenMask(const aclIntArray* shape, double prob, int64_t seed, int64_t offset,
                    aclDataType prob_dtype, const aclTensor* out, const aclTensor* seed_tensor,
                    const aclTensor* offset_tensor, bool tensor_form, GenMaskProblem* problem) {
  if (shape == nullptr) return NullptrError("shape");
  if (tensor_form && seed_tensor == nullptr) return NullptrError("seedTensor");
  if (tensor_form && offset_tensor == nullptr) return NullptrError("offsetTensor");
  if (out == nullptr) return NullptrError("out");
  if (out->dtype != ACL_UINT8) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "out dtype must be UINT8, got %s",
                       DTypeName(out->dtype));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckProb(prob));
  if (!IsComputeFloat(prob_dtype)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "probDataType must be FLOAT, FLOAT16 or BFLOAT16, got %s",
                       DTypeName(prob_dtype));
  }
  int64_t numel = 1;
  for (size_t d = 0; d < shape->values.size(); ++d) {
    const int64_t v = shape->values[d];
    if (v < 0) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "shape dim %zu must not be negative, got %s", d,
                         DimsString(shape->values).c_str());
    }
    if (v != 0 && numel > kMaxViewElements / v) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "shape %s has more than %lld elements",
                         DimsString(shape->values).c_str(),
                         static_cast<long long>(kMaxViewElements));
    }
    numel *= v;
  }
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*out, "out"));
  const int64_t need = MaskBytes(numel);
  if (Numel(*out) != need) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "out must have align(%lld, 128) / 8 = %lld elements for shape %s, got %lld "
                       "(shape %s)",
                       static_cast<long long>(numel), static_cast<long long>(need),
                       DimsString(shape->values).c_str(), static_cast<long long>(Numel(*out)),
                       ShapeString(*out).c_str());
  }
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*out, "out"));
  if (tensor_form) {
    OPENACLNN_RETURN_IF_ERROR(CheckScalarInt64Tensor(*seed_tensor, "seedTensor"));
    OPENACLNN_RETURN_IF_ERROR(CheckScalarInt64Tensor(*offset_tensor, "offsetTensor"));
  }
  GenMaskProblem& p = *problem;
  p.seed_offset_tensors = tensor_form;
  if (tensor_form) {
    DescribeTensor(*seed_tensor, &p.seed_tensor);
    DescribeTensor(*offset_tensor, &p.offset_tensor);
  }
  p.numel = numel;
  p.mask_bytes = need;
  p.prob = (prob == 0.0 || prob == 1.0) ? prob : RoundProb(prob, prob_dtype);
  p.seed = seed;
  p.offset = offset;
  p.prob_dtype = prob_dtype;
  DescribeTensor(*out, &p.out);
  return Status::Ok();
}

Status CheckDoMask(const aclTensor* self, const aclTensor* mask, double prob, const aclTensor* out,
                   DoMaskProblem* problem, bool* nothing_to_do) {
  if (self == nullptr) return NullptrError("self");
  if (mask == nullptr) return NullptrError("mask");
  if (out == nullptr) return NullptrError("out");
  *nothing_to_do = Numel(*self) == 0;
  if (*nothing_to_do) return Status::Ok();
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*out, "out"));
  if (mask->dtype != ACL_UINT8) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "mask dtype must be UINT8, got %s",
                       DTypeName(mask->dtype));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckProb(prob));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*mask, "mask"));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*out, "out"));
  if (out->view_dims != self->view_dims) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "out shape %s must equal self shape %s",
                       ShapeString(*out).c_str(), ShapeString(*self).c_str());
  }
  const int64_t numel = Numel(*self);
  const int64_t need = MaskBytes(numel);
  if (Numel(*mask) < need) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "mask must have at least align(%lld, 128) / 8 = %lld elements for self "
                       "shape %s, got %lld (shape %s)",
                       static_cast<long long>(numel), static_cast<long long>(need),
                       ShapeString(*self).c_str(), static_cast<long long>(Numel(*mask)),
                       ShapeString(*mask).c_str());
  }
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*mask, "mask"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*out, "out"));
  DoMaskProblem& p = *problem;
  p.numel = numel;
  p.prob = prob;
  DescribeTensor(*self, &p.self);
  DescribeTensor(*mask, &p.mask);
  DescribeTensor(*out, &p.out);
  return Status::Ok();
}

std::string GenMaskProblem::Describe() const {
  return "numel=" + std::to_string(numel) + " mask_bytes=" + std::to_string(mask_bytes) +
         " prob=" + std::to_string(prob) + " probDataType=" + DTypeName(prob_dtype) +
         (out.IsContiguous() ? "" : " strided");
}

std::string DoMaskProblem::Describe() const {
  std::string s = "numel=" + std::to_string(numel) + " self=" + DTypeName(self.dtype) +
                  " out=" + DTypeName(out.dtype) + " prob=" + std::to_string(prob);
  if (!self.IsContiguous() || !out.IsContiguous() || !mask.IsContiguous()) s += " strided";
  return s;
}

}  // namespace openaclnn::dropout

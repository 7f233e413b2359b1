#include "ops/conv_tbc/checker.h"

#include <string>

#include "api/dtype.h"
#include "api/tensor_desc.h"
#include "runtime/meta.h"

namespace openaclnn::conv_tbc_forward {
namespace {

Status CheckRank(const aclTensor& t, const char* param, size_t rank) {
  if (t.view_dims.size() == rank) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s rank must be %zu, got %zu (shape %s)", param,
                     rank, t.view_dims.size(), ShapeString(t).c_str());
}

Status CheckFormat(const aclTensor& t, const char* param) {
  if (t.format == ACL_FORMAT_ND || t.format == ACL_FORMAT_NCL) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s format must be ND or NCL, got %s (%d)", param,
                     FormatName(t.format), static_cast<int>(t.format));
}

Status CheckNonNegativeDims(const aclTensor& t, const char* param) {
  for (size_t i = 0; i < t.view_dims.size(); ++i) {
    if (t.view_dims[i] < 0) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dim %zu must be >= 0, got %lld (shape %s)",
                         param, i, static_cast<long long>(t.view_dims[i]), ShapeString(t).c_str());
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckArguments(const aclTensor* self, const aclTensor* weight, const aclTensor* bias,
                      int64_t pad, const aclTensor* out, int8_t cube_math_type, Problem* problem) {
  // Step 2: required parameters (bias is required).
  if (self == nullptr) return NullptrError("self");
  if (weight == nullptr) return NullptrError("weight");
  if (bias == nullptr) return NullptrError("bias");
  if (out == nullptr) return NullptrError("output");

  // Step 4: dtypes (decision E5).
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*bias, "bias"));
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*self, "self"));
  if (weight->dtype != self->dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "weight dtype must equal self dtype %s, got %s",
                       DTypeName(self->dtype), DTypeName(weight->dtype));
  }
  if (out->dtype != weight->dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "output dtype must equal self and weight dtype %s, got %s",
                       DTypeName(weight->dtype), DTypeName(out->dtype));
  }

  // Step 5: ranks.
  OPENACLNN_RETURN_IF_ERROR(CheckRank(*self, "self", 3));
  OPENACLNN_RETURN_IF_ERROR(CheckRank(*weight, "weight", 3));
  OPENACLNN_RETURN_IF_ERROR(CheckRank(*out, "output", 3));
  OPENACLNN_RETURN_IF_ERROR(CheckRank(*bias, "bias", 1));

  // Step 6: formats (labels only).
  OPENACLNN_RETURN_IF_ERROR(CheckFormat(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckFormat(*weight, "weight"));
  OPENACLNN_RETURN_IF_ERROR(CheckFormat(*out, "output"));

  // Step 7: values.
  OPENACLNN_RETURN_IF_ERROR(CheckNonNegativeDims(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckNonNegativeDims(*weight, "weight"));
  OPENACLNN_RETURN_IF_ERROR(CheckNonNegativeDims(*bias, "bias"));
  OPENACLNN_RETURN_IF_ERROR(CheckNonNegativeDims(*out, "output"));
  const int64_t t_in = self->view_dims[0], batch = self->view_dims[1];
  const int64_t c_in = self->view_dims[2];
  const int64_t taps = weight->view_dims[0], c_out = weight->view_dims[2];
  if (bias->view_dims[0] != c_out) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "bias length must equal weight dim 2 (Cout = %lld), got %lld",
                       static_cast<long long>(c_out), static_cast<long long>(bias->view_dims[0]));
  }
  // Decision E7: any pad >= 0 whose output length is not negative.
  if (pad < 0) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "pad must be >= 0, got %lld",
                       static_cast<long long>(pad));
  }
  // T_in + 2 * pad + 1 with overflow checks (T_in, pad and K are all >= 0 here, so the
  // subtraction of K cannot overflow).
  int64_t t_out = 0;
  if (__builtin_mul_overflow(pad, 2, &t_out) || __builtin_add_overflow(t_out, t_in, &t_out) ||
      __builtin_add_overflow(t_out, 1, &t_out)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "T_out = T_in + 2 * pad + 1 - K overflows int64 (T_in = %lld, pad = %lld)",
                       static_cast<long long>(t_in), static_cast<long long>(pad));
  }
  t_out -= taps;
  if (t_out < 0) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "output length T_in + 2 * pad + 1 - K must be >= 0, got %lld (T_in = "
                       "%lld, pad = %lld, K = %lld)",
                       static_cast<long long>(t_out), static_cast<long long>(t_in),
                       static_cast<long long>(pad), static_cast<long long>(taps));
  }
  if (weight->view_dims[1] != c_in) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "weight dim 1 (%lld) must equal self dim 2 (Cin = %lld)",
                       static_cast<long long>(weight->view_dims[1]), static_cast<long long>(c_in));
  }

  // Step 8: the output shape.
  if (out->view_dims[0] != t_out || out->view_dims[1] != batch || out->view_dims[2] != c_out) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "output shape must be [T_out, B, Cout] = [%lld, %lld, %lld], got %s",
                       static_cast<long long>(t_out), static_cast<long long>(batch),
                       static_cast<long long>(c_out), ShapeString(*out).c_str());
  }

  // Step 9: cubeMathType (decision E6: 0 to 4, 4 behaving as 0).
  if (cube_math_type < 0 || cube_math_type > 4) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "cubeMathType must be 0 to 4, got %d",
                       static_cast<int>(cube_math_type));
  }

  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*weight, "weight"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*bias, "bias"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*out, "output"));

  Problem& p = *problem;
  p.t_in = t_in;
  p.t_out = t_out;
  p.batch = batch;
  p.c_in = c_in;
  p.c_out = c_out;
  p.taps = taps;
  p.pad = pad;
  p.cube_math_type = cube_math_type;  // NOLINT(bugprone-signed-char-misuse): an int8_t number
  p.rounding = InputRounding::kNone;
  p.round_result_to_half = false;
  if (cube_math_type == 2) {
    p.rounding = InputRounding::kHalf;
    p.round_result_to_half = true;
  } else if ((cube_math_type == 1 || cube_math_type == 3) && self->dtype == ACL_FLOAT) {
    p.rounding = InputRounding::kHf32;
  }
  DescribeTensor(*self, &p.self);
  DescribeTensor(*weight, &p.weight);
  DescribeTensor(*bias, &p.bias);
  DescribeTensor(*out, &p.out);
  return Status::Ok();
}

}  // namespace openaclnn::conv_tbc_forward

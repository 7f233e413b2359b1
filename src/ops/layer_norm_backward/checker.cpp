#include "ops/layer_norm_backward/checker.h"

#include <string>
#include <vector>

#include "api/dtype.h"
#include "api/tensor_desc.h"
#include "runtime/meta.h"

namespace openaclnn::layer_norm_backward {
namespace {

constexpr const char* kOutputNames[3] = {"gradInputOut", "gradWeightOut", "gradBiasOut"};

int Rank(const aclTensor& t) { return static_cast<int>(t.view_dims.size()); }

// weight and bias: rank == len(normalizedShape) and shape == normalizedShape.
Status CheckLikeNormalizedShape(const aclTensor& t, const char* param,
                                const std::vector<int64_t>& norm) {
  if (t.view_dims == norm) return Status::Ok();
  if (t.view_dims.size() != norm.size()) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "%s rank must equal the length of normalizedShape %s (%zu), got %d "
                       "(shape %s)",
                       param, DimsString(norm).c_str(), norm.size(), Rank(t),
                       ShapeString(t).c_str());
  }
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s shape %s must equal normalizedShape %s", param,
                     ShapeString(t).c_str(), DimsString(norm).c_str());
}

Status CheckDtypes(const aclTensor& grad_out, const aclTensor& input, const aclTensor& mean,
                   const aclTensor& rstd, const aclTensor* weight, const aclTensor* bias,
                   const aclTensor* const outputs[3]) {
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(grad_out, "gradOut"));
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(input, "input"));
  if (grad_out.dtype != input.dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "gradOut dtype %s must equal input dtype %s",
                       DTypeName(grad_out.dtype), DTypeName(input.dtype));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(mean, "mean"));
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(rstd, "rstd"));
  if (weight != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*weight, "weightOptional"));
    if (weight->dtype != ACL_FLOAT && weight->dtype != input.dtype) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "weightOptional dtype must be FLOAT or the input dtype %s, got %s",
                         DTypeName(input.dtype), DTypeName(weight->dtype));
    }
  }
  if (bias != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*bias, "biasOptional"));
  for (int i = 0; i < 3; ++i) {
    if (outputs[i] != nullptr) {
      OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*outputs[i], kOutputNames[i]));
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckArguments(const aclTensor* grad_out, const aclTensor* input,
                      const aclIntArray* normalized_shape, const aclTensor* mean,
                      const aclTensor* rstd, const aclTensor* weight, const aclTensor* bias,
                      const aclBoolArray* output_mask, const aclTensor* grad_input,
                      const aclTensor* grad_weight, const aclTensor* grad_bias, Problem* problem) {
  // Step 2: required parameters.
  if (grad_out == nullptr) return NullptrError("gradOut");
  if (input == nullptr) return NullptrError("input");
  if (normalized_shape == nullptr) return NullptrError("normalizedShape");
  if (mean == nullptr) return NullptrError("mean");
  if (rstd == nullptr) return NullptrError("rstd");
  if (output_mask == nullptr) return NullptrError("outputMask");

  // Step 3: the mask has exactly three entries.
  if (output_mask->values.size() != 3) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "outputMask size must be 3, got %zu",
                       output_mask->values.size());
  }
  bool mask[3];
  for (int i = 0; i < 3; ++i) mask[i] = output_mask->values[i];

  // Step 4: a requested output must be given.
  const aclTensor* const outputs[3] = {grad_input, grad_weight, grad_bias};
  for (int i = 0; i < 3; ++i) {
    if (mask[i] && outputs[i] == nullptr) {
      return ErrorStatus(ACLNN_ERR_PARAM_NULLPTR,
                         "%s must not be nullptr when outputMask[%d] is true", kOutputNames[i], i);
    }
  }

  // Step 5: dtypes (every non-null output, masked or not).
  OPENACLNN_RETURN_IF_ERROR(CheckDtypes(*grad_out, *input, *mean, *rstd, weight, bias, outputs));

  // Step 6: shapes.
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*grad_out, "gradOut"));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*input, "input"));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*mean, "mean"));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*rstd, "rstd"));
  for (int i = 0; i < 3; ++i) {
    if (mask[i]) OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*outputs[i], kOutputNames[i]));
  }
  const std::vector<int64_t>& norm = normalized_shape->values;
  const int norm_len = static_cast<int>(norm.size());
  if (norm_len < 1 || norm_len > kMaxRank) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "normalizedShape length must be between 1 and %d, got %d", kMaxRank,
                       norm_len);
  }
  if (Rank(*input) < norm_len) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "input rank must be at least the length of normalizedShape %s (%d), got "
                       "%d (shape %s)",
                       DimsString(norm).c_str(), norm_len, Rank(*input),
                       ShapeString(*input).c_str());
  }
  const int begin = Rank(*input) - norm_len;
  for (int i = 0; i < norm_len; ++i) {
    if (input->view_dims[begin + i] != norm[i]) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "input trailing dims of shape %s must equal normalizedShape %s (input "
                         "dim %d is %lld, normalizedShape[%d] is %lld)",
                         ShapeString(*input).c_str(), DimsString(norm).c_str(), begin + i,
                         static_cast<long long>(input->view_dims[begin + i]), i,
                         static_cast<long long>(norm[i]));
    }
  }
  if (weight != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(CheckLikeNormalizedShape(*weight, "weightOptional", norm));
  }
  if (bias != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(CheckLikeNormalizedShape(*bias, "biasOptional", norm));
  }
  if (grad_out->view_dims != input->view_dims) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "gradOut shape %s must equal input shape %s",
                       ShapeString(*grad_out).c_str(), ShapeString(*input).c_str());
  }
  if (mean->view_dims != rstd->view_dims) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "rstd shape %s must equal mean shape %s",
                       ShapeString(*rstd).c_str(), ShapeString(*mean).c_str());
  }
  // Saturating products (CheckTensorExtent below rejects sizes that overflow).
  const int64_t m = SaturatingProduct(input->view_dims, 0, begin);
  const int64_t n = SaturatingProduct(input->view_dims, begin, Rank(*input));
  if (Numel(*mean) != m) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "mean element count must equal M = %lld (the product of input dims before "
                       "the normalized ones, input shape %s), got %lld (shape %s)",
                       static_cast<long long>(m), ShapeString(*input).c_str(),
                       static_cast<long long>(Numel(*mean)), ShapeString(*mean).c_str());
  }
  if (mask[0] && grad_input->view_dims != input->view_dims) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "gradInputOut shape %s must equal input shape %s",
                       ShapeString(*grad_input).c_str(), ShapeString(*input).c_str());
  }
  for (int i = 1; i < 3; ++i) {
    if (mask[i] && Numel(*outputs[i]) != n) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "%s element count must equal N = %lld (the product of normalizedShape "
                         "%s), got %lld (shape %s)",
                         kOutputNames[i], static_cast<long long>(n), DimsString(norm).c_str(),
                         static_cast<long long>(Numel(*outputs[i])),
                         ShapeString(*outputs[i]).c_str());
    }
  }

  // Every tensor read or written must lie inside its memory block.
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*grad_out, "gradOut"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*input, "input"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*mean, "mean"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*rstd, "rstd"));
  if (weight != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*weight, "weightOptional"));
  for (int i = 0; i < 3; ++i) {
    if (mask[i]) OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*outputs[i], kOutputNames[i]));
  }

  Problem& p = *problem;
  p.m = m;
  p.n = n;
  p.begin = begin;
  DescribeTensor(*grad_out, &p.grad_out);
  DescribeTensor(*input, &p.input);
  DescribeTensor(*mean, &p.mean);
  DescribeTensor(*rstd, &p.rstd);
  p.has_weight = weight != nullptr;
  if (p.has_weight) DescribeTensor(*weight, &p.weight);
  for (int i = 0; i < 3; ++i) p.mask[i] = mask[i];
  if (mask[0]) DescribeTensor(*grad_input, &p.grad_input);
  if (mask[1]) DescribeTensor(*grad_weight, &p.grad_weight);
  if (mask[2]) DescribeTensor(*grad_bias, &p.grad_bias);
  return Status::Ok();
}

}  // namespace openaclnn::layer_norm_backward

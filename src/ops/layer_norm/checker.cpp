#include "ops/layer_norm/checker.h"

#include <string>
#include <vector>

#include "api/dtype.h"
#include "api/tensor_desc.h"
#include "runtime/meta.h"

namespace openaclnn::layer_norm {
namespace {

int Rank(const aclTensor& t) { return static_cast<int>(t.view_dims.size()); }

// weight and bias: in the list, and FLOAT or the input's dtype.
Status CheckParamDtype(const aclTensor& t, const char* param, aclDataType input) {
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(t, param));
  if (t.dtype == ACL_FLOAT || t.dtype == input) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                     "%s dtype must be FLOAT or the input dtype %s, got %s", param,
                     DTypeName(input), DTypeName(t.dtype));
}

// Step 6 (decision E1): M elements in any shape; [A1..Ai, 1..1] is the documented one.
Status CheckStatShape(const aclTensor& t, const char* param, int64_t m, const aclTensor& input,
                      int begin) {
  if (Numel(t) == m) return Status::Ok();
  std::vector<int64_t> expected(input.view_dims.begin(), input.view_dims.begin() + begin);
  expected.resize(input.view_dims.size(), 1);
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                     "%s must have M = %lld elements (shape %s, or any shape with M elements), "
                     "got shape %s",
                     param, static_cast<long long>(m), DimsString(expected).c_str(),
                     ShapeString(t).c_str());
}

}  // namespace

Status CheckArguments(const aclTensor* input, const aclIntArray* normalized_shape,
                      const aclTensor* weight, const aclTensor* bias, double eps,
                      const aclTensor* out, const aclTensor* mean, const aclTensor* rstd,
                      int32_t impl_mode, Problem* problem) {
  // Step 2: required parameters.
  if (input == nullptr) return NullptrError("input");
  if (normalized_shape == nullptr) return NullptrError("normalizedShape");
  if (out == nullptr) return NullptrError("out");

  // Step 3: input dtypes.
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*input, "input"));
  if (weight != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(CheckParamDtype(*weight, "weightOptional", input->dtype));
  }
  if (bias != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(CheckParamDtype(*bias, "biasOptional", input->dtype));
  }
  if (weight != nullptr && bias != nullptr && weight->dtype != bias->dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "biasOptional dtype must equal weightOptional dtype %s, got %s",
                       DTypeName(weight->dtype), DTypeName(bias->dtype));
  }

  // Step 4: output dtypes (decision E2: each may be any of the three, cast on store).
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*out, "out"));
  if (mean != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*mean, "meanOutOptional"));
  if (rstd != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*rstd, "rstdOutOptional"));

  // Step 5: ranks and shapes.
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*input, "input"));
  OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*out, "out"));
  if (weight != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*weight, "weightOptional"));
  if (bias != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*bias, "biasOptional"));
  if (mean != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*mean, "meanOutOptional"));
  if (rstd != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*rstd, "rstdOutOptional"));
  const std::vector<int64_t>& norm = normalized_shape->values;
  const int j = static_cast<int>(norm.size());
  if (j > kMaxRank) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "normalizedShape length must be at most %d, got %d",
                       kMaxRank, j);
  }
  if (j < 1) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "normalizedShape length must be at least 1, got 0");
  }
  if (Rank(*input) < j) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "input rank must be at least the length of normalizedShape %s (%d), got "
                       "%d (shape %s)",
                       DimsString(norm).c_str(), j, Rank(*input), ShapeString(*input).c_str());
  }
  const int begin = Rank(*input) - j;
  const aclTensor* params[2] = {weight, bias};
  const char* param_names[2] = {"weightOptional", "biasOptional"};
  for (int k = 0; k < 2; ++k) {
    if (params[k] != nullptr && Rank(*params[k]) != j) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "%s rank must equal the length of normalizedShape %s (%d), got %d "
                         "(shape %s)",
                         param_names[k], DimsString(norm).c_str(), j, Rank(*params[k]),
                         ShapeString(*params[k]).c_str());
    }
  }
  for (int i = 0; i < j; ++i) {
    if (input->view_dims[begin + i] != norm[i]) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "input trailing dims of shape %s must equal normalizedShape %s (input "
                         "dim %d is %lld, normalizedShape[%d] is %lld)",
                         ShapeString(*input).c_str(), DimsString(norm).c_str(), begin + i,
                         static_cast<long long>(input->view_dims[begin + i]), i,
                         static_cast<long long>(norm[i]));
    }
    for (int k = 0; k < 2; ++k) {
      if (params[k] != nullptr && params[k]->view_dims[i] != norm[i]) {
        return ErrorStatus(
            ACLNN_ERR_PARAM_INVALID,
            "%s shape %s must equal normalizedShape %s (dim %d is %lld, expected "
            "%lld)",
            param_names[k], ShapeString(*params[k]).c_str(), DimsString(norm).c_str(), i,
            static_cast<long long>(params[k]->view_dims[i]), static_cast<long long>(norm[i]));
      }
    }
  }
  if (out->view_dims != input->view_dims) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "out shape %s must equal input shape %s",
                       ShapeString(*out).c_str(), ShapeString(*input).c_str());
  }

  // Step 6 on every product (decision E1).
  const int64_t m = SaturatingProduct(input->view_dims, 0, begin);
  const int64_t n = SaturatingProduct(input->view_dims, begin, input->view_dims.size());
  if (mean != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(CheckStatShape(*mean, "meanOutOptional", m, *input, begin));
  }
  if (rstd != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(CheckStatShape(*rstd, "rstdOutOptional", m, *input, begin));
  }
  if (mean != nullptr && rstd != nullptr && mean->view_dims != rstd->view_dims) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "rstdOutOptional shape %s must equal meanOutOptional shape %s",
                       ShapeString(*rstd).c_str(), ShapeString(*mean).c_str());
  }

  // Step 7: implMode (decision E3).
  if (impl_mode < 0 || impl_mode > 2) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "implMode must be 0, 1 or 2, got %d", impl_mode);
  }
  if (impl_mode == 2) {
    const aclTensor* all[3] = {input, weight, bias};
    const char* names[3] = {"input", "weightOptional", "biasOptional"};
    for (int k = 0; k < 3; ++k) {
      if (all[k] != nullptr && all[k]->dtype != ACL_FLOAT16) {
        return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                           "implMode 2 (keep FLOAT16) requires %s dtype FLOAT16, got %s", names[k],
                           DTypeName(all[k]->dtype));
      }
    }
  }

  // Every tensor read or written must lie inside its memory block.
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*input, "input"));
  if (weight != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*weight, "weightOptional"));
  if (bias != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*bias, "biasOptional"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*out, "out"));
  if (mean != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*mean, "meanOutOptional"));
  if (rstd != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*rstd, "rstdOutOptional"));

  Problem& p = *problem;
  p.m = m;
  p.n = n;
  p.begin = begin;
  p.eps = static_cast<float>(eps);
  p.impl_mode = impl_mode;
  DescribeTensor(*input, &p.input);
  DescribeTensor(*out, &p.out);
  p.has_weight = weight != nullptr;
  p.has_bias = bias != nullptr;
  p.has_mean = mean != nullptr;
  p.has_rstd = rstd != nullptr;
  if (p.has_weight) DescribeTensor(*weight, &p.weight);
  if (p.has_bias) DescribeTensor(*bias, &p.bias);
  if (p.has_mean) DescribeTensor(*mean, &p.mean);
  if (p.has_rstd) DescribeTensor(*rstd, &p.rstd);
  return Status::Ok();
}

}  // namespace openaclnn::layer_norm

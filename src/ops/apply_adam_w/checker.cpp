// Parameter validation of aclnnApplyAdamWV2GetWorkspaceSize and aclnnApplyAdamWGetWorkspaceSize
// in CANN's order: nullptr (161001;
// maxGradNormOptionalRef only with amsgrad), then the dtypes, then the shapes (161002).
#include <cmath>
#include <string>

#include "api/dtype.h"
#include "ops/apply_adam_w/apply_adam_w.h"
#include "runtime/meta.h"

namespace openaclnn::apply_adam_w {
namespace {

Status CheckSameShape(const aclTensor& t, const char* param, const aclTensor& var) {
  if (t.view_dims == var.view_dims) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s shape %s must equal varRef shape %s", param,
                     ShapeString(t).c_str(), ShapeString(var).c_str());
}

}  // namespace

Status CheckArguments(aclTensor* var, aclTensor* m, aclTensor* v, aclTensor* max_grad_norm,
                      const aclTensor* grad, const aclTensor* step, float lr, float beta1,
                      float beta2, float weight_decay, float eps, bool amsgrad, bool maximize,
                      Problem* problem) {
  if (var == nullptr) return NullptrError("varRef");
  if (m == nullptr) return NullptrError("mRef");
  if (v == nullptr) return NullptrError("vRef");
  if (amsgrad && max_grad_norm == nullptr) {
    return ErrorStatus(ACLNN_ERR_PARAM_NULLPTR,
                       "maxGradNormOptionalRef must not be nullptr when amsgrad is true");
  }
  if (grad == nullptr) return NullptrError("grad");
  if (step == nullptr) return NullptrError("step");

  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*var, "varRef"));
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*m, "mRef"));
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*v, "vRef"));
  if (max_grad_norm != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*max_grad_norm, "maxGradNormOptionalRef"));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(*grad, "grad"));
  if (step->dtype != ACL_INT64 && step->dtype != ACL_FLOAT) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "step dtype must be INT64 or FLOAT, got %s",
                       DTypeName(step->dtype));
  }

  if (var->view_dims.size() > static_cast<size_t>(kMaxRank)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "varRef rank must be at most %d, got %zu (shape %s)", kMaxRank,
                       var->view_dims.size(), ShapeString(*var).c_str());
  }
  OPENACLNN_RETURN_IF_ERROR(CheckSameShape(*m, "mRef", *var));
  OPENACLNN_RETURN_IF_ERROR(CheckSameShape(*v, "vRef", *var));
  if (max_grad_norm != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(CheckSameShape(*max_grad_norm, "maxGradNormOptionalRef", *var));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckSameShape(*grad, "grad", *var));
  if (Numel(*step) != 1 || step->view_dims.size() > static_cast<size_t>(kMaxRank)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "step must hold exactly 1 element, got shape %s",
                       ShapeString(*step).c_str());
  }

  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*var, "varRef"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*m, "mRef"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*v, "vRef"));
  if (amsgrad) {
    OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*max_grad_norm, "maxGradNormOptionalRef"));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*grad, "grad"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*step, "step"));

  Problem& p = *problem;
  p.numel = Numel(*var);
  p.lr = lr;
  p.beta1 = beta1;
  p.beta2 = beta2;
  p.weight_decay = weight_decay;
  p.eps = eps;
  p.amsgrad = amsgrad;
  p.maximize = maximize;
  DescribeTensor(*var, &p.var);
  DescribeTensor(*m, &p.m);
  DescribeTensor(*v, &p.v);
  if (amsgrad) DescribeTensor(*max_grad_norm, &p.max_grad_norm);
  DescribeTensor(*grad, &p.grad);
  DescribeTensor(*step, &p.step);
  return Status::Ok();
}

// aclnnApplyAdamW (V1): nullptr (161001; maxGradNormOptional only with amsgrad), then the dtypes
// (every tensor holds varRef's dtype), then the shapes (161002). A maxGradNormOptional passed
// without amsgrad is checked too (as CANN's op_api does) but neither read nor written.
Status CheckArgumentsV1(aclTensor* var, aclTensor* m, aclTensor* v, const aclTensor* beta1_power,
                        const aclTensor* beta2_power, const aclTensor* lr,
                        const aclTensor* weight_decay, const aclTensor* beta1,
                        const aclTensor* beta2, const aclTensor* eps, const aclTensor* grad,
                        const aclTensor* max_grad_norm, bool amsgrad, bool maximize,
                        Problem* problem) {
  const aclTensor* const scalars[kV1ScalarCount] = {beta1_power, beta2_power, lr, weight_decay,
                                                    beta1,       beta2,       eps};
  static const char* const kScalarNames[kV1ScalarCount] = {
      "beta1Power", "beta2Power", "lr", "weightDecay", "beta1", "beta2", "eps"};
  if (var == nullptr) return NullptrError("varRef");
  if (m == nullptr) return NullptrError("mRef");
  if (v == nullptr) return NullptrError("vRef");
  for (int i = 0; i < kV1ScalarCount; ++i) {
    if (scalars[i] == nullptr) return NullptrError(kScalarNames[i]);
  }
  if (grad == nullptr) return NullptrError("grad");
  if (amsgrad && max_grad_norm == nullptr) {
    return ErrorStatus(ACLNN_ERR_PARAM_NULLPTR,
                       "maxGradNormOptional must not be nullptr when amsgrad is true");
  }

  if (var->dtype != ACL_FLOAT && var->dtype != ACL_FLOAT16 && var->dtype != ACL_BF16) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "varRef dtype must be FLOAT, FLOAT16 or BFLOAT16, got %s",
                       DTypeName(var->dtype));
  }
  auto same_dtype = [&](const aclTensor& t, const char* param) {
    if (t.dtype == var->dtype) return Status::Ok();
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dtype must equal varRef dtype %s, got %s",
                       param, DTypeName(var->dtype), DTypeName(t.dtype));
  };
  OPENACLNN_RETURN_IF_ERROR(same_dtype(*m, "mRef"));
  OPENACLNN_RETURN_IF_ERROR(same_dtype(*v, "vRef"));
  for (int i = 0; i < kV1ScalarCount; ++i) {
    OPENACLNN_RETURN_IF_ERROR(same_dtype(*scalars[i], kScalarNames[i]));
  }
  OPENACLNN_RETURN_IF_ERROR(same_dtype(*grad, "grad"));
  if (max_grad_norm != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(same_dtype(*max_grad_norm, "maxGradNormOptional"));
  }

  if (var->view_dims.size() > static_cast<size_t>(kMaxRank)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "varRef rank must be at most %d, got %zu (shape %s)", kMaxRank,
                       var->view_dims.size(), ShapeString(*var).c_str());
  }
  OPENACLNN_RETURN_IF_ERROR(CheckSameShape(*m, "mRef", *var));
  OPENACLNN_RETURN_IF_ERROR(CheckSameShape(*v, "vRef", *var));
  if (max_grad_norm != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(CheckSameShape(*max_grad_norm, "maxGradNormOptional", *var));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckSameShape(*grad, "grad", *var));
  for (int i = 0; i < kV1ScalarCount; ++i) {
    const aclTensor& t = *scalars[i];
    if (Numel(t) != 1 || t.view_dims.size() > static_cast<size_t>(kMaxRank)) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s must hold exactly 1 element, got shape %s",
                         kScalarNames[i], ShapeString(t).c_str());
    }
  }

  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*var, "varRef"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*m, "mRef"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*v, "vRef"));
  for (int i = 0; i < kV1ScalarCount; ++i) {
    OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*scalars[i], kScalarNames[i]));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*grad, "grad"));
  if (amsgrad) {
    OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*max_grad_norm, "maxGradNormOptional"));
  }

  Problem& p = *problem;
  p.v1 = true;
  p.numel = Numel(*var);
  p.amsgrad = amsgrad;
  p.maximize = maximize;
  DescribeTensor(*var, &p.var);
  DescribeTensor(*m, &p.m);
  DescribeTensor(*v, &p.v);
  if (amsgrad) DescribeTensor(*max_grad_norm, &p.max_grad_norm);
  DescribeTensor(*grad, &p.grad);
  for (int i = 0; i < kV1ScalarCount; ++i) DescribeTensor(*scalars[i], &p.scalars[i]);
  return Status::Ok();
}

Status ReadStepScalars(const Problem& p, const Bindings& b, StepScalars* scalars) {
  if (p.v1) {
    double value[kV1ScalarCount];
    for (int i = 0; i < kV1ScalarCount; ++i) {
      const TensorDesc& d = p.scalars[i];
      value[i] = LoadAsFloat(d.First(static_cast<const void*>(b.inputs[i + 1])), d.dtype, 0);
    }
    const double beta1_power = value[kV1Beta1Power - 1], beta2_power = value[kV1Beta2Power - 1];
    const double lr = value[kV1Lr - 1], weight_decay = value[kV1WeightDecay - 1];
    const double beta1 = value[kV1Beta1 - 1], beta2 = value[kV1Beta2 - 1];
    scalars->beta1 = static_cast<float>(beta1);
    scalars->beta2 = static_cast<float>(beta2);
    scalars->eps = static_cast<float>(value[kV1Eps - 1]);
    scalars->decay = 1.0 - lr * weight_decay;
    // beta^t = beta^(t-1) * beta; no check, as CANN: a zero correction gives inf or NaN.
    scalars->step_size = lr / (1.0 - beta1_power * beta1);
    scalars->bc2_sqrt = std::sqrt(1.0 - beta2_power * beta2);
    return Status::Ok();
  }
  const void* first = p.step.First(static_cast<const void*>(b.inputs[kStep]));
  double step = 0;
  if (p.step.dtype == ACL_INT64) {
    step = static_cast<double>(*static_cast<const int64_t*>(first));
  } else {
    step = *static_cast<const float*>(first);
  }
  if (!(step > 0) || !std::isfinite(step)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "step must be a finite number > 0, got %g", step);
  }
  const double lr = p.lr;
  scalars->beta1 = p.beta1;
  scalars->beta2 = p.beta2;
  scalars->eps = p.eps;
  scalars->decay = 1.0 - lr * static_cast<double>(p.weight_decay);
  scalars->step_size = lr / (1.0 - std::pow(static_cast<double>(p.beta1), step));
  scalars->bc2_sqrt = std::sqrt(1.0 - std::pow(static_cast<double>(p.beta2), step));
  return Status::Ok();
}

void* MaxGradNormData(const Problem& p, const Bindings& b) {
  if (!p.amsgrad) return nullptr;
  return p.max_grad_norm.First(p.v1 ? b.inputs[kV1MaxGradNorm] : b.outputs[kMaxGradNorm]);
}

std::string Problem::Describe() const {
  std::string s = "numel=" + std::to_string(numel) + " var=" + DTypeName(var.dtype) +
                  " m=" + DTypeName(m.dtype) + " v=" + DTypeName(v.dtype) +
                  " grad=" + DTypeName(grad.dtype) +
                  (v1 ? std::string(" v1") : std::string(" step=") + DTypeName(step.dtype)) +
                  (amsgrad ? " amsgrad" : "") + (maximize ? " maximize" : "");
  if (!var.IsContiguous() || !m.IsContiguous() || !v.IsContiguous() || !grad.IsContiguous() ||
      (amsgrad && !max_grad_norm.IsContiguous())) {
    s += " strided";
  }
  return s;
}

}  // namespace openaclnn::apply_adam_w

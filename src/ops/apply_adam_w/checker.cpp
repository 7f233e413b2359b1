// Parameter validation of aclnnApplyAdamWV2GetWorkspaceSize in CANN's order: nullptr (161001;
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

Status ReadStepScalars(const Problem& p, const void* step_data, StepScalars* scalars) {
  const void* first = p.step.First(step_data);
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
  scalars->decay = 1.0 - lr * static_cast<double>(p.weight_decay);
  scalars->step_size = lr / (1.0 - std::pow(static_cast<double>(p.beta1), step));
  scalars->bc2_sqrt = std::sqrt(1.0 - std::pow(static_cast<double>(p.beta2), step));
  return Status::Ok();
}

std::string Problem::Describe() const {
  std::string s = "numel=" + std::to_string(numel) + " var=" + DTypeName(var.dtype) +
                  " m=" + DTypeName(m.dtype) + " v=" + DTypeName(v.dtype) +
                  " grad=" + DTypeName(grad.dtype) + " step=" + DTypeName(step.dtype) +
                  (amsgrad ? " amsgrad" : "") + (maximize ? " maximize" : "");
  if (!var.IsContiguous() || !m.IsContiguous() || !v.IsContiguous() || !grad.IsContiguous() ||
      (amsgrad && !max_grad_norm.IsContiguous())) {
    s += " strided";
  }
  return s;
}

}  // namespace openaclnn::apply_adam_w

// Parameter validation of aclnnRmsNormGradGetWorkspaceSize (shape and dtype rules shared with
// RmsNorm in ops/rms_norm).
#include "api/dtype.h"
#include "api/tensor_desc.h"
#include "ops/rms_norm/problem.h"
#include "ops/rms_norm_grad/problem.h"
#include "runtime/meta.h"

namespace openaclnn::rms_norm_grad {

Status CheckArguments(const aclTensor* dy, const aclTensor* x, const aclTensor* rstd,
                      const aclTensor* gamma, const aclTensor* dx, const aclTensor* dgamma,
                      Problem* problem) {
  if (dy == nullptr) return NullptrError("dy");
  if (x == nullptr) return NullptrError("x");
  if (rstd == nullptr) return NullptrError("rstd");
  if (gamma == nullptr) return NullptrError("gamma");
  if (dx == nullptr) return NullptrError("dxOut");
  if (dgamma == nullptr) return NullptrError("dgammaOut");

  OPENACLNN_RETURN_IF_ERROR(rms_norm::CheckXGammaDtypes(*x, "x", *gamma, "gamma"));
  if (dy->dtype != x->dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "dy dtype must equal the x dtype %s, got %s",
                       DTypeName(x->dtype), DTypeName(dy->dtype));
  }
  if (dx->dtype != x->dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "dxOut dtype must equal the x dtype %s, got %s",
                       DTypeName(x->dtype), DTypeName(dx->dtype));
  }
  if (rstd->dtype != ACL_FLOAT) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "rstd dtype must be FLOAT, got %s",
                       DTypeName(rstd->dtype));
  }
  if (dgamma->dtype != ACL_FLOAT) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "dgammaOut dtype must be FLOAT, got %s",
                       DTypeName(dgamma->dtype));
  }

  int begin = 0;
  OPENACLNN_RETURN_IF_ERROR(rms_norm::CheckGammaShape(*x, "x", *gamma, "gamma", &begin));
  if (dy->view_dims != x->view_dims) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "dy shape %s must equal x shape %s",
                       ShapeString(*dy).c_str(), ShapeString(*x).c_str());
  }
  if (dx->view_dims != x->view_dims) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "dxOut shape %s must equal x shape %s",
                       ShapeString(*dx).c_str(), ShapeString(*x).c_str());
  }
  if (dgamma->view_dims != gamma->view_dims) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "dgammaOut shape %s must equal gamma shape %s",
                       ShapeString(*dgamma).c_str(), ShapeString(*gamma).c_str());
  }
  OPENACLNN_RETURN_IF_ERROR(rms_norm::CheckRstdShape(*x, "x", begin, *rstd, "rstd"));

  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*dy, "dy"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*x, "x"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*rstd, "rstd"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*gamma, "gamma"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*dx, "dxOut"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*dgamma, "dgammaOut"));

  Problem& p = *problem;
  p.begin = begin;
  p.m = SaturatingProduct(x->view_dims, 0, begin);
  p.n = SaturatingProduct(x->view_dims, begin, x->view_dims.size());
  DescribeTensor(*dy, &p.dy);
  DescribeTensor(*x, &p.x);
  DescribeTensor(*rstd, &p.rstd);
  DescribeTensor(*gamma, &p.gamma);
  DescribeTensor(*dx, &p.dx);
  DescribeTensor(*dgamma, &p.dgamma);
  return Status::Ok();
}

}  // namespace openaclnn::rms_norm_grad

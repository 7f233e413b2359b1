// Parameter validation of aclnnRmsNormGetWorkspaceSize and the shape/dtype rules RmsNormGrad
// shares with it.
#include <string>
#include <vector>

#include "api/dtype.h"
#include "api/tensor_desc.h"
#include "ops/rms_norm/problem.h"
#include "runtime/meta.h"

namespace openaclnn::rms_norm {
namespace {

int Rank(const aclTensor& t) { return static_cast<int>(t.view_dims.size()); }

Status CheckRank(const aclTensor& t, const char* param, int lo, int hi) {
  if (Rank(t) >= lo && Rank(t) <= hi) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                     "%s rank must be between %d and %d, got %d (shape %s)", param, lo, hi, Rank(t),
                     ShapeString(t).c_str());
}

}  // namespace

Status CheckXGammaDtypes(const aclTensor& x, const char* x_name, const aclTensor& gamma,
                         const char* gamma_name) {
  OPENACLNN_RETURN_IF_ERROR(CheckComputeFloat(x, x_name));
  if (gamma.dtype != x.dtype && gamma.dtype != ACL_FLOAT) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dtype must be FLOAT or the %s dtype %s, got %s",
                       gamma_name, x_name, DTypeName(x.dtype), DTypeName(gamma.dtype));
  }
  return Status::Ok();
}

Status CheckGammaShape(const aclTensor& x, const char* x_name, const aclTensor& gamma,
                       const char* gamma_name, int* begin) {
  OPENACLNN_RETURN_IF_ERROR(CheckRank(x, x_name, 1, kMaxRank));
  OPENACLNN_RETURN_IF_ERROR(CheckRank(gamma, gamma_name, 1, Rank(x)));
  const int b = Rank(x) - Rank(gamma);
  for (int i = 0; i < Rank(gamma); ++i) {
    if (gamma.view_dims[i] != x.view_dims[b + i]) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "%s shape %s must equal the trailing dims of %s shape %s (%s dim %d is "
                         "%lld, %s dim %d is %lld)",
                         gamma_name, ShapeString(gamma).c_str(), x_name, ShapeString(x).c_str(),
                         gamma_name, i, static_cast<long long>(gamma.view_dims[i]), x_name, b + i,
                         static_cast<long long>(x.view_dims[b + i]));
    }
  }
  *begin = b;
  return Status::Ok();
}

Status CheckRstdShape(const aclTensor& x, const char* x_name, int begin, const aclTensor& rstd,
                      const char* rstd_name) {
  std::vector<int64_t> lead(x.view_dims.begin(), x.view_dims.begin() + begin);
  std::vector<int64_t> keep = lead;
  keep.resize(x.view_dims.size(), 1);
  if (rstd.view_dims == lead || rstd.view_dims == keep) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                     "%s shape must be %s or %s (the dims of %s shape %s before the normalised "
                     "ones), got %s",
                     rstd_name, DimsString(keep).c_str(), DimsString(lead).c_str(), x_name,
                     ShapeString(x).c_str(), ShapeString(rstd).c_str());
}

Status CheckArguments(const aclTensor* x, const aclTensor* gamma, double epsilon,
                      const aclTensor* y, const aclTensor* rstd, Problem* problem) {
  if (x == nullptr) return NullptrError("x");
  if (gamma == nullptr) return NullptrError("gamma");
  if (y == nullptr) return NullptrError("yOut");
  if (rstd == nullptr) return NullptrError("rstdOut");

  OPENACLNN_RETURN_IF_ERROR(CheckXGammaDtypes(*x, "x", *gamma, "gamma"));
  if (y->dtype != x->dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "yOut dtype must equal the x dtype %s, got %s",
                       DTypeName(x->dtype), DTypeName(y->dtype));
  }
  if (rstd->dtype != ACL_FLOAT) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "rstdOut dtype must be FLOAT, got %s",
                       DTypeName(rstd->dtype));
  }

  int begin = 0;
  OPENACLNN_RETURN_IF_ERROR(CheckGammaShape(*x, "x", *gamma, "gamma", &begin));
  if (Numel(*gamma) == 0) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "gamma must not be empty, got shape %s",
                       ShapeString(*gamma).c_str());
  }
  if (y->view_dims != x->view_dims) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "yOut shape %s must equal x shape %s",
                       ShapeString(*y).c_str(), ShapeString(*x).c_str());
  }
  OPENACLNN_RETURN_IF_ERROR(CheckRstdShape(*x, "x", begin, *rstd, "rstdOut"));

  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*x, "x"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*gamma, "gamma"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*y, "yOut"));
  OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*rstd, "rstdOut"));

  Problem& p = *problem;
  p.begin = begin;
  p.m = SaturatingProduct(x->view_dims, 0, begin);
  p.n = SaturatingProduct(x->view_dims, begin, x->view_dims.size());
  p.epsilon = epsilon;
  DescribeTensor(*x, &p.x);
  DescribeTensor(*gamma, &p.gamma);
  DescribeTensor(*y, &p.y);
  DescribeTensor(*rstd, &p.rstd);
  return Status::Ok();
}

}  // namespace openaclnn::rms_norm

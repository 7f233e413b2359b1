#pragma once
// aclnnRmsNorm and aclnnRmsNormGrad through the public API for the suites of tests/ops/rms_norm
// and tests/ops/rms_norm_grad, and float64 goldens computed here from the tensors' stored values,
// independently of the library's reference.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "util/device_tensor.h"
#include "util/runtime_fixture.h"

namespace openaclnn::rn_test {

using test::DeviceTensor;
using test::RecentError;
using test::TensorLayout;

// Phase 1 (its status), phase 2 on the null stream with a fresh workspace, synchronise.
inline aclnnStatus RunRmsNorm(const aclTensor* x, const aclTensor* gamma, double eps,
                              const aclTensor* y, const aclTensor* rstd) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  aclnnStatus st = aclnnRmsNormGetWorkspaceSize(x, gamma, eps, y, rstd, &ws, &ex);
  if (st != ACLNN_SUCCESS) return st;
  void* workspace = nullptr;
  if (ws > 0 && aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return -1;
  st = aclnnRmsNorm(workspace, ws, ex, nullptr);
  if (st == ACLNN_SUCCESS) st = aclrtSynchronizeStream(nullptr);
  if (workspace != nullptr) aclrtFree(workspace);
  return st;
}

inline aclnnStatus RunRmsNormGrad(const aclTensor* dy, const aclTensor* x, const aclTensor* rstd,
                                  const aclTensor* gamma, const aclTensor* dx,
                                  const aclTensor* dgamma) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  aclnnStatus st = aclnnRmsNormGradGetWorkspaceSize(dy, x, rstd, gamma, dx, dgamma, &ws, &ex);
  if (st != ACLNN_SUCCESS) return st;
  void* workspace = nullptr;
  if (ws > 0 && aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return -1;
  st = aclnnRmsNormGrad(workspace, ws, ex, nullptr);
  if (st == ACLNN_SUCCESS) st = aclrtSynchronizeStream(nullptr);
  if (workspace != nullptr) aclrtFree(workspace);
  return st;
}

// Forward golden over [m, n] row-major values.
inline void GoldenForward(const std::vector<double>& x, const std::vector<double>& g, int64_t m,
                          int64_t n, double eps, std::vector<double>* y,
                          std::vector<double>* rstd) {
  y->assign(x.size(), 0.0);
  rstd->assign(static_cast<size_t>(m), 0.0);
  for (int64_t r = 0; r < m; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < n; ++i) ss += x[r * n + i] * x[r * n + i];
    const double rs = 1.0 / std::sqrt(ss / static_cast<double>(n) + eps);
    (*rstd)[r] = rs;
    for (int64_t i = 0; i < n; ++i) (*y)[r * n + i] = x[r * n + i] * rs * g[i];
  }
}

// Backward golden: dx = r * (dy*g - x * r^2 * mean(dy*g*x)), dgamma = sum_rows dy * x * r.
inline void GoldenBackward(const std::vector<double>& dy, const std::vector<double>& x,
                           const std::vector<double>& rstd, const std::vector<double>& g, int64_t m,
                           int64_t n, std::vector<double>* dx, std::vector<double>* dgamma) {
  dx->assign(x.size(), 0.0);
  dgamma->assign(static_cast<size_t>(n), 0.0);
  for (int64_t r = 0; r < m; ++r) {
    const double rs = rstd[r];
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += dy[r * n + i] * g[i] * x[r * n + i];
    const double mean = s / static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) {
      (*dx)[r * n + i] = rs * (dy[r * n + i] * g[i] - x[r * n + i] * rs * rs * mean);
      (*dgamma)[i] += dy[r * n + i] * x[r * n + i] * rs;
    }
  }
}

// Tolerance of an output of dtype `dt` whose golden is `ref`, with `scale` the magnitude of the
// terms it is made of (cancellation in dx and dgamma makes |ref| alone too tight).
inline double Tolerance(aclDataType dt, double ref, double scale) {
  const double rel = dt == ACL_FLOAT ? 1e-5 : (dt == ACL_FLOAT16 ? 2e-3 : 1.6e-2);
  return rel * std::fabs(ref) + 1e-5 * scale + 1e-6;
}

inline std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace openaclnn::rn_test

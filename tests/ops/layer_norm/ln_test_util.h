#pragma once
// LayerNorm forward test helpers: the two-phase call of each variant and a dense float64 golden.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "aclnnop/aclnn_layer_norm.h"
#include "ops/layer_norm/fwd_test_util.h"

namespace openaclnn::fwd_test {

enum class Variant { kLayerNorm, kWithImplMode, kFast };

inline const char* VariantName(Variant v) {
  return v == Variant::kLayerNorm      ? "aclnnLayerNorm"
         : v == Variant::kWithImplMode ? "aclnnLayerNormWithImplMode"
                                       : "aclnnFastLayerNorm";
}

// Phase 1 of `variant`, then phase 2 of the same variant, then a stream synchronisation.
inline aclnnStatus RunLayerNorm(Variant variant, const aclTensor* x,
                                const std::vector<int64_t>& norm, const aclTensor* w,
                                const aclTensor* b, double eps, aclTensor* out, aclTensor* mean,
                                aclTensor* rstd, int32_t impl_mode = 0,
                                uint64_t* reported_workspace = nullptr) {
  ScopedStream stream;
  aclIntArray* ns = aclCreateIntArray(norm.data(), norm.size());
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  aclnnStatus st;
  switch (variant) {
    case Variant::kLayerNorm:
      st = aclnnLayerNormGetWorkspaceSize(x, ns, w, b, eps, out, mean, rstd, &ws, &ex);
      break;
    case Variant::kWithImplMode:
      st = aclnnLayerNormWithImplModeGetWorkspaceSize(x, ns, w, b, eps, out, mean, rstd, impl_mode,
                                                      &ws, &ex);
      break;
    default:
      st = aclnnFastLayerNormGetWorkspaceSize(x, ns, w, b, eps, out, mean, rstd, &ws, &ex);
      break;
  }
  if (reported_workspace != nullptr) *reported_workspace = ws;
  if (st == ACLNN_SUCCESS) {
    auto phase2 = variant == Variant::kLayerNorm      ? aclnnLayerNorm
                  : variant == Variant::kWithImplMode ? aclnnLayerNormWithImplMode
                                                      : aclnnFastLayerNorm;
    st = RunPhase2AndSync(phase2, ws, ex, stream.get());
  }
  aclDestroyIntArray(ns);
  return st;
}

// Dense float64 layer norm over rows of n: two-pass mean and biased variance, eps narrowed to
// float as the API does. w and b may be empty (ones and zeros).
inline void GoldenLayerNorm(int64_t m, int64_t n, const std::vector<double>& x,
                            const std::vector<double>& w, const std::vector<double>& b, double eps,
                            std::vector<double>* y, std::vector<double>* mean,
                            std::vector<double>* rstd) {
  y->assign(m * n, 0.0);
  mean->assign(m, 0.0);
  rstd->assign(m, 0.0);
  const double e = static_cast<double>(static_cast<float>(eps));
  for (int64_t r = 0; r < m; ++r) {
    double s = 0;
    for (int64_t i = 0; i < n; ++i) s += x[r * n + i];
    const double mu = s / n;
    double q = 0;
    for (int64_t i = 0; i < n; ++i) q += (x[r * n + i] - mu) * (x[r * n + i] - mu);
    const double rs = 1.0 / std::sqrt(q / n + e);
    for (int64_t i = 0; i < n; ++i) {
      (*y)[r * n + i] =
          (x[r * n + i] - mu) * rs * (w.empty() ? 1.0 : w[i]) + (b.empty() ? 0.0 : b[i]);
    }
    (*mean)[r] = mu;
    (*rstd)[r] = rs;
  }
}

}  // namespace openaclnn::fwd_test

#pragma once
// The float64 reference of LayerNorm backward: plain loops, no SIMD, no threads. It defines the
// operator's numerics for the tests and is the last implementation in the list.

#include <cstdint>
#include <memory>

#include "api/executor.h"
#include "ops/layer_norm_backward/problem.h"

namespace openaclnn::layer_norm_backward {

// Per row m, with xh = (x - mean[m]) * rstd[m] and a = dy * w (w = 1 without weight):
//   dx[m, n] = rstd[m] * (a - mean_n(a) - xh * mean_n(a * xh))
//   gw[n] = sum_m dy * xh,  gb[n] = sum_m dy
// For N == 1 the normalised value is 0 by definition (a row equals its mean), so dx and gw are
// exactly 0 and gb is the column sum of dy. M == 0 gives gw = gb = 0.
// The accessors are callables: dy(m, n), x(m, n), mean(m), rstd(m), w(n) return double;
// set_dx(m, n, v), set_gw(n, v), set_gb(n, v) store. `gw_acc` and `gb_acc` hold N doubles each
// (scratch; only used when the matching mask entry is set).
template <class Dy, class X, class Mean, class Rstd, class W, class SetDx, class SetGw, class SetGb>
void ReferenceLayerNormBackward(int64_t m_rows, int64_t n_cols, const bool mask[3], Dy dy, X x,
                                Mean mean, Rstd rstd, W w, SetDx set_dx, SetGw set_gw, SetGb set_gb,
                                double* gw_acc, double* gb_acc) {
  if (n_cols == 0) return;
  for (int64_t n = 0; n < n_cols; ++n) {
    if (mask[1]) gw_acc[n] = 0;
    if (mask[2]) gb_acc[n] = 0;
  }
  const bool n_is_one = n_cols == 1;
  for (int64_t m = 0; m < m_rows; ++m) {
    const double mu = mean(m);
    const double rs = rstd(m);
    auto xhat = [&](int64_t n) { return n_is_one ? 0.0 : (x(m, n) - mu) * rs; };
    if (mask[0]) {
      double sum_a = 0;
      double sum_axh = 0;
      for (int64_t n = 0; n < n_cols; ++n) {
        const double a = dy(m, n) * w(n);
        sum_a += a;
        sum_axh += a * xhat(n);
      }
      const double c1 = sum_a / static_cast<double>(n_cols);
      const double c2 = sum_axh / static_cast<double>(n_cols);
      for (int64_t n = 0; n < n_cols; ++n) {
        const double a = dy(m, n) * w(n);
        set_dx(m, n, n_is_one ? 0.0 : rs * (a - c1 - xhat(n) * c2));
      }
    }
    for (int64_t n = 0; n < n_cols; ++n) {
      if (mask[1]) gw_acc[n] += dy(m, n) * xhat(n);
      if (mask[2]) gb_acc[n] += dy(m, n);
    }
  }
  for (int64_t n = 0; n < n_cols; ++n) {
    if (mask[1]) set_gw(n, n_is_one ? 0.0 : gw_acc[n]);
    if (mask[2]) set_gb(n, gb_acc[n]);
  }
}

// The reference as an implementation: any strides, float64 arithmetic, outputs rounded to
// float and then to their dtype.
const char* ReferenceDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace);

}  // namespace openaclnn::layer_norm_backward

#pragma once
// ConvTbc forward test helpers: the two-phase call and a dense float64 golden.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "aclnnop/aclnn_convolution.h"
#include "ops/layer_norm/fwd_test_util.h"

namespace openaclnn::fwd_test {

inline aclnnStatus RunConvTbc(const aclTensor* x, const aclTensor* w, const aclTensor* b,
                              int64_t pad, aclTensor* out, int8_t cube_math_type,
                              uint64_t* reported_workspace = nullptr) {
  ScopedStream stream;
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  aclnnStatus st = aclnnConvTbcGetWorkspaceSize(x, w, b, pad, out, cube_math_type, &ws, &ex);
  if (reported_workspace != nullptr) *reported_workspace = ws;
  if (st == ACLNN_SUCCESS) st = RunPhase2AndSync(aclnnConvTbc, ws, ex, stream.get());
  return st;
}

// Dense float64 conv_tbc: x (t_in, batch, c_in), w (taps, c_in, c_out), b (c_out) ->
// y (t_out, batch, c_out), from the values given (already rounded as the emulation requires).
inline std::vector<double> GoldenConvTbc(int64_t t_in, int64_t batch, int64_t c_in, int64_t taps,
                                         int64_t c_out, int64_t pad, const std::vector<double>& x,
                                         const std::vector<double>& w,
                                         const std::vector<double>& b) {
  const int64_t t_out = t_in + 2 * pad + 1 - taps;
  std::vector<double> y(static_cast<size_t>(std::max<int64_t>(t_out, 0) * batch * c_out));
  for (int64_t t = 0; t < t_out; ++t) {
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t co = 0; co < c_out; ++co) {
        double acc = b[co];
        for (int64_t k = 0; k < taps; ++k) {
          const int64_t s = t + k - pad;
          if (s < 0 || s >= t_in) continue;
          for (int64_t ci = 0; ci < c_in; ++ci) {
            acc += x[(s * batch + n) * c_in + ci] * w[(k * c_in + ci) * c_out + co];
          }
        }
        y[(t * batch + n) * c_out + co] = acc;
      }
    }
  }
  return y;
}

}  // namespace openaclnn::fwd_test

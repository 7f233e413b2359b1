#pragma once
// Shared by tests/ops/gelu and tests/ops/glu: the float64 golden formulas (written independently
// of the library's), the per-dtype tolerance and random views.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "api/dtype.h"
#include "util/pointwise_test_util.h"

namespace openaclnn::test::act {

using pw::Layouts;
using pw::PointwiseTest;

inline double GoldGeluErf(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
inline double GoldGeluTanh(double x) {
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}
// Derivatives: the erf form's is Phi(x) + x phi(x); the tanh form's by the chain rule, written
// with 1 / cosh^2 rather than 1 - tanh^2.
inline double GoldGeluGradErf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0)) + x * std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI);
}
inline double GoldGeluGradTanh(double x) {
  const double k = std::sqrt(2.0 / M_PI);
  const double u = k * (x + 0.044715 * x * x * x);
  const double c = std::cosh(u);
  return 0.5 * (1.0 + std::tanh(u)) + 0.5 * x * k * (1.0 + 3 * 0.044715 * x * x) / (c * c);
}
inline double GoldSigmoid(double b) { return 0.5 * (1.0 + std::tanh(0.5 * b)); }

// |got - gold| allowed: one unit of the output type's precision relative to |gold| (fp32: the
// spec's 1e-4 is far looser; we hold 1e-5), plus a small absolute floor for values near zero,
// where fp32's cancellation in 1 - tanh^2 and x * erf products is absolute, not relative.
inline double Tolerance(aclDataType out, double gold) {
  switch (out) {
    case ACL_FLOAT16:
      return std::ldexp(1.0, -10) * std::fabs(gold) + 1e-6;
    case ACL_BF16:
      return std::ldexp(1.0, -7) * std::fabs(gold) + 1e-6;
    case ACL_DOUBLE:
      return 1e-12 * std::fabs(gold) + 1e-14;
    default:
      return 1e-5 * std::fabs(gold) + 2e-6;
  }
}

// The first i where got[i] is not want[i] (a FLOAT path's result) rounded once to t (FLOAT16 or
// BFLOAT16), bit for bit, a NaN wanted standing for any NaN got; -1 when there is none.
// *compared counts the elements compared before it that were not NaN.
inline int64_t FirstNotRoundedOnce(aclDataType t, const std::vector<float>& got,
                                   const std::vector<float>& want, int64_t* compared) {
  *compared = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const float w = t == ACL_BF16 ? RoundThroughBFloat16(want[i]) : RoundThroughHalf(want[i]);
    if (std::isnan(w)) {
      if (!std::isnan(got[i])) return static_cast<int64_t>(i);
      continue;
    }
    uint32_t got_bits = 0, want_bits = 0;
    std::memcpy(&got_bits, &got[i], 4);
    std::memcpy(&want_bits, &w, 4);
    if (got_bits != want_bits) return static_cast<int64_t>(i);
    ++*compared;
  }
  return -1;
}

inline TensorLayout RandomLayout(std::mt19937* rng, int rank) {
  const std::vector<TensorLayout> l = Layouts(rank);
  return l[std::uniform_int_distribution<size_t>(0, l.size() - 1)(*rng)];
}

inline std::vector<int64_t> RandomDims(std::mt19937* rng, int rank, int64_t max_dim) {
  std::vector<int64_t> dims(rank);
  for (auto& d : dims) d = std::uniform_int_distribution<int64_t>(1, max_dim)(*rng);
  return dims;
}

// Row-major index in `in_dims` (right-aligned, size-1 dims broadcast) of the element at
// row-major index `i` of `out_dims`.
inline int64_t BroadcastIndex(const std::vector<int64_t>& out_dims,
                              const std::vector<int64_t>& in_dims, int64_t i) {
  const int lead = static_cast<int>(out_dims.size() - in_dims.size());
  int64_t index = 0, stride = 1;
  for (int d = static_cast<int>(out_dims.size()) - 1; d >= 0; --d) {
    const int64_t coord = i % out_dims[d];
    i /= out_dims[d];
    const int s = d - lead;
    if (s < 0) continue;
    if (in_dims[s] != 1) index += coord * stride;
    stride *= in_dims[s];
  }
  return index;
}

}  // namespace openaclnn::test::act

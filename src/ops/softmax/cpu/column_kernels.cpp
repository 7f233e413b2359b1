#include "ops/softmax/cpu/column_kernels.h"

#include <cmath>

#include "ops/softmax/cpu/row_kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/softmax/cpu/column_kernels.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// After highway.h, as Highway asks for its -inl headers.
#include "kernels/cpu/exp-inl.h"  // NOLINT(build/include_order)

HWY_BEFORE_NAMESPACE();
namespace openaclnn::softmax::cpu::HWY_NAMESPACE {
using simd::HWY_NAMESPACE::ExpOrZero;

// Largest element of each row, NaN for a row holding a NaN.
void PanelMax(const float* a, int64_t n, int64_t w, float* m) {
  float nan[kMaxPanelRows];
  for (int64_t c = 0; c < w; ++c) {
    m[c] = -INFINITY;
    nan[c] = 0.f;
  }
  for (int64_t k = 0; k < n; ++k) {
    const float* row = a + k * w;
    for (int64_t c = 0; c < w; ++c) {
      const float v = row[c];
      nan[c] = v != v ? 1.f : nan[c];
      m[c] = v > m[c] ? v : m[c];
    }
  }
  for (int64_t c = 0; c < w; ++c) m[c] = nan[c] != 0.f ? NAN : m[c];
}

// Sum of e^(a - m) per row in the row kernel's order: within each block of kExpSumBlock elements,
// element k goes to partial (k - block start) mod kExpSumPartials, the partials are added pairwise,
// the block sums in double. With kStore, a becomes e^(a - m).
template <bool kStore>
void PanelExpSum(float* a, int64_t n, int64_t w, const float* m, double* total) {
  for (int64_t c = 0; c < w; ++c) total[c] = 0.0;
  float acc[kExpSumPartials][kMaxPanelRows];
  for (int64_t b = 0; b < n; b += kExpSumBlock) {
    const int64_t end = b + kExpSumBlock < n ? b + kExpSumBlock : n;
    for (auto& partial : acc) {
      for (int64_t c = 0; c < w; ++c) partial[c] = 0.f;
    }
    for (int64_t k = b; k < end; ++k) {
      float* row = a + k * w;
      float* partial = acc[(k - b) % kExpSumPartials];
      for (int64_t c = 0; c < w; ++c) {
        const float e = ExpOrZero(row[c] - m[c]);
        if (kStore) row[c] = e;
        partial[c] += e;
      }
    }
    for (int64_t half = kExpSumPartials / 2; half >= 1; half /= 2) {
      for (int64_t j = 0; j < half; ++j) {
        for (int64_t c = 0; c < w; ++c) acc[j][c] += acc[j + half][c];
      }
    }
    for (int64_t c = 0; c < w; ++c) total[c] += static_cast<double>(acc[0][c]);
  }
}

// Sum of a * b (kProduct) or of a per row in the order of the engine's scalar sums: within each
// block of kScalarSumBlock elements, element k of the whole groups of kScalarSumLanes goes to
// partial (k - block start) mod kScalarSumLanes and the rest of the block to partial 0; the
// partials are added in order into a block sum that starts at 0, the block sums in double.
template <bool kProduct>
void PanelSum(const float* a, const float* b, int64_t n, int64_t w, float* sum) {
  double total[kMaxPanelRows];
  for (int64_t c = 0; c < w; ++c) total[c] = 0.0;
  float lanes[kScalarSumLanes][kMaxPanelRows];
  for (int64_t start = 0; start < n; start += kScalarSumBlock) {
    const int64_t end = start + kScalarSumBlock < n ? start + kScalarSumBlock : n;
    const int64_t whole = start + (end - start) / kScalarSumLanes * kScalarSumLanes;
    for (auto& lane : lanes) {
      for (int64_t c = 0; c < w; ++c) lane[c] = 0.f;
    }
    for (int64_t k = start; k < end; ++k) {
      const float* row = a + k * w;
      const float* other = b + (kProduct ? k * w : 0);
      float* lane = lanes[k < whole ? (k - start) % kScalarSumLanes : 0];
      for (int64_t c = 0; c < w; ++c) lane[c] += kProduct ? row[c] * other[c] : row[c];
    }
    for (int64_t c = 0; c < w; ++c) {
      float block = 0.f;
      for (const auto& lane : lanes) block += lane[c];
      total[c] += static_cast<double>(block);
    }
  }
  for (int64_t c = 0; c < w; ++c) sum[c] = static_cast<float>(total[c]);
}

void RunColumnPanelImpl(Kind kind, int64_t n, int64_t w, float* a, const float* b) {
  float m[kMaxPanelRows], s[kMaxPanelRows];
  double total[kMaxPanelRows];
  switch (kind) {
    case Kind::kSoftmax:
      PanelMax(a, n, w, m);
      PanelExpSum<true>(a, n, w, m, total);
      // e * (1 / sum): a product rounded once.
      for (int64_t c = 0; c < w; ++c) s[c] = 1.0f / static_cast<float>(total[c]);
      for (int64_t k = 0; k < n; ++k) {
        float* row = a + k * w;
        for (int64_t c = 0; c < w; ++c) row[c] = row[c] * s[c];
      }
      break;
    case Kind::kLogSoftmax:
      PanelMax(a, n, w, m);
      PanelExpSum<false>(a, n, w, m, total);
      for (int64_t c = 0; c < w; ++c) s[c] = std::log(static_cast<float>(total[c]));
      // (x - max) - log(sum): two differences, each rounded once.
      for (int64_t k = 0; k < n; ++k) {
        float* row = a + k * w;
        for (int64_t c = 0; c < w; ++c) row[c] = (row[c] - m[c]) - s[c];
      }
      break;
    case Kind::kSoftmaxBackward:
      PanelSum<true>(a, b, n, w, s);
      for (int64_t k = 0; k < n; ++k) {
        float* row = a + k * w;
        const float* y = b + k * w;
        for (int64_t c = 0; c < w; ++c) row[c] = y[c] * (row[c] - s[c]);
      }
      break;
    case Kind::kLogSoftmaxBackward:
      PanelSum<false>(a, nullptr, n, w, s);
      // The product and the difference rounded separately.
      for (int64_t k = 0; k < n; ++k) {
        float* row = a + k * w;
        const float* y = b + k * w;
        for (int64_t c = 0; c < w; ++c) row[c] = row[c] - ExpOrZero(y[c]) * s[c];
      }
      break;
  }
}

}  // namespace openaclnn::softmax::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::softmax::cpu {

HWY_EXPORT(RunColumnPanelImpl);

void RunColumnPanel(const openaclnn::cpu::KernelTarget& target, Kind kind, int64_t n, int64_t w,
                    float* a, const float* b) {
  OPENACLNN_DISPATCH(RunColumnPanelImpl, target)(kind, n, w, a, b);
}

}  // namespace openaclnn::softmax::cpu
#endif  // HWY_ONCE

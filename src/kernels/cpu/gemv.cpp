#include "kernels/cpu/gemv.h"

#include <algorithm>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/gemv.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
// After highway.h, as Highway asks for its -inl headers.
#include "kernels/cpu/convert-inl.h"  // NOLINT(build/include_order)

HWY_BEFORE_NAMESPACE();
namespace openaclnn::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace cv = ::openaclnn::simd::HWY_NAMESPACE;

// The dot form keeps this many partial sums per output, whatever the vector width.
constexpr int64_t kPartials = 16;
// Outputs of the dot form computed together: their matrix rows stream side by side, so their
// cache misses overlap.
constexpr int64_t kDotRows = 4;

template <ElemType E>
HWY_INLINE float LoadOne(const void* p, int64_t i) {
  const hn::CappedTag<float, 1> d1;
  return hn::GetLane(cv::LoadFloatLanes<E>(d1, p, i));
}

// Adds v[i + kCount / 2] into v[i], then v[i + kCount / 4], ..., v[1] into v[0], and returns
// v[0]: the pairwise tree of the numerics, each level one vector add per lane group (every lane
// is its own fp32 add, so the result does not depend on the vector width).
template <int64_t kCount>
HWY_INLINE float PairwiseSum(float* v) {
  if constexpr (kCount == 1) {
    return v[0];
  } else {
    constexpr int64_t kHalf = kCount / 2;
    const hn::CappedTag<float, kHalf> d;
    for (int64_t i = 0; i < kHalf; i += static_cast<int64_t>(hn::Lanes(d))) {
      hn::StoreU(hn::Add(hn::LoadU(d, v + i), hn::LoadU(d, v + i + kHalf)), d, v + i);
    }
    return PairwiseSum<kHalf>(v);
  }
}

HWY_INLINE void Finish(float sum, float alpha, bool accumulate, float* y) {
  const float v = alpha * sum;
  *y = accumulate ? *y + v : v;
}

// Outputs j0 .. j0 + rows - 1 (rows <= kDotRows) of the dot form: row j of B is contiguous.
template <ElemType E>
void DotRows(int64_t rows, int64_t k, const void* x, const void* b, int64_t ldb, int64_t j0,
             float alpha, bool accumulate, float* y) {
  const hn::CappedTag<float, kPartials> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t full = k / kPartials * kPartials;
  const size_t esize = E == ElemType::kFloat32 ? sizeof(float) : sizeof(uint16_t);
  alignas(64) float partial[kDotRows][kPartials] = {};
  const unsigned char* row[kDotRows];
  for (int64_t r = 0; r < kDotRows; ++r) {
    // Rows past `rows` repeat the last one (their sums are dropped).
    const int64_t j = j0 + std::min(r, rows - 1);
    row[r] = static_cast<const unsigned char*>(b) + static_cast<size_t>(j * ldb) * esize;
  }
  // Lanes g .. g + lanes - 1 of every block of 16 products: partial i gets p = i (mod 16).
  for (int64_t g = 0; g < kPartials; g += lanes) {
    auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
    for (int64_t p = g; p < full; p += kPartials) {
      const auto xv = cv::LoadFloatLanes<E>(d, x, p);
      a0 = hn::Add(a0, hn::Mul(xv, cv::LoadFloatLanes<E>(d, row[0], p)));
      a1 = hn::Add(a1, hn::Mul(xv, cv::LoadFloatLanes<E>(d, row[1], p)));
      a2 = hn::Add(a2, hn::Mul(xv, cv::LoadFloatLanes<E>(d, row[2], p)));
      a3 = hn::Add(a3, hn::Mul(xv, cv::LoadFloatLanes<E>(d, row[3], p)));
    }
    hn::Store(a0, d, partial[0] + g);
    hn::Store(a1, d, partial[1] + g);
    hn::Store(a2, d, partial[2] + g);
    hn::Store(a3, d, partial[3] + g);
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t p = full; p < k; ++p) {
      partial[r][p - full] = partial[r][p - full] + LoadOne<E>(x, p) * LoadOne<E>(row[r], p);
    }
    Finish(PairwiseSum<kPartials>(partial[r]), alpha, accumulate, y + j0 + r);
  }
}

// The bfloat16 dot form keeps twice as many partial sums: two adjacent bfloat16 elements load as
// one 32-bit lane, the low one (even p) widening by a shift and the high one (odd p) by a mask,
// so the lanes need no shuffles; partial i takes the products p = i, i + 32, ... in order of p.
constexpr int64_t kBf16Partials = 32;

// DotRows for BFLOAT16 x and B. A product of two BFLOAT16 values is exact in fp32 (8-bit
// significands) unless it leaves fp32's normal range, so a fused multiply-add gives the bits of a
// product followed by an add: one operation on the FP multiply pipes instead of two (the decode
// step 1 x 4096 x 1024 on two Zen 4 threads: 0.082-0.088 -> 0.073-0.075 ms, 2026-12-06). Targets
// without FMA (SSE4, scalar) round the product first, which differs only for products outside the
// normal range.
void DotRowsBf16(int64_t rows, int64_t k, const void* x, const void* b, int64_t ldb, int64_t j0,
                 float alpha, bool accumulate, float* y) {
  const hn::CappedTag<uint32_t, kBf16Partials / 2> du;
  const hn::Repartition<float, decltype(du)> df;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(du));
  const int64_t full = k / kBf16Partials * kBf16Partials;
  alignas(64) float even[kDotRows][kBf16Partials / 2] = {};
  alignas(64) float odd[kDotRows][kBf16Partials / 2] = {};
  const uint16_t* xs = static_cast<const uint16_t*>(x);
  const uint16_t* row[kDotRows];
  for (int64_t r = 0; r < kDotRows; ++r) {
    // Rows past `rows` repeat the last one (their sums are dropped).
    const int64_t j = j0 + std::min(r, rows - 1);
    row[r] = static_cast<const uint16_t*>(b) + j * ldb;
  }
  const auto high = hn::Set(du, 0xFFFF0000u);
  const auto low_of = [&](hn::Vec<decltype(du)> w)
                          HWY_ATTR { return hn::BitCast(df, hn::ShiftLeft<16>(w)); };
  const auto high_of = [&](hn::Vec<decltype(du)> w)
                           HWY_ATTR { return hn::BitCast(df, hn::And(w, high)); };
  const auto pairs = [](const uint16_t* p) { return reinterpret_cast<const uint32_t*>(p); };
  // Lanes g .. g + lanes - 1 hold the pairs (2g, 2g + 1) ... of every block of 32 products.
  for (int64_t g = 0; g < kBf16Partials / 2; g += lanes) {
    auto e0 = hn::Zero(df), e1 = hn::Zero(df), e2 = hn::Zero(df), e3 = hn::Zero(df);
    auto o0 = hn::Zero(df), o1 = hn::Zero(df), o2 = hn::Zero(df), o3 = hn::Zero(df);
    for (int64_t p = 2 * g; p < full; p += kBf16Partials) {
      const auto xw = hn::LoadU(du, pairs(xs + p));
      const auto xe = low_of(xw), xo = high_of(xw);
      const auto w0 = hn::LoadU(du, pairs(row[0] + p));
      const auto w1 = hn::LoadU(du, pairs(row[1] + p));
      const auto w2 = hn::LoadU(du, pairs(row[2] + p));
      const auto w3 = hn::LoadU(du, pairs(row[3] + p));
      e0 = hn::MulAdd(xe, low_of(w0), e0);
      o0 = hn::MulAdd(xo, high_of(w0), o0);
      e1 = hn::MulAdd(xe, low_of(w1), e1);
      o1 = hn::MulAdd(xo, high_of(w1), o1);
      e2 = hn::MulAdd(xe, low_of(w2), e2);
      o2 = hn::MulAdd(xo, high_of(w2), o2);
      e3 = hn::MulAdd(xe, low_of(w3), e3);
      o3 = hn::MulAdd(xo, high_of(w3), o3);
    }
    hn::Store(e0, df, even[0] + g);
    hn::Store(e1, df, even[1] + g);
    hn::Store(e2, df, even[2] + g);
    hn::Store(e3, df, even[3] + g);
    hn::Store(o0, df, odd[0] + g);
    hn::Store(o1, df, odd[1] + g);
    hn::Store(o2, df, odd[2] + g);
    hn::Store(o3, df, odd[3] + g);
  }
  // The pairwise tree over the 32 partials of the numerics (i + 16 into i, ...) keeps even and
  // odd partials apart until its last add: it is the tree over the 16 even ones plus the tree
  // over the 16 odd ones.
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t p = full; p < k; ++p) {
      float& partial = (p - full) % 2 == 0 ? even[r][(p - full) / 2] : odd[r][(p - full) / 2];
      partial =
          partial + LoadOne<ElemType::kBFloat16>(x, p) * LoadOne<ElemType::kBFloat16>(row[r], p);
    }
    const float sum_even = PairwiseSum<kBf16Partials / 2>(even[r]);
    Finish(sum_even + PairwiseSum<kBf16Partials / 2>(odd[r]), alpha, accumulate, y + j0 + r);
  }
}

// Outputs per pass of the axpy form: their fp32 sums stay in a buffer in the L1 cache while the
// rows of B stream through contiguously.
constexpr int64_t kAxpyColumns = 512;

// The axpy form: row p of B is contiguous; every output sums its products in order of p.
template <ElemType E>
void AxpyColumns(int64_t n, int64_t k, const void* x, const void* b, int64_t ldb, float alpha,
                 bool accumulate, float* y) {
  const hn::ScalableTag<float> d;
  const hn::CappedTag<float, 1> d1;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const size_t esize = E == ElemType::kFloat32 ? sizeof(float) : sizeof(uint16_t);
  const auto* base = static_cast<const unsigned char*>(b);
  alignas(64) float sums[kAxpyColumns];
  for (int64_t j0 = 0; j0 < n; j0 += kAxpyColumns) {
    const int64_t width = std::min(kAxpyColumns, n - j0);
    const int64_t vectors = width / lanes * lanes;
    std::fill(sums, sums + width, 0.0f);
    for (int64_t p = 0; p < k; ++p) {
      const float xp = LoadOne<E>(x, p);
      const auto xv = hn::Set(d, xp);
      const unsigned char* row = base + static_cast<size_t>(p * ldb + j0) * esize;
      int64_t j = 0;
      for (; j < vectors; j += lanes) {
        hn::Store(hn::Add(hn::Load(d, sums + j), hn::Mul(xv, cv::LoadFloatLanes<E>(d, row, j))), d,
                  sums + j);
      }
      for (; j < width; ++j) {
        const auto v = hn::Mul(hn::Set(d1, xp), cv::LoadFloatLanes<E>(d1, row, j));
        sums[j] = sums[j] + hn::GetLane(v);
      }
    }
    for (int64_t j = 0; j < width; ++j) {
      const float v = alpha * sums[j];
      y[j0 + j] = accumulate ? y[j0 + j] + v : v;
    }
  }
}

template <ElemType E>
void Gemv(bool trans_b, int64_t n, int64_t k, float alpha, const void* x, const void* b,
          int64_t ldb, bool accumulate, float* y) {
  if (!trans_b) return AxpyColumns<E>(n, k, x, b, ldb, alpha, accumulate, y);
  if (E == ElemType::kBFloat16) {
    for (int64_t j = 0; j < n; j += kDotRows) {
      DotRowsBf16(std::min(kDotRows, n - j), k, x, b, ldb, j, alpha, accumulate, y);
    }
    return;
  }
  for (int64_t j = 0; j < n; j += kDotRows) {
    DotRows<E>(std::min(kDotRows, n - j), k, x, b, ldb, j, alpha, accumulate, y);
  }
}

void GemvImpl(ElemType type, bool trans_b, int64_t n, int64_t k, float alpha, const void* x,
              const void* b, int64_t ldb, bool accumulate, float* y) {
  if (type == ElemType::kBFloat16) {
    return Gemv<ElemType::kBFloat16>(trans_b, n, k, alpha, x, b, ldb, accumulate, y);
  }
  Gemv<ElemType::kFloat32>(trans_b, n, k, alpha, x, b, ldb, accumulate, y);
}

}  // namespace openaclnn::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::cpu {

HWY_EXPORT(GemvImpl);

void GemvRowMajor(const KernelTarget& target, ElemType type, bool trans_b, int64_t n, int64_t k,
                  float alpha, const void* x, const void* b, int64_t ldb, bool accumulate,
                  float* y) {
  if (n <= 0) return;
  OPENACLNN_DISPATCH(GemvImpl, target)(type, trans_b, n, k, alpha, x, b, ldb, accumulate, y);
}

}  // namespace openaclnn::cpu
#endif  // HWY_ONCE

// SIMD row kernel of the fast LayerNorm forward, compiled once per Highway target.
#include "ops/layer_norm/cpu/row_kernels.h"

// Numerics: GCC implements the x86 intrinsics as plain vector arithmetic and, outside ISO C modes,
// contracts a multiply followed by an add into a fused multiply-add on targets that have one, so
// the AVX2 and AVX-512 variants would round differently from the SSE4 and scalar ones. Keep every
// product rounded on its own.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <algorithm>
#include <cmath>
#include <cstring>

#include "api/dtype.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/layer_norm/cpu/row_kernels.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/cpu/convert-inl.h"
#include "kernels/cpu/vec_array-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::layer_norm::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace cv = ::openaclnn::simd::HWY_NAMESPACE;

// The row sums fold kBlock lanes and the transposed kernel holds up to kMaxLanes rows: the full
// vector on fixed-width targets, 4 float lanes on SVE (FixedLanesTag).
using DF = cv::FixedLanesTag<float>;
using DU = hn::RebindToUnsigned<DF>;
using DI = hn::RebindToSigned<DF>;
using DU16 = hn::Rebind<uint16_t, DF>;
using VF = hn::Vec<DF>;
using VU = hn::Vec<DU>;

template <ElemType E>
struct Storage {
  using T = uint16_t;
};
template <>
struct Storage<ElemType::kFloat32> {
  using T = float;
};

// One element to float, exactly as Load converts it.
template <ElemType E>
HWY_INLINE float ScalarToF32(typename Storage<E>::T v) {
  if constexpr (E == ElemType::kFloat32) {
    return v;
  } else if constexpr (E == ElemType::kBFloat16) {
    return BFloat16ToFloat(v);
  } else {
    return HalfToFloat(v);
  }
}

template <ElemType E>
HWY_INLINE VF Load(DF d, const typename Storage<E>::T* p) {
  if constexpr (E == ElemType::kFloat32) {
    return hn::LoadU(d, p);
  } else {
    const VU bits = hn::PromoteTo(DU(), hn::LoadU(DU16(), p));
    if constexpr (E == ElemType::kBFloat16) {
      return hn::BitCast(d, hn::ShiftLeft<16>(bits));
    } else {
      return cv::HalfBitsToF32(d, bits);
    }
  }
}

template <ElemType E>
HWY_INLINE void Store(DF d, VF v, typename Storage<E>::T* p) {
  if constexpr (E == ElemType::kFloat32) {
    hn::StoreU(v, d, p);
  } else {
    const VU bits = E == ElemType::kBFloat16 ? cv::F32ToBf16Bits(d, v) : cv::F32ToHalfBits(d, v);
    hn::StoreU(hn::DemoteTo(DU16(), hn::BitCast(DI(), bits)), DU16(), p);
  }
}

// The canonical pairwise reduction of a kBlock-lane accumulator held in `vectors` vectors.
template <class Acc>
HWY_INLINE float ReduceCanonical(DF d, Acc& v, size_t vectors) {
  for (size_t w = vectors; w > 1; w /= 2) {
    for (size_t i = 0; i < w / 2; ++i) v[i] = hn::Add(v[i], v[i + w / 2]);
  }
  HWY_ALIGN float lanes[kBlock];
  hn::Store(v[0], d, lanes);
  for (size_t w = hn::Lanes(d); w > 1; w /= 2) {
    for (size_t i = 0; i < w / 2; ++i) lanes[i] += lanes[i + w / 2];
  }
  return lanes[0];
}

template <ElemType EIn, ElemType EOut>
void RowsStreaming(const RowArgs& a, const RowPointers& p, int64_t row_begin, int64_t row_end) {
  using TIn = typename Storage<EIn>::T;
  using TOut = typename Storage<EOut>::T;
  const DF d;
  const size_t lanes = hn::Lanes(d);
  const size_t vectors = static_cast<size_t>(kBlock) / lanes;
  const int64_t n = a.n;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  const float fn = static_cast<float>(n);

  HWY_ALIGN TIn sx[kBlock];
  HWY_ALIGN TOut sy[kBlock];
  int64_t y_offsets[kBlock];
  cv::VecArray<DF, kBlock> total, segment;

  const TIn* x_base = static_cast<const TIn*>(p.x);
  TOut* y_base = static_cast<TOut*>(p.y);
  LayoutOdometer<2> lead(a.lead, false, row_begin);
  LayoutOdometer<2> stat(a.stat, false, row_begin);
  for (int64_t r = row_begin; r < row_end; ++r, lead.Next(), stat.Next()) {
    const TIn* x = x_base + lead.offset(0);
    TOut* y = y_base + lead.offset(1);

    // The block of x at column `col` with `valid` elements: in place when possible, otherwise
    // staged (zero padded). `trail` walks the strided layout; out offsets are recorded.
    auto block_x = [&](LayoutOdometer<2>* trail, int64_t col, int64_t valid, bool record_y) {
      if (a.in_contiguous && !record_y) {
        if (valid == kBlock) return x + col;
        std::memcpy(sx, x + col, static_cast<size_t>(valid) * sizeof(TIn));
      } else if (a.in_contiguous) {
        for (int64_t i = 0; i < valid; ++i, trail->Next()) y_offsets[i] = trail->offset(1);
        if (valid == kBlock) return x + col;
        std::memcpy(sx, x + col, static_cast<size_t>(valid) * sizeof(TIn));
      } else {
        for (int64_t i = 0; i < valid; ++i, trail->Next()) {
          sx[i] = x[trail->offset(0)];
          y_offsets[i] = trail->offset(1);
        }
      }
      std::memset(static_cast<void*>(sx + valid), 0,
                  static_cast<size_t>(kBlock - valid) * sizeof(TIn));
      return static_cast<const TIn*>(sx);
    };

    // Pass 1: the mean. Numerics: every pass works on x - x[0] (exact for nearby values), so a
    // row whose mean is large against its spread keeps the precision of the spread: the
    // deviations are (x - x[0]) - (mean - x[0]), never x - mean with a rounded mean.
    const float shift = ScalarToF32<EIn>(x[0]);  // x[0] sits at offset 0 in every layout
    const VF vshift = hn::Set(d, shift);
    for (size_t k = 0; k < vectors; ++k) total[k] = segment[k] = hn::Zero(d);
    {
      LayoutOdometer<2> trail(a.trail, false, 0);
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t col = b * kBlock;
        const int64_t valid = n - col < kBlock ? n - col : kBlock;
        const TIn* bx = block_x(&trail, col, valid, false);
        for (size_t k = 0; k < vectors; ++k) {
          VF dev = hn::Sub(Load<EIn>(d, bx + k * lanes), vshift);
          if (valid < kBlock) {
            const int64_t left = valid - static_cast<int64_t>(k * lanes);
            dev = hn::IfThenElseZero(hn::FirstN(d, left > 0 ? static_cast<size_t>(left) : 0), dev);
          }
          segment[k] = hn::Add(segment[k], dev);
        }
        if ((b + 1) % kSegmentBlocks == 0 || b + 1 == blocks) {
          for (size_t k = 0; k < vectors; ++k) {
            total[k] = hn::Add(total[k], segment[k]);
            segment[k] = hn::Zero(d);
          }
        }
      }
    }
    const float shifted_mean = ReduceCanonical(d, total, vectors) / fn;
    const float mean = shift + shifted_mean;
    const VF vmean = hn::Set(d, shifted_mean);

    // Pass 2: the variance, as the mean of squared deviations (the row is in cache now).
    for (size_t k = 0; k < vectors; ++k) total[k] = segment[k] = hn::Zero(d);
    {
      LayoutOdometer<2> trail(a.trail, false, 0);
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t col = b * kBlock;
        const int64_t valid = n - col < kBlock ? n - col : kBlock;
        const TIn* bx = block_x(&trail, col, valid, false);
        for (size_t k = 0; k < vectors; ++k) {
          VF dev = hn::Sub(hn::Sub(Load<EIn>(d, bx + k * lanes), vshift), vmean);
          if (valid < kBlock) {
            const int64_t left = valid - static_cast<int64_t>(k * lanes);
            dev = hn::IfThenElseZero(hn::FirstN(d, left > 0 ? static_cast<size_t>(left) : 0), dev);
          }
          segment[k] = hn::Add(segment[k], hn::Mul(dev, dev));
        }
        if ((b + 1) % kSegmentBlocks == 0 || b + 1 == blocks) {
          for (size_t k = 0; k < vectors; ++k) {
            total[k] = hn::Add(total[k], segment[k]);
            segment[k] = hn::Zero(d);
          }
        }
      }
    }
    const float var = ReduceCanonical(d, total, vectors) / fn;
    const float rstd = 1.0f / std::sqrt(var + a.eps);
    if (a.want_mean) StoreFromFloat(p.mean, a.mean_type, stat.offset(0), mean);
    if (a.want_rstd) StoreFromFloat(p.rstd, a.rstd_type, stat.offset(1), rstd);
    const VF vrstd = hn::Set(d, rstd);

    // Pass 3: out = (x - mean) * rstd * weight + bias, one rounding to out's dtype.
    const bool walk = !a.in_contiguous || !a.out_contiguous;
    LayoutOdometer<2> trail(a.trail, false, 0);
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t col = b * kBlock;
      const int64_t valid = n - col < kBlock ? n - col : kBlock;
      const TIn* bx = block_x(&trail, col, valid, walk);
      const bool direct = a.out_contiguous && valid == kBlock;
      TOut* by = direct ? y + col : sy;
      for (size_t k = 0; k < vectors; ++k) {
        const size_t at = k * lanes;
        const VF xhat = hn::Mul(hn::Sub(hn::Sub(Load<EIn>(d, bx + at), vshift), vmean), vrstd);
        const VF out = hn::Add(hn::Mul(xhat, hn::Load(d, p.weight + col + at)),
                               hn::Load(d, p.bias + col + at));
        Store<EOut>(d, out, by + at);
      }
      if (direct) continue;
      if (a.out_contiguous) {
        std::memcpy(static_cast<void*>(y + col), sy, static_cast<size_t>(valid) * sizeof(TOut));
      } else {
        for (int64_t i = 0; i < valid; ++i) y[y_offsets[i]] = sy[i];
      }
    }
  }
}

// Rows of up to kStageMax elements: one sweep reads the row, converts it to fp32 minus x[0] into
// an aligned buffer and accumulates the sum; the variance and the output passes then run on the
// buffer. The arithmetic is that of RowsStreaming element for element, so both give the same bits.
template <ElemType EIn, ElemType EOut>
void RowsStaged(const RowArgs& a, const RowPointers& p, int64_t row_begin, int64_t row_end) {
  using TIn = typename Storage<EIn>::T;
  using TOut = typename Storage<EOut>::T;
  const DF d;
  const size_t lanes = hn::Lanes(d);
  const size_t vectors = static_cast<size_t>(kBlock) / lanes;
  const int64_t n = a.n;
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  const float fn = static_cast<float>(n);

  HWY_ALIGN float buf[kStageMax];
  HWY_ALIGN TIn sx[kBlock];
  HWY_ALIGN TOut sy[kBlock];
  cv::VecArray<DF, kBlock> total, segment;

  const TIn* x_base = static_cast<const TIn*>(p.x);
  TOut* y_base = static_cast<TOut*>(p.y);
  LayoutOdometer<2> lead(a.lead, false, row_begin);
  LayoutOdometer<2> stat(a.stat, false, row_begin);
  for (int64_t r = row_begin; r < row_end; ++r, lead.Next(), stat.Next()) {
    const TIn* x = x_base + (a.lead_simple ? r * a.lead_stride[0] : lead.offset(0));
    TOut* y = y_base + (a.lead_simple ? r * a.lead_stride[1] : lead.offset(1));
    const float shift = ScalarToF32<EIn>(x[0]);
    const VF vshift = hn::Set(d, shift);

    // Sweep 1: stage x - x[0] (padded to whole blocks with zeros) and sum it block by block.
    for (size_t k = 0; k < vectors; ++k) total[k] = segment[k] = hn::Zero(d);
    LayoutOdometer<2> gather(a.trail, false, 0);
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t col = b * kBlock;
      const TIn* src = x + col;
      if (!a.in_contiguous || col + kBlock > n) {
        const int64_t valid = n - col < kBlock ? n - col : kBlock;
        if (a.in_contiguous) {
          std::memcpy(static_cast<void*>(sx), x + col, static_cast<size_t>(valid) * sizeof(TIn));
        } else {
          for (int64_t i = 0; i < valid; ++i, gather.Next()) sx[i] = x[gather.offset(0)];
        }
        std::fill(sx + valid, sx + kBlock, x[0]);
        src = sx;
      }
      float* dst = buf + col;
      for (size_t k = 0; k < vectors; ++k) {
        const VF v = hn::Sub(Load<EIn>(d, src + k * lanes), vshift);
        hn::Store(v, d, dst + k * lanes);
        segment[k] = hn::Add(segment[k], v);
      }
      if ((b + 1) % kSegmentBlocks == 0 || b + 1 == blocks) {
        for (size_t k = 0; k < vectors; ++k) {
          total[k] = hn::Add(total[k], segment[k]);
          segment[k] = hn::Zero(d);
        }
      }
    }
    const float shifted_mean = ReduceCanonical(d, total, vectors) / fn;
    const VF vmean = hn::Set(d, shifted_mean);

    // The variance; the padding (x[0] - x[0] = 0) is masked out of the last block.
    for (size_t k = 0; k < vectors; ++k) total[k] = segment[k] = hn::Zero(d);
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t col = b * kBlock;
      const float* bb = buf + col;
      for (size_t k = 0; k < vectors; ++k) {
        VF dev = hn::Sub(hn::Load(d, bb + k * lanes), vmean);
        if (col + kBlock > n) {
          const int64_t left = n - col - static_cast<int64_t>(k * lanes);
          dev = hn::IfThenElseZero(hn::FirstN(d, left > 0 ? static_cast<size_t>(left) : 0), dev);
        }
        segment[k] = hn::Add(segment[k], hn::Mul(dev, dev));
      }
      if ((b + 1) % kSegmentBlocks == 0 || b + 1 == blocks) {
        for (size_t k = 0; k < vectors; ++k) {
          total[k] = hn::Add(total[k], segment[k]);
          segment[k] = hn::Zero(d);
        }
      }
    }
    const float var = ReduceCanonical(d, total, vectors) / fn;
    const float rstd = 1.0f / std::sqrt(var + a.eps);
    const int64_t stat_m = a.stat_simple ? r * a.stat_stride[0] : stat.offset(0);
    const int64_t stat_r = a.stat_simple ? r * a.stat_stride[1] : stat.offset(1);
    if (a.want_mean) StoreFromFloat(p.mean, a.mean_type, stat_m, shift + shifted_mean);
    if (a.want_rstd) StoreFromFloat(p.rstd, a.rstd_type, stat_r, rstd);
    const VF vrstd = hn::Set(d, rstd);

    // The output, one rounding to out's dtype.
    LayoutOdometer<2> trail(a.trail, false, 0);
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t col = b * kBlock;
      const bool direct = a.out_contiguous && col + kBlock <= n;
      TOut* by = direct ? y + col : sy;
      for (size_t k = 0; k < vectors; ++k) {
        const size_t at = k * lanes;
        const VF xhat = hn::Mul(hn::Sub(hn::Load(d, buf + col + at), vmean), vrstd);
        const VF out = hn::Add(hn::Mul(xhat, hn::Load(d, p.weight + col + at)),
                               hn::Load(d, p.bias + col + at));
        Store<EOut>(d, out, by + at);
      }
      if (direct) continue;
      const int64_t valid = n - col < kBlock ? n - col : kBlock;
      if (a.out_contiguous) {
        for (int64_t i = 0; i < valid; ++i) y[col + i] = sy[i];
      } else {
        for (int64_t i = 0; i < valid; ++i, trail.Next()) y[trail.offset(1)] = sy[i];
      }
    }
  }
}

// Short rows (N <= kTransposeMax) with simple row addressing: one row per vector lane, so the
// fixed per-row costs (two lane reductions, a square root) are shared by a vector of rows. Lane c
// of the canonical accumulator becomes a vector over rows, summed over the blocks in order, and
// the canonical tree s[c] += s[c + w] (w = kBlock/2 .. 1) runs across those vectors: the sums,
// and so every output, have exactly the bits RowsStaged computes (the tests compare the two).
template <ElemType EIn, ElemType EOut>
void RowsTransposed(const RowArgs& a, const RowPointers& p, int64_t row_begin, int64_t row_end) {
  using TIn = typename Storage<EIn>::T;
  using TOut = typename Storage<EOut>::T;
  const DF d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const int64_t n = a.n;
  const VF fn = hn::Set(d, static_cast<float>(n));
  const VF zero = hn::Zero(d);
  HWY_ALIGN float tile[kTransposeMax * kMaxLanes];
  HWY_ALIGN TOut out_tile[kTransposeMax * kMaxLanes];
  HWY_ALIGN float stats[2 * kMaxLanes];
  cv::VecArray<DF, kBlock> v;
  const TIn* x_base = static_cast<const TIn*>(p.x);
  TOut* y_base = static_cast<TOut*>(p.y);
  for (int64_t r0 = row_begin; r0 < row_end; r0 += lanes) {
    const int64_t rows = row_end - r0 < lanes ? row_end - r0 : lanes;
    // Transpose in: tile[i * lanes + l] = element i of row r0 + l (the last row repeated).
    for (int64_t l = 0; l < lanes; ++l) {
      const TIn* x = x_base + (r0 + (l < rows ? l : rows - 1)) * a.lead_stride[0];
      for (int64_t i = 0; i < n; ++i) tile[i * lanes + l] = ScalarToF32<EIn>(x[i]);
    }
    const VF shift = hn::Load(d, tile);
    // Lane c of the canonical accumulator: 0 + x[c] + x[c + kBlock] + ... (one segment).
    for (int64_t c = 0; c < kBlock; ++c) {
      VF acc = zero;
      for (int64_t i = c; i < n; i += kBlock) {
        acc = hn::Add(acc, hn::Sub(hn::Load(d, tile + i * lanes), shift));
      }
      v[c] = hn::Add(zero, acc);
    }
    for (int64_t w = kBlock / 2; w >= 1; w /= 2) {
      for (int64_t c = 0; c < w; ++c) v[c] = hn::Add(v[c], v[c + w]);
    }
    const VF mean = hn::Div(v[0], fn);
    const int64_t padded = (n + kBlock - 1) / kBlock * kBlock;
    for (int64_t c = 0; c < kBlock; ++c) {
      VF acc = zero;
      for (int64_t i = c; i < padded; i += kBlock) {
        if (i < n) {
          const VF dev = hn::Sub(hn::Sub(hn::Load(d, tile + i * lanes), shift), mean);
          acc = hn::Add(acc, hn::Mul(dev, dev));
        } else {
          acc = hn::Add(acc, zero);  // the masked tail of the last block, as RowsStaged adds it
        }
      }
      v[c] = hn::Add(zero, acc);
    }
    for (int64_t w = kBlock / 2; w >= 1; w /= 2) {
      for (int64_t c = 0; c < w; ++c) v[c] = hn::Add(v[c], v[c + w]);
    }
    const VF var = hn::Div(v[0], fn);
    const VF rstd = hn::Div(hn::Set(d, 1.0f), hn::Sqrt(hn::Add(var, hn::Set(d, a.eps))));
    hn::Store(hn::Add(shift, mean), d, stats);
    hn::Store(rstd, d, stats + lanes);
    for (int64_t l = 0; l < rows; ++l) {
      if (a.want_mean) StoreFromFloat(p.mean, a.mean_type, (r0 + l) * a.stat_stride[0], stats[l]);
      if (a.want_rstd) {
        StoreFromFloat(p.rstd, a.rstd_type, (r0 + l) * a.stat_stride[1], stats[lanes + l]);
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      const VF xhat = hn::Mul(hn::Sub(hn::Sub(hn::Load(d, tile + i * lanes), shift), mean), rstd);
      const VF out = hn::Add(hn::Mul(xhat, hn::Set(d, p.weight[i])), hn::Set(d, p.bias[i]));
      Store<EOut>(d, out, out_tile + i * lanes);
    }
    // Transpose out.
    for (int64_t l = 0; l < rows; ++l) {
      TOut* y = y_base + (r0 + l) * a.lead_stride[1];
      for (int64_t i = 0; i < n; ++i) y[i] = out_tile[i * lanes + l];
    }
  }
}

template <ElemType EIn, ElemType EOut>
void Rows(const RowArgs& a, const RowPointers& p, int64_t row_begin, int64_t row_end) {
  if (a.n <= kTransposeMax && a.lead_simple && a.stat_simple && a.in_contiguous &&
      a.out_contiguous) {
    RowsTransposed<EIn, EOut>(a, p, row_begin, row_end);
  } else if (a.n <= kStageMax) {
    RowsStaged<EIn, EOut>(a, p, row_begin, row_end);
  } else {
    RowsStreaming<EIn, EOut>(a, p, row_begin, row_end);
  }
}

template <ElemType EIn>
void DispatchOut(const RowArgs& a, const RowPointers& p, int64_t r0, int64_t r1) {
  // The checker admits the three float types only; FLOAT is the default.
  switch (a.out) {
    case ElemType::kFloat16:
      return Rows<EIn, ElemType::kFloat16>(a, p, r0, r1);
    case ElemType::kBFloat16:
      return Rows<EIn, ElemType::kBFloat16>(a, p, r0, r1);
    default:
      return Rows<EIn, ElemType::kFloat32>(a, p, r0, r1);
  }
}

void NormalizeRowsImpl(const RowArgs& a, const RowPointers& p, int64_t r0, int64_t r1) {
  switch (a.in) {
    case ElemType::kFloat16:
      return DispatchOut<ElemType::kFloat16>(a, p, r0, r1);
    case ElemType::kBFloat16:
      return DispatchOut<ElemType::kBFloat16>(a, p, r0, r1);
    default:
      return DispatchOut<ElemType::kFloat32>(a, p, r0, r1);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace openaclnn::layer_norm::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::layer_norm::cpu {

HWY_EXPORT(NormalizeRowsImpl);

void NormalizeRows(const openaclnn::cpu::KernelTarget& target, const RowArgs& args,
                   const RowPointers& ptrs, int64_t row_begin, int64_t row_end) {
  OPENACLNN_DISPATCH(NormalizeRowsImpl, target)(args, ptrs, row_begin, row_end);
}

}  // namespace openaclnn::layer_norm::cpu
#endif  // HWY_ONCE

// Row conversions of the GEMM-based CPU plans, compiled once per Highway target. Each vector kernel
// reproduces the scalar conversions of api/dtype.h bit for bit (tests/ops/conv_tbc_backward/
// rows_test.cpp checks every 16-bit pattern and many float patterns on every target); the tails
// use the scalar functions themselves.
#include "kernels/cpu/gemm_rows.h"

#include <cstring>

#include "api/dtype.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/gemm_rows.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/cpu/convert-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DU = hn::RebindToUnsigned<DF>;
using DI = hn::RebindToSigned<DF>;
using DU16 = hn::Rebind<uint16_t, DF>;
using VF = hn::Vec<DF>;
using VU = hn::Vec<DU>;

namespace cv = ::openaclnn::simd::HWY_NAMESPACE;

// RoundToHf32: ((bits >> 11) + 1) >> 1 << 12 for finite values.
HWY_INLINE VF Hf32(VF f) {
  const DF df;
  const DU du;
  const VU u = hn::BitCast(du, f);
  const VU r =
      hn::ShiftLeft<12>(hn::ShiftRight<1>(hn::Add(hn::ShiftRight<11>(u), hn::Set(du, 1u))));
  const auto finite = hn::Ne(hn::And(u, hn::Set(du, 0x7f800000u)), hn::Set(du, 0x7f800000u));
  return hn::BitCast(df, hn::IfThenElse(finite, r, u));
}

void LoadRow16(const uint16_t* src, int64_t n, bool half, float* dst) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const VF f = half ? cv::HalvesToF32(df, hn::LoadU(DU16(), src + i))
                      : hn::BitCast(df, hn::ShiftLeft<16>(cv::LoadU16AsU32(DF(), src + i)));
    hn::StoreU(f, df, dst + i);
  }
  for (; i < n; ++i) dst[i] = half ? HalfToFloat(src[i]) : BFloat16ToFloat(src[i]);
}

void RoundRowImpl(int mode, float* row, int64_t n) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const VF f = hn::LoadU(df, row + i);
    hn::StoreU(mode == 1 ? Hf32(f) : cv::HalfBitsToF32(DF(), cv::F32ToHalfBits(DF(), f)), df,
               row + i);
  }
  for (; i < n; ++i) row[i] = mode == 1 ? RoundToHf32(row[i]) : RoundThroughHalf(row[i]);
}

void AccumulateRowImpl(const float* row, int64_t n, float* sum) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    hn::StoreU(hn::Add(hn::LoadU(df, sum + i), hn::LoadU(df, row + i)), df, sum + i);
  }
  for (; i < n; ++i) sum[i] += row[i];
}

// Contiguous destination. out: 0 FLOAT, 1 FLOAT16, 2 BF16.
void StoreRowImpl(const float* src, int64_t n, bool via_half, int out, void* dst) {
  const DF df;
  const int64_t N = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    VF f = hn::LoadU(df, src + i);
    if (via_half) {
      const VU h = cv::F32ToHalfBits(DF(), f);
      if (out == 1) {
        cv::StoreU32AsU16(DF(), h, static_cast<uint16_t*>(dst) + i);
        continue;
      }
      f = cv::HalfBitsToF32(DF(), h);
    }
    if (out == 0) {
      hn::StoreU(f, df, static_cast<float*>(dst) + i);
    } else if (out == 1) {
      hn::StoreU(cv::F32ToHalves(df, f), DU16(), static_cast<uint16_t*>(dst) + i);
    } else {
      cv::StoreU32AsU16(DF(), cv::F32ToBf16Bits(DF(), f), static_cast<uint16_t*>(dst) + i);
    }
  }
  const aclDataType dtype = out == 0 ? ACL_FLOAT : out == 1 ? ACL_FLOAT16 : ACL_BF16;
  for (; i < n; ++i) {
    const float v = via_half ? RoundThroughHalf(src[i]) : src[i];
    if (via_half && out == 1) {
      static_cast<uint16_t*>(dst)[i] = FloatToHalf(src[i]);
    } else {
      StoreFromFloat(dst, dtype, i, v);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace openaclnn::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::cpu {

HWY_EXPORT(LoadRow16);
HWY_EXPORT(RoundRowImpl);
HWY_EXPORT(AccumulateRowImpl);
HWY_EXPORT(StoreRowImpl);

InputRounding RoundingFor(int8_t cube_math_type, aclDataType promoted) {
  if (cube_math_type == 2) return InputRounding::kHalf;
  if ((cube_math_type == 1 || cube_math_type == 3) && promoted == ACL_FLOAT) {
    return InputRounding::kHf32;
  }
  return InputRounding::kNone;
}

float ApplyRounding(InputRounding rounding, float value) {
  switch (rounding) {
    case InputRounding::kHf32:
      return RoundToHf32(value);
    case InputRounding::kHalf:
      return RoundThroughHalf(value);
    default:
      return value;
  }
}

void LoadRow(const KernelTarget& target, const void* src, aclDataType dtype, int64_t stride,
             int64_t n, float* dst) {
  if (stride == 1) {
    if (dtype == ACL_FLOAT) {
      std::memcpy(dst, src, sizeof(float) * n);
    } else {
      OPENACLNN_DISPATCH(LoadRow16, target)
      (static_cast<const uint16_t*>(src), n, dtype == ACL_FLOAT16, dst);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = LoadAsFloat(src, dtype, i * stride);
}

void RoundRow(const KernelTarget& target, InputRounding rounding, float* row, int64_t n) {
  if (rounding == InputRounding::kNone) return;
  OPENACLNN_DISPATCH(RoundRowImpl, target)(rounding == InputRounding::kHf32 ? 1 : 2, row, n);
}

void AccumulateRow(const KernelTarget& target, const float* row, int64_t n, float* sum) {
  OPENACLNN_DISPATCH(AccumulateRowImpl, target)(row, n, sum);
}

void StoreRow(const KernelTarget& target, const float* src, int64_t n, bool via_half, void* dst,
              aclDataType dtype, int64_t stride) {
  if (stride == 1) {
    if (dtype == ACL_FLOAT && !via_half) {
      std::memcpy(dst, src, sizeof(float) * n);
      return;
    }
    const int out = dtype == ACL_FLOAT ? 0 : dtype == ACL_FLOAT16 ? 1 : 2;
    OPENACLNN_DISPATCH(StoreRowImpl, target)(src, n, via_half, out, dst);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    if (via_half && dtype == ACL_FLOAT16) {
      static_cast<uint16_t*>(dst)[i * stride] = FloatToHalf(src[i]);
    } else {
      StoreFromFloat(dst, dtype, i * stride, via_half ? RoundThroughHalf(src[i]) : src[i]);
    }
  }
}

}  // namespace openaclnn::cpu
#endif  // HWY_ONCE

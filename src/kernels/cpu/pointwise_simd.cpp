// The SIMD float kernel of the pointwise engine, compiled once per Highway target: unit-stride
// runs of FLOAT, FLOAT16 and BFLOAT16 operands (or an operand broadcast over the run), computed in
// fp32 and rounded once on store. 16-bit operands are widened and narrowed in registers.
#include "kernels/cpu/pointwise_kernels.h"

// Keep every product rounded on its own (no contraction into FMA on targets that have it), so
// every target and the scalar loop give the same bits.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <algorithm>
#include <cstring>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/pointwise_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/cpu/convert-inl.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
namespace cv = ::openaclnn::simd::HWY_NAMESPACE;

using DF = hn::ScalableTag<float>;
using DU16 = hn::Rebind<uint16_t, DF>;
using VF = hn::Vec<DF>;

template <ElemType T>
HWY_INLINE VF LoadF(DF d, const void* p, int64_t i) {
  if constexpr (T == ElemType::kFloat32) {
    return hn::LoadU(d, static_cast<const float*>(p) + i);
  } else if constexpr (T == ElemType::kFloat16) {
    return cv::HalvesToF32(d, hn::LoadU(DU16(), static_cast<const uint16_t*>(p) + i));
  } else {
    return cv::Bf16BitsToF32(d, cv::LoadU16AsU32(d, static_cast<const uint16_t*>(p) + i));
  }
}

template <ElemType T>
HWY_INLINE void StoreF(DF d, VF v, void* p, int64_t i) {
  if constexpr (T == ElemType::kFloat32) {
    hn::StoreU(v, d, static_cast<float*>(p) + i);
  } else if constexpr (T == ElemType::kFloat16) {
    hn::StoreU(cv::F32ToHalves(d, v), DU16(), static_cast<uint16_t*>(p) + i);
  } else {
    cv::StoreU32AsU16(d, cv::F32ToBf16Bits(d, v), static_cast<uint16_t*>(p) + i);
  }
}

template <RunOp kOp>
HWY_INLINE VF ApplyV(VF x, VF y, VF alpha) {
  if constexpr (kOp == RunOp::kAdd) {
    return hn::Add(x, hn::Mul(alpha, y));
  } else if constexpr (kOp == RunOp::kSub) {
    return hn::Sub(x, hn::Mul(alpha, y));
  } else if constexpr (kOp == RunOp::kMul) {
    return hn::Mul(x, y);
  } else {
    return hn::Div(x, y);
  }
}

template <RunOp kOp>
HWY_INLINE float ApplyS(float x, float y, float alpha) {
  if constexpr (kOp == RunOp::kAdd) {
    return x + alpha * y;
  } else if constexpr (kOp == RunOp::kSub) {
    return x - alpha * y;
  } else if constexpr (kOp == RunOp::kMul) {
    return x * y;
  } else {
    return x / y;
  }
}

// The scalar tail: the same conversions (api/dtype.h, bitwise equal to the vector ones) and the
// same fp32 operations.
template <RunOp kOp>
HWY_NOINLINE void Tail(const RunArgs& args, const void* a, float av, const void* b, float bv,
                       void* out, int64_t from, int64_t n) {
  const float alpha = static_cast<float>(args.alpha_f);
  for (int64_t i = from; i < n; ++i) {
    const float x = a != nullptr ? LoadAsF32(args.a, a, i) : av;
    const float y = b != nullptr ? LoadAsF32(args.b, b, i) : bv;
    StoreF32(args.out, out, i, ApplyS<kOp>(x, y, alpha));
  }
}

// One dtype for both inputs and the output: loads, the operation and the store in registers.
template <ElemType T, RunOp kOp>
HWY_NOINLINE void Uniform(const RunArgs& args, const void* a, float av, const void* b, float bv,
                          void* out, int64_t n) {
  const DF d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const VF alpha = hn::Set(d, static_cast<float>(args.alpha_f));
  const VF va_const = hn::Set(d, av), vb_const = hn::Set(d, bv);
  int64_t i = 0;
  if (a != nullptr && b != nullptr) {
    for (; i + lanes <= n; i += lanes) {
      StoreF<T>(d, ApplyV<kOp>(LoadF<T>(d, a, i), LoadF<T>(d, b, i), alpha), out, i);
    }
  } else if (a != nullptr) {
    for (; i + lanes <= n; i += lanes) {
      StoreF<T>(d, ApplyV<kOp>(LoadF<T>(d, a, i), vb_const, alpha), out, i);
    }
  } else if (b != nullptr) {
    for (; i + lanes <= n; i += lanes) {
      StoreF<T>(d, ApplyV<kOp>(va_const, LoadF<T>(d, b, i), alpha), out, i);
    }
  }
  if (i < n) Tail<kOp>(args, a, av, b, bv, out, i, n);
}

// Conversion between two of the float types (Copy, Cast): widen, round once.
template <ElemType A, ElemType O>
HWY_NOINLINE void Convert(const void* a, void* out, int64_t n) {
  const DF d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) StoreF<O>(d, LoadF<A>(d, a, i), out, i);
  for (; i < n; ++i) StoreF32(O, out, i, LoadAsF32(A, a, i));
}

// Mixed dtypes: blocks of each operand widened to fp32 in a stack buffer (L1), the operation on
// the buffers, the result rounded once into the output.
constexpr int64_t kBlock = 512;

template <ElemType T>
HWY_INLINE void ToF32Block(const void* p, int64_t from, float* buf, int64_t count) {
  const DF d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= count; i += lanes) hn::StoreU(LoadF<T>(d, p, from + i), d, buf + i);
  for (; i < count; ++i) buf[i] = LoadAsF32(T, p, from + i);
}

HWY_INLINE void BlockToF32(ElemType t, const void* p, int64_t from, float* buf, int64_t count) {
  switch (t) {
    case ElemType::kFloat16:
      return ToF32Block<ElemType::kFloat16>(p, from, buf, count);
    case ElemType::kBFloat16:
      return ToF32Block<ElemType::kBFloat16>(p, from, buf, count);
    default:
      return ToF32Block<ElemType::kFloat32>(p, from, buf, count);
  }
}

template <RunOp kOp, ElemType O>
HWY_NOINLINE void MixedBlocks(const RunArgs& args, const void* a, float av, const void* b, float bv,
                              void* out, int64_t n) {
  const DF d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const float alpha_s = static_cast<float>(args.alpha_f);
  const VF alpha = hn::Set(d, alpha_s);
  HWY_ALIGN float xa[kBlock];
  HWY_ALIGN float xb[kBlock];
  for (int64_t from = 0; from < n; from += kBlock) {
    const int64_t count = std::min(kBlock, n - from);
    if (a != nullptr) {
      BlockToF32(args.a, a, from, xa, count);
    } else {
      std::fill(xa, xa + count, av);
    }
    if (b != nullptr) {
      BlockToF32(args.b, b, from, xb, count);
    } else {
      std::fill(xb, xb + count, bv);
    }
    int64_t i = 0;
    for (; i + lanes <= count; i += lanes) {
      StoreF<O>(d, ApplyV<kOp>(hn::LoadU(d, xa + i), hn::LoadU(d, xb + i), alpha), out, from + i);
    }
    for (; i < count; ++i) StoreF32(O, out, from + i, ApplyS<kOp>(xa[i], xb[i], alpha_s));
  }
}

template <RunOp kOp>
HWY_INLINE void Binary(const RunArgs& args, const void* a, float av, const void* b, float bv,
                       void* out, int64_t n) {
  const bool a_same = a == nullptr || args.a == args.out;
  const bool b_same = b == nullptr || args.b == args.out;
  if (a_same && b_same) {
    switch (args.out) {
      case ElemType::kFloat16:
        return Uniform<ElemType::kFloat16, kOp>(args, a, av, b, bv, out, n);
      case ElemType::kBFloat16:
        return Uniform<ElemType::kBFloat16, kOp>(args, a, av, b, bv, out, n);
      default:
        return Uniform<ElemType::kFloat32, kOp>(args, a, av, b, bv, out, n);
    }
  }
  switch (args.out) {
    case ElemType::kFloat16:
      return MixedBlocks<kOp, ElemType::kFloat16>(args, a, av, b, bv, out, n);
    case ElemType::kBFloat16:
      return MixedBlocks<kOp, ElemType::kBFloat16>(args, a, av, b, bv, out, n);
    default:
      return MixedBlocks<kOp, ElemType::kFloat32>(args, a, av, b, bv, out, n);
  }
}

template <ElemType A>
HWY_INLINE void ConvertFrom(ElemType o, const void* a, void* out, int64_t n) {
  switch (o) {
    case ElemType::kFloat16:
      return Convert<A, ElemType::kFloat16>(a, out, n);
    case ElemType::kBFloat16:
      return Convert<A, ElemType::kBFloat16>(a, out, n);
    default:
      return Convert<A, ElemType::kFloat32>(a, out, n);
  }
}

void RunContiguousImpl(const RunArgs& args, const void* a, float av, const void* b, float bv,
                       void* out, int64_t n) {
  switch (args.op) {
    case RunOp::kAdd:
      return Binary<RunOp::kAdd>(args, a, av, b, bv, out, n);
    case RunOp::kSub:
      return Binary<RunOp::kSub>(args, a, av, b, bv, out, n);
    case RunOp::kMul:
      return Binary<RunOp::kMul>(args, a, av, b, bv, out, n);
    case RunOp::kDiv:
      return Binary<RunOp::kDiv>(args, a, av, b, bv, out, n);
    case RunOp::kCopy:
      if (a == nullptr) {  // a broadcast source: one value everywhere
        for (int64_t i = 0; i < n; ++i) StoreF32(args.out, out, i, av);
        return;
      }
      switch (args.a) {
        case ElemType::kFloat16:
          return ConvertFrom<ElemType::kFloat16>(args.out, a, out, n);
        case ElemType::kBFloat16:
          return ConvertFrom<ElemType::kBFloat16>(args.out, a, out, n);
        default:
          return ConvertFrom<ElemType::kFloat32>(args.out, a, out, n);
      }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace openaclnn::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace openaclnn::cpu {

HWY_EXPORT(RunContiguousImpl);

namespace {
bool IsF32Family(ElemType t) {
  return t == ElemType::kFloat32 || t == ElemType::kFloat16 || t == ElemType::kBFloat16;
}
}  // namespace

bool SimdHandles(const RunArgs& args) {
  if (args.op == RunOp::kCopy) return IsF32Family(args.a) && IsF32Family(args.out);
  return args.kind == RunKind::kF32 && IsF32Family(args.a) && IsF32Family(args.out) &&
         (args.b_is_scalar || IsF32Family(args.b));
}

void RunContiguousSimd(const KernelTarget& target, const RunArgs& args, const void* a,
                       float a_value, const void* b, float b_value, void* out, int64_t n) {
  if (args.op == RunOp::kCopy && a != nullptr && args.a == args.out) {
    std::memcpy(out, a, static_cast<size_t>(n) * ElemSize(args.a));
    return;
  }
  OPENACLNN_DISPATCH(RunContiguousImpl, target)(args, a, a_value, b, b_value, out, n);
}

}  // namespace openaclnn::cpu
#endif  // HWY_ONCE

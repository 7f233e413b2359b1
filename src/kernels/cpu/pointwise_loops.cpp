// The typed loops of the pointwise engine: strided runs of every dtype, with the element
// conversions of kernels/cpu/element_convert.h.
#include <cstring>

#include "kernels/cpu/element_convert.h"
#include "kernels/cpu/pointwise_kernels.h"

namespace openaclnn::cpu {
namespace {

template <class T>
T Load(const void* base, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(base) + i * static_cast<int64_t>(sizeof(T)),
              sizeof(T));
  return v;
}

}  // namespace

namespace {

// Raw element words that may alias the tensors' own element types.
typedef uint8_t __attribute__((may_alias)) Word8;
typedef uint16_t __attribute__((may_alias)) Word16;
typedef uint32_t __attribute__((may_alias)) Word32;
typedef uint64_t __attribute__((may_alias)) Word64;

// Same-type copies: plain element moves at any strides.
template <class T>
void CopyTyped(const void* a, int64_t sa, void* out, int64_t so, int64_t n) {
  const T* src = static_cast<const T*>(a);
  T* dst = static_cast<T*>(out);
  if (sa == 1 && so == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n) * sizeof(T));
    return;
  }
  for (int64_t k = 0; k < n; ++k) dst[k * so] = src[k * sa];
}

void CopyRun(const RunArgs& args, const void* a, int64_t sa, void* out, int64_t so, int64_t n) {
  if (args.a == args.out) {
    switch (ElemSize(args.a)) {
      case 1:
        return CopyTyped<Word8>(a, sa, out, so, n);
      case 2:
        return CopyTyped<Word16>(a, sa, out, so, n);
      case 4:
        return CopyTyped<Word32>(a, sa, out, so, n);
      default:
        return CopyTyped<Word64>(a, sa, out, so, n);
    }
  }
  for (int64_t k = 0; k < n; ++k) ConvertElement(args.a, a, k * sa, args.out, out, k * so);
}

template <class T>
T Apply(RunOp op, T x, T y, T alpha) {
  switch (op) {
    case RunOp::kAdd:
      return x + alpha * y;
    case RunOp::kSub:
      return x - alpha * y;
    case RunOp::kMul:
      return x * y;
    case RunOp::kDiv:
      return x / y;
    default:
      return x;
  }
}

// Integer arithmetic in uint64 (two's complement wrap, no overflow UB); kDiv never reaches here
// (CANN divides integers in FLOAT).
int64_t ApplyInt(RunOp op, int64_t x, int64_t y, int64_t alpha) {
  const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y),
                 ua = static_cast<uint64_t>(alpha);
  switch (op) {
    case RunOp::kAdd:
      return static_cast<int64_t>(ux + ua * uy);
    case RunOp::kSub:
      return static_cast<int64_t>(ux - ua * uy);
    case RunOp::kMul:
      return static_cast<int64_t>(ux * uy);
    default:
      return x;
  }
}

}  // namespace

void RunStrided(const RunArgs& args, const void* a, int64_t sa, const void* b, int64_t sb,
                void* out, int64_t so, int64_t n) {
  if (args.op == RunOp::kCopy) return CopyRun(args, a, sa, out, so, n);
  switch (args.kind) {
    case RunKind::kF32: {
      const float alpha = static_cast<float>(args.alpha_f);
      const float scalar = static_cast<float>(args.scalar_f);
      for (int64_t k = 0; k < n; ++k) {
        const float x = LoadAsF32(args.a, a, k * sa);
        const float y = args.b_is_scalar ? scalar : LoadAsF32(args.b, b, k * sb);
        StoreF32(args.out, out, k * so, Apply<float>(args.op, x, y, alpha));
      }
      return;
    }
    case RunKind::kF64:
      for (int64_t k = 0; k < n; ++k) {
        const double x = LoadAsDouble(args.a, a, k * sa);
        const double y = args.b_is_scalar ? args.scalar_f : LoadAsDouble(args.b, b, k * sb);
        StoreDouble(args.out, out, k * so, Apply<double>(args.op, x, y, args.alpha_f));
      }
      return;
    case RunKind::kInt:
    case RunKind::kBool:
      for (int64_t k = 0; k < n; ++k) {
        const int64_t x = LoadAsInt64(args.a, a, k * sa);
        const int64_t y = args.b_is_scalar ? args.scalar_i : LoadAsInt64(args.b, b, k * sb);
        StoreInt64(args.out, out, k * so,
                   WrapToType(args.compute, ApplyInt(args.op, x, y, args.alpha_i)));
      }
      return;
  }
}

void FillRun(const void* pattern, size_t size, void* out, int64_t so, int64_t n) {
  switch (size) {
    case 1: {
      const uint8_t v = Load<uint8_t>(pattern, 0);
      uint8_t* p = static_cast<uint8_t*>(out);
      if (so == 1) {
        std::memset(p, v, static_cast<size_t>(n));
      } else {
        for (int64_t k = 0; k < n; ++k) p[k * so] = v;
      }
      return;
    }
    case 2: {
      const uint16_t v = Load<uint16_t>(pattern, 0);
      Word16* p = static_cast<Word16*>(out);
      for (int64_t k = 0; k < n; ++k) p[k * so] = v;
      return;
    }
    case 4: {
      const uint32_t v = Load<uint32_t>(pattern, 0);
      Word32* p = static_cast<Word32*>(out);
      for (int64_t k = 0; k < n; ++k) p[k * so] = v;
      return;
    }
    default: {
      const uint64_t v = Load<uint64_t>(pattern, 0);
      Word64* p = static_cast<Word64*>(out);
      for (int64_t k = 0; k < n; ++k) p[k * so] = v;
      return;
    }
  }
}

}  // namespace openaclnn::cpu

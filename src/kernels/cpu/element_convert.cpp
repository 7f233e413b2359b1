// Element access and conversion between every dtype the kernels address (element_convert.h).
#include "kernels/cpu/element_convert.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "api/dtype.h"

namespace openaclnn::cpu {
namespace {

template <class T>
T Load(const void* base, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const unsigned char*>(base) + i * static_cast<int64_t>(sizeof(T)),
              sizeof(T));
  return v;
}
template <class T>
void Store(void* base, int64_t i, T v) {
  std::memcpy(static_cast<unsigned char*>(base) + i * static_cast<int64_t>(sizeof(T)), &v,
              sizeof(T));
}

// float -> integer type I: NaN 0, truncation, saturation.
template <class I>
I SaturateFloat(double v) {
  if (std::isnan(v)) return 0;
  constexpr double lo = static_cast<double>(std::numeric_limits<I>::min());
  // 2^63 for int64 (the largest double below it is exact in int64).
  constexpr double hi_excl = static_cast<double>(std::numeric_limits<I>::max()) + 1.0;
  if (v <= lo) return std::numeric_limits<I>::min();
  if (v >= hi_excl) return std::numeric_limits<I>::max();
  return static_cast<I>(std::trunc(v));
}

}  // namespace

int64_t WrapToType(ElemType t, int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v);
  switch (t) {
    case ElemType::kInt8:
      return static_cast<int8_t>(static_cast<uint8_t>(u));
    case ElemType::kUInt8:
      return static_cast<uint8_t>(u);
    case ElemType::kInt16:
      return static_cast<int16_t>(static_cast<uint16_t>(u));
    case ElemType::kInt32:
      return static_cast<int32_t>(static_cast<uint32_t>(u));
    case ElemType::kBool:
      return v != 0 ? 1 : 0;
    default:
      return v;
  }
}

double LoadAsDouble(ElemType t, const void* base, int64_t i) {
  switch (t) {
    case ElemType::kFloat32:
      return Load<float>(base, i);
    case ElemType::kFloat16:
      return HalfToFloat(Load<uint16_t>(base, i));
    case ElemType::kBFloat16:
      return BFloat16ToFloat(Load<uint16_t>(base, i));
    case ElemType::kFloat64:
      return Load<double>(base, i);
    default:
      return static_cast<double>(LoadAsInt64(t, base, i));
  }
}

int64_t LoadAsInt64(ElemType t, const void* base, int64_t i) {
  switch (t) {
    case ElemType::kInt8:
      return Load<int8_t>(base, i);
    case ElemType::kUInt8:
      return Load<uint8_t>(base, i);
    case ElemType::kInt16:
      return Load<int16_t>(base, i);
    case ElemType::kInt32:
      return Load<int32_t>(base, i);
    case ElemType::kInt64:
      return Load<int64_t>(base, i);
    case ElemType::kBool:
      return Load<uint8_t>(base, i) != 0 ? 1 : 0;
    default:
      return SaturateFloat<int64_t>(LoadAsDouble(t, base, i));
  }
}

float LoadAsF32(ElemType t, const void* base, int64_t i) {
  switch (t) {
    case ElemType::kFloat32:
      return Load<float>(base, i);
    case ElemType::kFloat16:
      return HalfToFloat(Load<uint16_t>(base, i));
    case ElemType::kBFloat16:
      return BFloat16ToFloat(Load<uint16_t>(base, i));
    case ElemType::kFloat64:
      return NarrowToFloat(Load<double>(base, i));
    default:
      return static_cast<float>(LoadAsInt64(t, base, i));  // int64 -> fp32 rounds once
  }
}

void StoreF32(ElemType t, void* base, int64_t i, float v) {
  switch (t) {
    case ElemType::kFloat32:
      Store<float>(base, i, v);
      return;
    case ElemType::kFloat16:
      Store<uint16_t>(base, i, FloatToHalf(v));
      return;
    case ElemType::kBFloat16:
      Store<uint16_t>(base, i, FloatToBFloat16(v));
      return;
    default:
      StoreDouble(t, base, i, v);
      return;
  }
}

void StoreDouble(ElemType t, void* base, int64_t i, double v) {
  switch (t) {
    case ElemType::kFloat32:
    case ElemType::kFloat16:
    case ElemType::kBFloat16:
      StoreF32(t, base, i, NarrowToFloat(v));
      return;
    case ElemType::kFloat64:
      Store<double>(base, i, v);
      return;
    case ElemType::kInt8:
      Store<int8_t>(base, i, SaturateFloat<int8_t>(v));
      return;
    case ElemType::kUInt8:
      Store<uint8_t>(base, i, SaturateFloat<uint8_t>(v));
      return;
    case ElemType::kInt16:
      Store<int16_t>(base, i, SaturateFloat<int16_t>(v));
      return;
    case ElemType::kInt32:
      Store<int32_t>(base, i, SaturateFloat<int32_t>(v));
      return;
    case ElemType::kInt64:
      Store<int64_t>(base, i, SaturateFloat<int64_t>(v));
      return;
    case ElemType::kBool:
      Store<uint8_t>(base, i, v != 0 || std::isnan(v) ? 1 : 0);
      return;
    default:
      return;
  }
}

void StoreInt64(ElemType t, void* base, int64_t i, int64_t v) {
  switch (t) {
    case ElemType::kFloat32:
    case ElemType::kFloat16:
    case ElemType::kBFloat16:
      StoreF32(t, base, i, static_cast<float>(v));
      return;
    case ElemType::kFloat64:
      Store<double>(base, i, static_cast<double>(v));
      return;
    case ElemType::kInt8:
      Store<int8_t>(base, i, static_cast<int8_t>(WrapToType(t, v)));
      return;
    case ElemType::kUInt8:
      Store<uint8_t>(base, i, static_cast<uint8_t>(WrapToType(t, v)));
      return;
    case ElemType::kInt16:
      Store<int16_t>(base, i, static_cast<int16_t>(WrapToType(t, v)));
      return;
    case ElemType::kInt32:
      Store<int32_t>(base, i, static_cast<int32_t>(WrapToType(t, v)));
      return;
    case ElemType::kInt64:
      Store<int64_t>(base, i, v);
      return;
    case ElemType::kBool:
      Store<uint8_t>(base, i, v != 0 ? 1 : 0);
      return;
    default:
      return;
  }
}

void ConvertElement(ElemType from, const void* in, int64_t i, ElemType to, void* out, int64_t j) {
  if (from == to) {
    const int64_t size = static_cast<int64_t>(ElemSize(from));
    std::memcpy(static_cast<unsigned char*>(out) + j * size,
                static_cast<const unsigned char*>(in) + i * size, size);
  } else if (!IsFloating(from)) {
    StoreInt64(to, out, j, LoadAsInt64(from, in, i));
  } else {
    StoreDouble(to, out, j, LoadAsDouble(from, in, i));
  }
}

int64_t SaturateToInteger(ElemType t, double v) {
  switch (t) {
    case ElemType::kInt8:
      return SaturateFloat<int8_t>(v);
    case ElemType::kUInt8:
      return SaturateFloat<uint8_t>(v);
    case ElemType::kInt16:
      return SaturateFloat<int16_t>(v);
    case ElemType::kInt32:
      return SaturateFloat<int32_t>(v);
    default:
      return SaturateFloat<int64_t>(v);
  }
}

}  // namespace openaclnn::cpu

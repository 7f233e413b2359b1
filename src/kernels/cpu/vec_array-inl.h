// Arrays of Highway vectors that also compile for SVE, and the float tag of the kernels whose
// structure needs a lane count known at compile time.
//
// SVE vectors (and masks) are sizeless types: they cannot be array elements, struct members or
// the operand of sizeof, and their lane count is known only at run time. The kernels that keep
// banks of vectors (accumulators, per-row folds) declare them as VecArray / MaskArray:
// - on every other target these are plain arrays of vectors (VF a[k] exactly as before, so the
//   generated code does not change);
// - on SVE they are aligned arrays of lanes, and a[i] is a reference object that loads the vector
//   when read and stores it when assigned. The additions are the same, in the same order, so the
//   bits are the same; the vectors live in the stack frame instead of registers.
// FixedLanesTag<T> is the full vector on fixed-width targets and 128 bits (which every SVE vector
// holds) on SVE: a kernel that folds lanes with compile-time lane counts sees 4 float lanes there,
// as on NEON, whatever the CPU's vector length.
//
// Highway's per-target include guard: include after "hwy/highway.h", once per target.

#if defined(OPENACLNN_KERNELS_CPU_VEC_ARRAY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef OPENACLNN_KERNELS_CPU_VEC_ARRAY_INL_H_
#undef OPENACLNN_KERNELS_CPU_VEC_ARRAY_INL_H_
#else
#define OPENACLNN_KERNELS_CPU_VEC_ARRAY_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"

// 1 when the target's vectors are sizeless (SVE), else 0.
#undef OPENACLNN_SIZELESS_VECTORS
#if HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || \
    HWY_TARGET == HWY_SVE2_128
#define OPENACLNN_SIZELESS_VECTORS 1
#else
#define OPENACLNN_SIZELESS_VECTORS 0
#endif

HWY_BEFORE_NAMESPACE();
namespace openaclnn::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if OPENACLNN_SIZELESS_VECTORS

template <typename T>
using FixedLanesTag = hn::CappedTag<T, 16 / sizeof(T)>;

// One element of a VecArray: reads load the vector, assignments store it.
template <class D>
class VecRef {
 public:
  using V = hn::Vec<D>;
  explicit VecRef(hn::TFromD<D>* lanes) : lanes_(lanes) {}
  VecRef(const VecRef&) = default;
  HWY_INLINE operator V() const { return hn::Load(D(), lanes_); }  // NOLINT(runtime/explicit)
  HWY_INLINE V Get() const { return hn::Load(D(), lanes_); }
  HWY_INLINE VecRef& operator=(V v) {
    hn::Store(v, D(), lanes_);
    return *this;
  }
  HWY_INLINE VecRef& operator=(const VecRef& other) { return *this = other.Get(); }

 private:
  hn::TFromD<D>* lanes_;
};

// kCount vectors of D, which must have a compile-time lane count (FixedLanesTag).
template <class D, size_t kCount>
class VecArray {
 public:
  HWY_INLINE VecRef<D> operator[](size_t i) { return VecRef<D>(lanes_ + i * kLanes); }

 private:
  static constexpr size_t kLanes = hn::MaxLanes(D());
  HWY_ALIGN hn::TFromD<D> lanes_[kCount * kLanes];
};

// kRows x kCols vectors of D: a[row][col].
template <class D, size_t kRows, size_t kCols>
class VecArray2 {
 public:
  class Row {
   public:
    explicit Row(hn::TFromD<D>* lanes) : lanes_(lanes) {}
    HWY_INLINE VecRef<D> operator[](size_t col) const {
      return VecRef<D>(lanes_ + col * hn::MaxLanes(D()));
    }

   private:
    hn::TFromD<D>* lanes_;
  };
  HWY_INLINE Row operator[](size_t row) { return Row(lanes_ + row * kCols * kLanes); }

 private:
  static constexpr size_t kLanes = hn::MaxLanes(D());
  HWY_ALIGN hn::TFromD<D> lanes_[kRows * kCols * kLanes];
};

// One element of a MaskArray: the mask kept as a vector of all-ones or all-zeros lanes.
template <class D>
class MaskRef {
 public:
  using DU = hn::RebindToUnsigned<D>;
  using M = hn::Mask<D>;
  explicit MaskRef(hn::TFromD<DU>* lanes) : lanes_(lanes) {}
  MaskRef(const MaskRef&) = default;
  HWY_INLINE operator M() const {  // NOLINT(runtime/explicit)
    return hn::RebindMask(D(), hn::MaskFromVec(hn::Load(DU(), lanes_)));
  }
  HWY_INLINE MaskRef& operator=(M m) {
    hn::Store(hn::VecFromMask(DU(), hn::RebindMask(DU(), m)), DU(), lanes_);
    return *this;
  }
  HWY_INLINE MaskRef& operator=(const MaskRef& other) { return *this = static_cast<M>(other); }

 private:
  hn::TFromD<DU>* lanes_;
};

template <class D, size_t kCount>
class MaskArray {
 public:
  HWY_INLINE MaskRef<D> operator[](size_t i) { return MaskRef<D>(lanes_ + i * kLanes); }

 private:
  static constexpr size_t kLanes = hn::MaxLanes(D());
  HWY_ALIGN hn::TFromD<hn::RebindToUnsigned<D>> lanes_[kCount * kLanes];
};

#else  // fixed-size vectors

template <typename T>
using FixedLanesTag = hn::ScalableTag<T>;

template <class D, size_t kCount>
using VecArray = hn::Vec<D>[kCount];

template <class D, size_t kRows, size_t kCols>
using VecArray2 = hn::Vec<D>[kRows][kCols];

template <class D, size_t kCount>
using MaskArray = hn::Mask<D>[kCount];

#endif  // OPENACLNN_SIZELESS_VECTORS

}  // namespace HWY_NAMESPACE
}  // namespace openaclnn::simd
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard

// CPU kernels of the dropout operators. The work is cut into tasks of a fixed number of mask
// bytes, from the problem alone; every bit is a function of (seed, offset, element index), so the
// mask and DoMask's output are bitwise the same for any thread count.
#include <algorithm>
#include <cstring>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "api/dtype.h"
#include "api/elem_type.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/float_runs.h"
#include "ops/dropout/cpu/keep_bits.h"
#include "ops/dropout/dropout.h"

namespace openaclnn::dropout::cpu {
namespace {

using openaclnn::cpu::KernelTarget;
using openaclnn::cpu::ParallelFor;
using openaclnn::cpu::Philox4x32x10;
using openaclnn::cpu::PhiloxCounter;
using openaclnn::cpu::PhiloxKey;

// 4096 mask bytes (32768 elements, 8192 Philox blocks) per GenMask task.
constexpr int64_t kGenMaskBytesPerTask = 4096;
// 8192 elements (1024 mask bytes) per DoMask task.
constexpr int64_t kDoMaskElementsPerTask = 8192;

// The mask byte j: elements 8j .. 8j + 7 from Philox blocks 2j and 2j + 1.
inline uint8_t MaskByte(int64_t j, int64_t offset, const PhiloxKey& key, uint64_t threshold) {
  const PhiloxCounter lo = Philox4x32x10(CounterOf(static_cast<uint64_t>(2 * j), offset), key);
  const PhiloxCounter hi = Philox4x32x10(CounterOf(static_cast<uint64_t>(2 * j + 1), offset), key);
  unsigned byte = 0;
  for (int k = 0; k < 4; ++k) {
    byte |= static_cast<unsigned>(lo[k] < threshold) << k;
    byte |= static_cast<unsigned>(hi[k] < threshold) << (k + 4);
  }
  return static_cast<uint8_t>(byte);
}

#if defined(__x86_64__) || defined(__i386__)
// Four mask bytes j .. j + 3 (eight Philox blocks 2j .. 2j + 7, one per 32-bit lane) with AVX2;
// 2j must not wrap the low counter word inside the vector (2j is a multiple of 8 here). The same
// integer operations as Philox4x32x10, so the same bits.
__attribute__((target("avx2"))) void MaskBytes4Avx2(int64_t j, int64_t offset, const PhiloxKey& key,
                                                    uint32_t threshold, uint8_t* dst) {
  const uint64_t b = static_cast<uint64_t>(2 * j);
  const uint64_t o = static_cast<uint64_t>(offset);
  __m256i c0 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(b))),
                                _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  __m256i c1 = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(b >> 32)));
  __m256i c2 = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(o)));
  __m256i c3 = _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(o >> 32)));
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(0xD2511F53u));
  const __m256i m1 = _mm256_set1_epi32(static_cast<int>(0xCD9E8D57u));
  uint32_t k0 = key[0], k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    // 32x32 -> 64-bit products of the even lanes, then of the odd lanes shifted down.
    const __m256i e0 = _mm256_mul_epu32(c0, m0),
                  o0 = _mm256_mul_epu32(_mm256_srli_epi64(c0, 32), m0);
    const __m256i e1 = _mm256_mul_epu32(c2, m1),
                  o1 = _mm256_mul_epu32(_mm256_srli_epi64(c2, 32), m1);
    const __m256i lo0 = _mm256_blend_epi32(e0, _mm256_slli_epi64(o0, 32), 0xAA);
    const __m256i hi0 = _mm256_blend_epi32(_mm256_srli_epi64(e0, 32), o0, 0xAA);
    const __m256i lo1 = _mm256_blend_epi32(e1, _mm256_slli_epi64(o1, 32), 0xAA);
    const __m256i hi1 = _mm256_blend_epi32(_mm256_srli_epi64(e1, 32), o1, 0xAA);
    const __m256i n0 =
        _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32(static_cast<int>(k0)));
    const __m256i n2 =
        _mm256_xor_si256(_mm256_xor_si256(hi0, c3), _mm256_set1_epi32(static_cast<int>(k1)));
    c0 = n0;
    c1 = lo1;
    c2 = n2;
    c3 = lo0;
  }
  // Unsigned word < threshold, as a signed compare with both sides' sign bits flipped.
  const __m256i flip = _mm256_set1_epi32(static_cast<int>(0x80000000u));
  const __m256i limit = _mm256_xor_si256(_mm256_set1_epi32(static_cast<int>(threshold)), flip);
  unsigned kept[4];
  const __m256i words[4] = {c0, c1, c2, c3};
  for (int k = 0; k < 4; ++k) {
    const __m256i lt = _mm256_cmpgt_epi32(limit, _mm256_xor_si256(words[k], flip));
    kept[k] = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(lt)));
  }
  for (int q = 0; q < 4; ++q) {
    unsigned byte = 0;
    for (int k = 0; k < 4; ++k) {
      byte |= ((kept[k] >> (2 * q)) & 1u) << k;
      byte |= ((kept[k] >> (2 * q + 1)) & 1u) << (k + 4);
    }
    dst[q] = static_cast<uint8_t>(byte);
  }
}
#endif

// True when the plan's target may run the AVX2 Philox (every x86 target from AVX2 up).
bool UsesAvx2Philox(const KernelTarget& target) {
#if defined(__x86_64__) || defined(__i386__)
  return std::strncmp(target.name, "avx", 3) == 0;
#else
  return false;
#endif
}

class GenMaskPlan : public Plan {
 public:
  GenMaskPlan(const GenMaskProblem& p, KernelTarget target)
      : p_(p), target_(target), avx2_(UsesAvx2Philox(target)) {}
  const char* target_name() const override { return avx2_ ? "avx2" : "scalar"; }

  Status Run(const Bindings& b, void* /*workspace*/) const override {
    auto* out = static_cast<uint8_t*>(p_.out.First(b.outputs[0]));
    const uint64_t threshold = KeepThreshold(p_.prob);
    int64_t seed = 0, offset = 0;
    ResolveSeedOffset(p_, b, &seed, &offset);
    const PhiloxKey key = KeyOf(seed);
    const bool contiguous = p_.out.IsContiguous();
    const int64_t tasks = (p_.mask_bytes + kGenMaskBytesPerTask - 1) / kGenMaskBytesPerTask;
    ParallelFor(tasks, [&](int64_t t) {
      const int64_t begin = t * kGenMaskBytesPerTask;
      const int64_t end = std::min(p_.mask_bytes, begin + kGenMaskBytesPerTask);
      if (threshold == 0 || threshold == (uint64_t{1} << 32)) {
        // prob 1 or 0: every bit is the same, as CANN fills it.
        const uint8_t fill = threshold == 0 ? 0x00 : 0xFF;
        for (int64_t j = begin; j < end; ++j) out[contiguous ? j : ElementOffset(p_.out, j)] = fill;
        return;
      }
      int64_t j = begin;
#if defined(__x86_64__) || defined(__i386__)
      if (avx2_) {
        // begin is a multiple of 4096: blocks 2j start at multiples of 8.
        uint8_t bytes[4];
        for (; j + 4 <= end; j += 4) {
          MaskBytes4Avx2(j, offset, key, static_cast<uint32_t>(threshold), bytes);
          for (int q = 0; q < 4; ++q) {
            out[contiguous ? j + q : ElementOffset(p_.out, j + q)] = bytes[q];
          }
        }
      }
#endif
      for (; j < end; ++j) {
        out[contiguous ? j : ElementOffset(p_.out, j)] = MaskByte(j, offset, key, threshold);
      }
    });
    return Status::Ok();
  }

 private:
  const GenMaskProblem p_;
  const KernelTarget target_;
  const bool avx2_;
};

class DoMaskPlan : public Plan {
 public:
  DoMaskPlan(const DoMaskProblem& p, KernelTarget target) : p_(p), target_(target) {}

  Status Run(const Bindings& b, void* /*workspace*/) const override {
    const void* self = p_.self.First(static_cast<const void*>(b.inputs[kSelf]));
    const auto* mask =
        static_cast<const uint8_t*>(p_.mask.First(static_cast<const void*>(b.inputs[kMask])));
    void* out = p_.out.First(b.outputs[0]);
    const bool drop_all = p_.prob >= 1.0;
    const float scale = drop_all ? 0.0f : static_cast<float>(1.0 / (1.0 - p_.prob));
    const bool self_contiguous = p_.self.IsContiguous();
    const bool out_contiguous = p_.out.IsContiguous();
    const bool mask_contiguous = p_.mask.IsContiguous();
    const ElemType self_type = ToElemType(p_.self.dtype);
    const ElemType out_type = ToElemType(p_.out.dtype);
    const size_t self_size = DTypeSize(p_.self.dtype);
    const size_t out_size = DTypeSize(p_.out.dtype);
    const int64_t tasks = (p_.numel + kDoMaskElementsPerTask - 1) / kDoMaskElementsPerTask;
    ParallelFor(tasks, [&](int64_t t) {
      const int64_t begin = t * kDoMaskElementsPerTask;
      const int64_t n = std::min(p_.numel - begin, kDoMaskElementsPerTask);
      float buf[kDoMaskElementsPerTask];
      if (self_contiguous) {
        LoadFloatRun(target_, self_type, static_cast<const char*>(self) + begin * self_size, n,
                     buf);
      } else {
        for (int64_t i = 0; i < n; ++i)
          buf[i] = LoadAsFloat(self, p_.self.dtype, ElementOffset(p_.self, begin + i));
      }
      if (mask_contiguous && !drop_all) {
        // Tasks start on a mask byte (kDoMaskElementsPerTask is a multiple of 8).
        ApplyKeepBits(target_, mask + begin / 8, scale, buf, n);
      } else {
        ApplyKeepBitsScalar(mask, mask_contiguous, drop_all, begin, n, scale, buf);
      }
      if (out_contiguous) {
        StoreFloatRun(target_, out_type, buf, n, static_cast<char*>(out) + begin * out_size);
      } else {
        for (int64_t i = 0; i < n; ++i)
          StoreFromFloat(out, p_.out.dtype, ElementOffset(p_.out, begin + i), buf[i]);
      }
    });
    return Status::Ok();
  }
  const char* target_name() const override { return target_.name; }

 private:
  // The mask read element by element: a strided mask, or every element dropped (prob 1).
  void ApplyKeepBitsScalar(const uint8_t* mask, bool mask_contiguous, bool drop_all, int64_t begin,
                           int64_t n, float scale, float* buf) const {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t j = (begin + i) / 8;
      const uint32_t byte = drop_all ? 0u : mask[mask_contiguous ? j : ElementOffset(p_.mask, j)];
      buf[i] = KeepOrZero(buf[i], scale, byte >> ((begin + i) % 8));
    }
  }

  const DoMaskProblem p_;
  const KernelTarget target_;
};

}  // namespace

const char* GenMaskFastDeclines(const GenMaskProblem&) { return nullptr; }
std::unique_ptr<Plan> MakeGenMaskFastPlan(const GenMaskProblem& problem, WorkspaceBooking*) {
  return std::make_unique<GenMaskPlan>(problem, openaclnn::cpu::PlanningTarget());
}

const char* DoMaskFastDeclines(const DoMaskProblem&) { return nullptr; }
std::unique_ptr<Plan> MakeDoMaskFastPlan(const DoMaskProblem& problem, WorkspaceBooking*) {
  return std::make_unique<DoMaskPlan>(problem, openaclnn::cpu::PlanningTarget());
}

}  // namespace openaclnn::dropout::cpu

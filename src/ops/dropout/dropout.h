#pragma once
// aclnnDropoutGenMask(V2) and aclnnDropoutDoMask: the normalised problems, the mask rule both
// share, their checkers, float64 references and CPU kernels.
//
// The mask rule (docs/ops/dropout.md): a problem of n elements has a mask of align(n, 128) / 8
// bytes; bit i (byte i / 8, bit i % 8 counted from the least significant) is 1 when element i is
// kept. Element i takes word i % 4 of the Philox4x32-10 block whose counter is
// {b, b >> 32, offset, offset >> 32} with b = i / 4, under the key {seed, seed >> 32}; it is kept
// when that word is below KeepThreshold(prob). The padding bits after element n - 1 follow the
// same rule, so a mask is a prefix of the mask of any larger problem with the same seed and offset.

#include <cstdint>
#include <memory>
#include <string>

#include "aclnn/acl_meta.h"
#include "api/executor.h"
#include "api/status.h"
#include "api/tensor_desc.h"
#include "kernels/cpu/philox.h"

namespace openaclnn::dropout {

// Mask bits per Philox block and elements per mask alignment unit.
constexpr int64_t kElementsPerBlock = 4;
constexpr int64_t kMaskAlignBits = 128;

// Bytes of the mask of `numel` elements: align(numel, 128) / 8.
inline int64_t MaskBytes(int64_t numel) {
  return (numel + kMaskAlignBits - 1) / kMaskAlignBits * (kMaskAlignBits / 8);
}

// Element i is kept when its 32-bit word is below this: floor((1 - prob) * 2^32), 2^32 for
// prob == 0 (every word is below it), 0 for prob == 1.
inline uint64_t KeepThreshold(double prob) {
  const double keep = 1.0 - prob;
  if (keep >= 1.0) return uint64_t{1} << 32;
  if (keep <= 0.0) return 0;
  return static_cast<uint64_t>(keep * 4294967296.0);
}

inline openaclnn::cpu::PhiloxKey KeyOf(int64_t seed) {
  const uint64_t s = static_cast<uint64_t>(seed);
  return {static_cast<uint32_t>(s), static_cast<uint32_t>(s >> 32)};
}
inline openaclnn::cpu::PhiloxCounter CounterOf(uint64_t block, int64_t offset) {
  const uint64_t o = static_cast<uint64_t>(offset);
  return {static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
          static_cast<uint32_t>(o), static_cast<uint32_t>(o >> 32)};
}

// aclnnDropoutGenMask / aclnnDropoutGenMaskV2.
struct GenMaskProblem {
  int64_t numel = 0;       // elements the mask covers (product of `shape`)
  int64_t mask_bytes = 0;  // MaskBytes(numel) == numel of out
  double prob = 0;         // after rounding to probDataType
  int64_t seed = 0;
  int64_t offset = 0;
  aclDataType prob_dtype = ACL_FLOAT;
  TensorDesc out;
  // aclnnDropoutGenMaskV2Tensor: the seed is the INT64 element of input 0 and the offset is
  // `offset` plus the INT64 element of input 1, both read at launch.
  bool seed_offset_tensors = false;
  TensorDesc seed_tensor, offset_tensor;
  std::string Describe() const;
};

// The seed and offset a launch draws with (from the tensors for V2Tensor).
void ResolveSeedOffset(const GenMaskProblem& p, const Bindings& b, int64_t* seed, int64_t* offset);

// seed_tensor / offset_tensor: V2Tensor's tensors (then `seed` is unused), or both null.
Status CheckGenMask(const aclIntArray* shape, double prob, int64_t seed, int64_t offset,
                    aclDataType prob_dtype, const aclTensor* out, const aclTensor* seed_tensor,
                    const aclTensor* offset_tensor, bool tensor_form, GenMaskProblem* problem);

const char* GenMaskReferenceDeclines(const GenMaskProblem& problem);
std::unique_ptr<Plan> MakeGenMaskReferencePlan(const GenMaskProblem& problem,
                                               WorkspaceBooking* workspace);

// aclnnDropoutDoMask: out = mask bit ? self / (1 - prob) : 0.
enum DoMaskInput : int { kSelf = 0, kMask = 1 };
struct DoMaskProblem {
  int64_t numel = 0;
  double prob = 0;
  TensorDesc self;
  TensorDesc mask;  // UINT8, at least MaskBytes(numel) elements; byte j is its row-major element j
  TensorDesc out;
  std::string Describe() const;
};

// *nothing_to_do: self is empty (CANN returns success without a launch and without further checks).
Status CheckDoMask(const aclTensor* self, const aclTensor* mask, double prob, const aclTensor* out,
                   DoMaskProblem* problem, bool* nothing_to_do);

const char* DoMaskReferenceDeclines(const DoMaskProblem& problem);
std::unique_ptr<Plan> MakeDoMaskReferencePlan(const DoMaskProblem& problem,
                                              WorkspaceBooking* workspace);

namespace cpu {
const char* GenMaskFastDeclines(const GenMaskProblem& problem);
std::unique_ptr<Plan> MakeGenMaskFastPlan(const GenMaskProblem& problem,
                                          WorkspaceBooking* workspace);
const char* DoMaskFastDeclines(const DoMaskProblem& problem);
std::unique_ptr<Plan> MakeDoMaskFastPlan(const DoMaskProblem& problem, WorkspaceBooking* workspace);
}  // namespace cpu

}  // namespace openaclnn::dropout

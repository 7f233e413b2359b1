// The float64 references of the dropout operators: plain loops over the strided views, no SIMD,
// no threads. GenMask draws every bit on its own from the Philox block that holds it; DoMask
// computes self / (1 - prob) in double for kept elements and rounds it to float, then to out's
// dtype.
#include "api/dtype.h"
#include "ops/dropout/dropout.h"

namespace openaclnn::dropout {
namespace {

class GenMaskReferencePlan : public Plan {
 public:
  explicit GenMaskReferencePlan(const GenMaskProblem& p) : p_(p) {}

  Status Run(const Bindings& b, void* /*workspace*/) const override {
    auto* out = static_cast<uint8_t*>(p_.out.First(b.outputs[0]));
    const uint64_t threshold = KeepThreshold(p_.prob);
    int64_t seed = 0, offset = 0;
    ResolveSeedOffset(p_, b, &seed, &offset);
    const openaclnn::cpu::PhiloxKey key = KeyOf(seed);
    for (int64_t j = 0; j < p_.mask_bytes; ++j) {
      unsigned byte = 0;
      for (int bit = 0; bit < 8; ++bit) {
        const int64_t i = 8 * j + bit;
        const openaclnn::cpu::PhiloxCounter r = openaclnn::cpu::Philox4x32x10(
            CounterOf(static_cast<uint64_t>(i / kElementsPerBlock), offset), key);
        if (r[i % kElementsPerBlock] < threshold) byte |= 1u << bit;
      }
      out[ElementOffset(p_.out, j)] = static_cast<uint8_t>(byte);
    }
    return Status::Ok();
  }

 private:
  const GenMaskProblem p_;
};

class DoMaskReferencePlan : public Plan {
 public:
  explicit DoMaskReferencePlan(const DoMaskProblem& p) : p_(p) {}

  Status Run(const Bindings& b, void* /*workspace*/) const override {
    const void* self = p_.self.First(static_cast<const void*>(b.inputs[kSelf]));
    const auto* mask =
        static_cast<const uint8_t*>(p_.mask.First(static_cast<const void*>(b.inputs[kMask])));
    void* out = p_.out.First(b.outputs[0]);
    for (int64_t i = 0; i < p_.numel; ++i) {
      const unsigned byte = mask[ElementOffset(p_.mask, i / 8)];
      const bool kept = p_.prob < 1.0 && ((byte >> (i % 8)) & 1u) != 0;
      double v = 0.0;
      if (kept) v = LoadAsFloat(self, p_.self.dtype, ElementOffset(p_.self, i)) / (1.0 - p_.prob);
      StoreFromFloat(out, p_.out.dtype, ElementOffset(p_.out, i), static_cast<float>(v));
    }
    return Status::Ok();
  }

 private:
  const DoMaskProblem p_;
};

}  // namespace

const char* GenMaskReferenceDeclines(const GenMaskProblem&) { return nullptr; }
std::unique_ptr<Plan> MakeGenMaskReferencePlan(const GenMaskProblem& problem, WorkspaceBooking*) {
  return std::make_unique<GenMaskReferencePlan>(problem);
}
const char* DoMaskReferenceDeclines(const DoMaskProblem&) { return nullptr; }
std::unique_ptr<Plan> MakeDoMaskReferencePlan(const DoMaskProblem& problem, WorkspaceBooking*) {
  return std::make_unique<DoMaskReferencePlan>(problem);
}

}  // namespace openaclnn::dropout

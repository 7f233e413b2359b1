// CPU kernels of the dropout operators. The work is cut into tasks of a fixed number of mask
// bytes, from the problem alone; every bit is a function of (seed, offset, element index), so the
// mask and DoMask's output are bitwise the same for any thread count.
#include <algorithm>
#include <vector>

#include "api/dtype.h"
#include "api/elem_type.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/float_runs.h"
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

class GenMaskPlan : public Plan {
 public:
  explicit GenMaskPlan(const GenMaskProblem& p) : p_(p) {}

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
      for (int64_t j = begin; j < end; ++j) {
        out[contiguous ? j : ElementOffset(p_.out, j)] = MaskByte(j, offset, key, threshold);
      }
    });
    return Status::Ok();
  }

 private:
  const GenMaskProblem p_;
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
      for (int64_t i = 0; i < n; i += 8) {
        const int64_t j = (begin + i) / 8;
        const unsigned byte = drop_all ? 0u : mask[mask_contiguous ? j : ElementOffset(p_.mask, j)];
        const int64_t m = std::min<int64_t>(8, n - i);
        for (int64_t k = 0; k < m; ++k) {
          buf[i + k] = ((byte >> k) & 1u) != 0 ? buf[i + k] * scale : 0.0f;
        }
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
  const DoMaskProblem p_;
  const KernelTarget target_;
};

}  // namespace

const char* GenMaskFastDeclines(const GenMaskProblem&) { return nullptr; }
std::unique_ptr<Plan> MakeGenMaskFastPlan(const GenMaskProblem& problem, WorkspaceBooking*) {
  return std::make_unique<GenMaskPlan>(problem);
}

const char* DoMaskFastDeclines(const DoMaskProblem&) { return nullptr; }
std::unique_ptr<Plan> MakeDoMaskFastPlan(const DoMaskProblem& problem, WorkspaceBooking*) {
  return std::make_unique<DoMaskPlan>(problem, openaclnn::cpu::PlanningTarget());
}

}  // namespace openaclnn::dropout::cpu

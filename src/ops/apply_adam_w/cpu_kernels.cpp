// The CPU kernel of aclnnApplyAdamW and aclnnApplyAdamWV2: blocks of a fixed number of elements
// (from the problem alone, so results are bitwise the same for any thread count). Operands that are
// all contiguous with one dtype are updated in place by the Highway update, which widens and rounds
// inside its vectors; otherwise each block's operands go through fp32 buffers (FLOAT contiguous
// ones are used where they lie). The update (adam_w_block.h) gives the same bits on every SIMD
// target and reads each vector of lanes of every operand before writing any, so a grad that is the
// same view as one of the updated tensors reads its old values.
#include <algorithm>
#include <cmath>

#include "api/dtype.h"
#include "api/elem_type.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/float_runs.h"
#include "ops/apply_adam_w/adam_w_block.h"
#include "ops/apply_adam_w/apply_adam_w.h"

namespace openaclnn::apply_adam_w::cpu {
namespace {

using openaclnn::cpu::KernelTarget;

// Elements of one pass of the buffered path (fp32 buffers on the stack).
constexpr int64_t kBlock = 2048;
// A pool task updates up to this many blocks in a row, and large tensors are cut in at least
// kMinTasks tasks: on the 2-CPU Intel Xeon build machine, tasks of one block left the FLOAT update
// 10-15 % slower than tasks of 64 blocks (16M elements, 2 threads; bench_apply_adam_w).
constexpr int64_t kMaxBlocksPerTask = 64;
constexpr int64_t kMinTasks = 32;

// Blocks per pool task for n elements: depends on n alone, as every split must.
int64_t BlocksPerTask(int64_t n) {
  return std::clamp<int64_t>(n / (kBlock * kMinTasks), 1, kMaxBlocksPerTask);
}

void Gather(const KernelTarget& target, const TensorDesc& d, const void* base, int64_t begin,
            int64_t n, float* dst) {
  if (d.IsContiguous()) {
    LoadFloatRun(target, ToElemType(d.dtype),
                 static_cast<const char*>(base) + begin * DTypeSize(d.dtype), n, dst);
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = LoadAsFloat(base, d.dtype, ElementOffset(d, begin + i));
}

void Scatter(const KernelTarget& target, const TensorDesc& d, void* base, int64_t begin, int64_t n,
             const float* src) {
  if (d.IsContiguous()) {
    StoreFloatRun(target, ToElemType(d.dtype), src, n,
                  static_cast<char*>(base) + begin * DTypeSize(d.dtype));
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    StoreFromFloat(base, d.dtype, ElementOffset(d, begin + i), src[i]);
}

// The operand's own memory for elements [begin, begin + kBlock) when it is a contiguous FLOAT
// view, else `buffer`.
float* Direct(const TensorDesc& d, void* base, int64_t begin, float* buffer) {
  if (d.dtype == ACL_FLOAT && d.IsContiguous()) return static_cast<float*>(base) + begin;
  return buffer;
}

class FastPlan : public Plan {
 public:
  FastPlan(const Problem& p, KernelTarget target) : p_(p), target_(target) {}

  Status Run(const Bindings& b, void* /*workspace*/) const override {
    StepScalars s;
    OPENACLNN_RETURN_IF_ERROR(ReadStepScalars(p_, b, &s));
    void* var = p_.var.First(b.outputs[kVar]);
    void* m = p_.m.First(b.outputs[kM]);
    void* v = p_.v.First(b.outputs[kV]);
    void* vmax = MaxGradNormData(p_, b);
    const void* grad = p_.grad.First(static_cast<const void*>(b.inputs[kGrad]));
    BlockScalars bs;
    bs.sign = p_.maximize ? -1.0f : 1.0f;
    bs.beta1 = s.beta1;
    bs.one_minus_beta1 = 1.0f - s.beta1;
    bs.beta2 = s.beta2;
    bs.one_minus_beta2 = 1.0f - s.beta2;
    bs.decay = static_cast<float>(s.decay);
    bs.scaled_step = static_cast<float>(s.step_size * s.bc2_sqrt);
    bs.scaled_eps = static_cast<float>(s.eps * s.bc2_sqrt);
    const int64_t per_task = kBlock * BlocksPerTask(p_.numel);
    const int64_t tasks = (p_.numel + per_task - 1) / per_task;
    // Every operand contiguous with one dtype: the update converts inside its vectors.
    const aclDataType type = p_.var.dtype;
    bool uniform = true;
    for (const TensorDesc* d : {&p_.var, &p_.m, &p_.v, &p_.grad}) {
      uniform = uniform && d->dtype == type && d->IsContiguous();
    }
    if (p_.amsgrad) {
      // V1's maxGradNormOptional is read only: it goes through a buffer the update may write.
      uniform =
          uniform && !p_.v1 && p_.max_grad_norm.dtype == type && p_.max_grad_norm.IsContiguous();
    }
    if (uniform) {
      openaclnn::cpu::ParallelFor(tasks, [&](int64_t t) {
        const int64_t begin = t * per_task;
        UpdateRun(target_, ToElemType(type), bs, p_.amsgrad, begin,
                  std::min(per_task, p_.numel - begin), grad, var, m, v, vmax);
      });
      return Status::Ok();
    }
    openaclnn::cpu::ParallelFor(tasks, [&](int64_t t) {
      const int64_t task_end = std::min(p_.numel, (t + 1) * per_task);
      for (int64_t begin = t * per_task; begin < task_end; begin += kBlock) {
        UpdateBuffered(bs, begin, std::min(kBlock, task_end - begin), grad, var, m, v, vmax);
      }
    });
    return Status::Ok();
  }
  const char* target_name() const override { return target_.name; }

 private:
  // Elements begin .. begin + n - 1 (n <= kBlock) of operands that are not all contiguous with
  // one dtype.
  void UpdateBuffered(const BlockScalars& bs, int64_t begin, int64_t n, const void* grad, void* var,
                      void* m, void* v, void* vmax) const {
    // FLOAT contiguous operands are updated where they lie; the others go through fp32
    // buffers. An operand and a grad that are the same view are then both direct or both
    // buffered, and the update reads each vector of lanes before writing it.
    float buffers[5][kBlock];
    float* xs = Direct(p_.var, var, begin, buffers[0]);
    float* ms = Direct(p_.m, m, begin, buffers[1]);
    float* vs = Direct(p_.v, v, begin, buffers[2]);
    float* gs = Direct(p_.grad, const_cast<void*>(grad), begin, buffers[3]);
    float* ws = !p_.amsgrad ? nullptr
                : p_.v1     ? buffers[4]
                            : Direct(p_.max_grad_norm, vmax, begin, buffers[4]);
    if (gs == buffers[3]) Gather(target_, p_.grad, grad, begin, n, gs);
    if (xs == buffers[0]) Gather(target_, p_.var, var, begin, n, xs);
    if (ms == buffers[1]) Gather(target_, p_.m, m, begin, n, ms);
    if (vs == buffers[2]) Gather(target_, p_.v, v, begin, n, vs);
    if (ws == buffers[4]) Gather(target_, p_.max_grad_norm, vmax, begin, n, ws);
    UpdateBlock(target_, bs, p_.amsgrad, n, gs, xs, ms, vs, ws);
    if (xs == buffers[0]) Scatter(target_, p_.var, var, begin, n, xs);
    if (ms == buffers[1]) Scatter(target_, p_.m, m, begin, n, ms);
    if (vs == buffers[2]) Scatter(target_, p_.v, v, begin, n, vs);
    if (ws == buffers[4] && !p_.v1) Scatter(target_, p_.max_grad_norm, vmax, begin, n, ws);
  }

  const Problem p_;
  const KernelTarget target_;
};

}  // namespace

const char* FastDeclines(const Problem&) { return nullptr; }
std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking*) {
  return std::make_unique<FastPlan>(problem, openaclnn::cpu::PlanningTarget());
}

}  // namespace openaclnn::apply_adam_w::cpu

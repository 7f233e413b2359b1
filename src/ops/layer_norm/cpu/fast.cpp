#include "ops/layer_norm/cpu/fast.h"

#include <algorithm>

#include "api/dtype.h"
#include "api/strided.h"
#include "backend/cpu/thread_pool.h"
#include "ops/layer_norm/cpu/row_kernels.h"
#include "ops/layer_norm/reference.h"

namespace openaclnn::layer_norm::cpu {
namespace {

// Rows per task: about this many elements, so small rows still give tasks worth scheduling and
// large ones give one row per task. Every row is computed independently, so the split does not
// change any result.
constexpr int64_t kElementsPerTask = 16384;

class FastPlan : public Plan {
 public:
  FastPlan(const Problem& p, WorkspaceBooking* ws) : p_(p) {
    if (p.n == 0) return;
    RowArgs& a = args_;
    a.n = p.n;
    a.eps = p.eps;
    a.in = ToElemType(p.input.dtype);
    a.out = ToElemType(p.out.dtype);
    a.want_mean = p.has_mean;
    a.want_rstd = p.has_rstd;
    a.mean_type = p.has_mean ? p.mean.dtype : ACL_FLOAT;
    a.rstd_type = p.has_rstd ? p.rstd.dtype : ACL_FLOAT;
    a.in_contiguous = TrailingContiguous(p.input, p.begin);
    a.out_contiguous = TrailingContiguous(p.out, p.begin);
    a.lead = MakeStridedDims(p.input, &p.out, 0, p.begin);
    a.trail = MakeStridedDims(p.input, &p.out, p.begin, p.input.rank);
    // mean and rstd share a shape when both are present.
    if (p.has_mean) {
      a.stat = MakeStridedDims(p.mean, p.has_rstd ? &p.rstd : nullptr, 0, p.mean.rank);
    } else if (p.has_rstd) {
      a.stat = MakeStridedDims(p.rstd, nullptr, 0, p.rstd.rank);
      for (int i = 0; i < a.stat.rank; ++i) {
        a.stat.strides[1][i] = a.stat.strides[0][i];
        a.stat.strides[0][i] = 0;
      }
    }
    a.lead_simple = CollapseToOneStride(a.lead, a.lead_stride);
    a.stat_simple = CollapseToOneStride(a.stat, a.stat_stride);
    const int64_t n_pad = (p.n + kBlock - 1) / kBlock * kBlock;
    weight_ = ws->Book(sizeof(float) * n_pad);
    bias_ = ws->Book(sizeof(float) * n_pad);
    rows_per_task_ = std::max<int64_t>(1, kElementsPerTask / p.n);
    // Outputs whose views may map two indices to one address are written by one task, in row
    // order, so the last write is always the same one.
    serial_ = !CertainlyDisjoint(p.out) || (p.has_mean && !CertainlyDisjoint(p.mean)) ||
              (p.has_rstd && !CertainlyDisjoint(p.rstd));
  }

  Status Run(const Bindings& bindings, void* workspace) const override {
    if (p_.n == 0) {
      WriteEmptyRowStats(p_, bindings);
      return Status::Ok();
    }
    const int64_t n_pad = (p_.n + kBlock - 1) / kBlock * kBlock;
    float* w = WorkspaceBooking::At<float>(workspace, weight_);
    float* b = WorkspaceBooking::At<float>(workspace, bias_);
    const void* wsrc = p_.has_weight ? p_.weight.First(bindings.inputs[kWeight]) : nullptr;
    const void* bsrc = p_.has_bias ? p_.bias.First(bindings.inputs[kBias]) : nullptr;
    for (int64_t i = 0; i < n_pad; ++i) {
      const bool in = i < p_.n;
      w[i] = !in               ? 0.0f
             : wsrc != nullptr ? LoadAsFloat(wsrc, p_.weight.dtype, ElementOffset(p_.weight, i))
                               : 1.0f;
      b[i] = in && bsrc != nullptr ? LoadAsFloat(bsrc, p_.bias.dtype, ElementOffset(p_.bias, i))
                                   : 0.0f;
    }
    RowPointers ptrs;
    ptrs.x = p_.input.First(bindings.inputs[kInput]);
    ptrs.y = p_.out.First(bindings.outputs[kOut]);
    ptrs.mean = p_.has_mean ? p_.mean.First(bindings.outputs[kMean]) : nullptr;
    ptrs.rstd = p_.has_rstd ? p_.rstd.First(bindings.outputs[kRstd]) : nullptr;
    ptrs.weight = w;
    ptrs.bias = b;
    if (serial_) {
      NormalizeRows(args_, ptrs, 0, p_.m);
      return Status::Ok();
    }
    const int64_t tasks = (p_.m + rows_per_task_ - 1) / rows_per_task_;
    openaclnn::cpu::ParallelFor(tasks, [&](int64_t t) {
      const int64_t r0 = t * rows_per_task_;
      NormalizeRows(args_, ptrs, r0, std::min(p_.m, r0 + rows_per_task_));
    });
    return Status::Ok();
  }

 private:
  Problem p_;
  RowArgs args_;
  size_t weight_ = 0;
  size_t bias_ = 0;
  int64_t rows_per_task_ = 1;
  bool serial_ = false;
};

}  // namespace

const char* FastDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace) {
  return std::make_unique<FastPlan>(problem, workspace);
}

}  // namespace openaclnn::layer_norm::cpu

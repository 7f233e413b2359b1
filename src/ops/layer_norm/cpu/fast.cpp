#include "ops/layer_norm/cpu/fast.h"

#include <algorithm>
#include <array>

#include "api/dtype.h"
#include "api/layout.h"
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
  FastPlan(const Problem& p, WorkspaceBooking* ws)
      : p_(p), target_(openaclnn::cpu::PlanningTarget()) {
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
    const int64_t* io_sets[2] = {p.input.strides.data(), p.out.strides.data()};
    a.lead = Uncollapsed<2>(p.input.dims.data(), 0, p.begin, io_sets);
    a.trail = Uncollapsed<2>(p.input.dims.data(), p.begin, p.input.rank, io_sets);
    // Row r starts at r * stride in every set when the dims collapse to at most one.
    const MultiStrided<2> lead = Collapse<2>(p.input.dims.data(), 0, p.begin, io_sets);
    MultiStrided<2> stat;
    // mean and rstd share a shape when both are present; an absent one walks stride 0.
    const TensorDesc* stat_view = p.has_mean ? &p.mean : p.has_rstd ? &p.rstd : nullptr;
    if (stat_view != nullptr) {
      const std::array<int64_t, kMaxRank> none{};
      const int64_t* stat_sets[2] = {p.has_mean ? p.mean.strides.data() : none.data(),
                                     p.has_rstd ? p.rstd.strides.data() : none.data()};
      a.stat = Uncollapsed<2>(stat_view->dims.data(), 0, stat_view->rank, stat_sets);
      stat = Collapse<2>(stat_view->dims.data(), 0, stat_view->rank, stat_sets);
    }
    a.lead_simple = lead.rank <= 1;
    a.stat_simple = stat.rank <= 1;
    for (int k = 0; k < 2; ++k) {
      a.lead_stride[k] = lead.InnerStride(k);
      a.stat_stride[k] = stat.InnerStride(k);
    }
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
      NormalizeRows(target_, args_, ptrs, 0, p_.m);
      return Status::Ok();
    }
    const int64_t tasks = (p_.m + rows_per_task_ - 1) / rows_per_task_;
    openaclnn::cpu::ParallelFor(tasks, [&](int64_t t) {
      const int64_t r0 = t * rows_per_task_;
      NormalizeRows(target_, args_, ptrs, r0, std::min(p_.m, r0 + rows_per_task_));
    });
    return Status::Ok();
  }

  const char* target_name() const override { return target_.name; }

 private:
  Problem p_;
  openaclnn::cpu::KernelTarget target_;  // the SIMD target of NormalizeRows
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

#include "ops/layer_norm_backward/reference.h"

#include <array>
#include <cstdint>

#include "api/dtype.h"

namespace openaclnn::layer_norm_backward {
namespace {

// Element offset (in elements, from the first view element) of row-major linear index `i` of a
// view, split as `i = lead * inner + n` over dims [0, rank).
int64_t OffsetOf(const TensorDesc& t, int64_t linear) {
  int64_t off = 0;
  for (int d = t.rank - 1; d >= 0; --d) {
    const int64_t dim = t.dims[d];
    off += (linear % dim) * t.strides[d];
    linear /= dim;
  }
  return off;
}

class ReferencePlan : public Plan {
 public:
  ReferencePlan(const Problem& p, size_t gw_offset, size_t gb_offset)
      : p_(p), gw_offset_(gw_offset), gb_offset_(gb_offset) {}

  Status Run(const Bindings& b, void* workspace) const override {
    const Problem& p = p_;
    const void* dy = p.grad_out.First(static_cast<const void*>(b.inputs[kGradOut]));
    const void* x = p.input.First(static_cast<const void*>(b.inputs[kInput]));
    const void* mean = p.mean.First(static_cast<const void*>(b.inputs[kMean]));
    const void* rstd = p.rstd.First(static_cast<const void*>(b.inputs[kRstd]));
    const void* w =
        p.has_weight ? p.weight.First(static_cast<const void*>(b.inputs[kWeight])) : nullptr;
    void* dx = p.mask[0] ? p.grad_input.First(b.outputs[kGradInput]) : nullptr;
    void* gw = p.mask[1] ? p.grad_weight.First(b.outputs[kGradWeight]) : nullptr;
    void* gb = p.mask[2] ? p.grad_bias.First(b.outputs[kGradBias]) : nullptr;
    const int64_t n_cols = p.n;
    auto row_elem = [n_cols](const TensorDesc& t, int64_t m, int64_t n) {
      return OffsetOf(t, m * n_cols + n);
    };
    ReferenceLayerNormBackward(
        p.m, p.n, p.mask,
        [&](int64_t m, int64_t n) {
          return static_cast<double>(LoadAsFloat(dy, p.grad_out.dtype, row_elem(p.grad_out, m, n)));
        },
        [&](int64_t m, int64_t n) {
          return static_cast<double>(LoadAsFloat(x, p.input.dtype, row_elem(p.input, m, n)));
        },
        [&](int64_t m) {
          return static_cast<double>(LoadAsFloat(mean, p.mean.dtype, OffsetOf(p.mean, m)));
        },
        [&](int64_t m) {
          return static_cast<double>(LoadAsFloat(rstd, p.rstd.dtype, OffsetOf(p.rstd, m)));
        },
        [&](int64_t n) {
          return w == nullptr
                     ? 1.0
                     : static_cast<double>(LoadAsFloat(w, p.weight.dtype, OffsetOf(p.weight, n)));
        },
        [&](int64_t m, int64_t n, double v) {
          StoreFromFloat(dx, p.grad_input.dtype, row_elem(p.grad_input, m, n),
                         static_cast<float>(v));
        },
        [&](int64_t n, double v) {
          StoreFromFloat(gw, p.grad_weight.dtype, OffsetOf(p.grad_weight, n),
                         static_cast<float>(v));
        },
        [&](int64_t n, double v) {
          StoreFromFloat(gb, p.grad_bias.dtype, OffsetOf(p.grad_bias, n), static_cast<float>(v));
        },
        WorkspaceBooking::At<double>(workspace, gw_offset_),
        WorkspaceBooking::At<double>(workspace, gb_offset_));
    return Status::Ok();
  }

 private:
  const Problem p_;
  const size_t gw_offset_;
  const size_t gb_offset_;
};

}  // namespace

const char* ReferenceDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace) {
  const size_t bytes = static_cast<size_t>(problem.n) * sizeof(double);
  const size_t gw = problem.mask[1] ? workspace->Book(bytes) : 0;
  const size_t gb = problem.mask[2] ? workspace->Book(bytes) : 0;
  return std::make_unique<ReferencePlan>(problem, gw, gb);
}

}  // namespace openaclnn::layer_norm_backward

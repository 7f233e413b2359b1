// The float64 reference of RmsNormGrad: plain loops over the strided views, no SIMD, no threads.
// Per row, with r = rstd[m] and a = dy * gamma:
//   dx = r * (a - x * r^2 * mean_n(a * x)),   dgamma[n] = sum_m dy * x * r
// Results are rounded from double to float, then dx to its dtype. M == 0 gives dgamma = 0.
#include "api/dtype.h"
#include "ops/rms_norm/rows.h"
#include "ops/rms_norm_grad/problem.h"

namespace openaclnn::rms_norm_grad {
namespace {

using rms_norm::LinearOffset;
using rms_norm::RowBase;

class ReferencePlan : public Plan {
 public:
  ReferencePlan(const Problem& p, size_t acc_offset) : p_(p), acc_offset_(acc_offset) {}

  Status Run(const Bindings& b, void* workspace) const override {
    const Problem& p = p_;
    const void* dy = p.dy.First(static_cast<const void*>(b.inputs[kDy]));
    const void* x = p.x.First(static_cast<const void*>(b.inputs[kX]));
    const void* rstd = p.rstd.First(static_cast<const void*>(b.inputs[kRstd]));
    const void* g = p.gamma.First(static_cast<const void*>(b.inputs[kGamma]));
    void* dx = p.dx.First(b.outputs[kDx]);
    void* dg = p.dgamma.First(b.outputs[kDgamma]);
    double* acc = WorkspaceBooking::At<double>(workspace, acc_offset_);
    for (int64_t i = 0; i < p.n; ++i) acc[i] = 0;
    for (int64_t m = 0; m < p.m; ++m) {
      const int64_t dyb = RowBase(p.dy, p.begin, m);
      const int64_t xb = RowBase(p.x, p.begin, m);
      const int64_t dxb = RowBase(p.dx, p.begin, m);
      const double r = LoadAsFloat(rstd, ACL_FLOAT, LinearOffset(p.rstd, m));
      auto dyv = [&](int64_t i) {
        return double{LoadAsFloat(dy, p.dy.dtype, dyb + Inner(p.dy, i))};
      };
      auto xv = [&](int64_t i) { return double{LoadAsFloat(x, p.x.dtype, xb + Inner(p.x, i))}; };
      auto gv = [&](int64_t i) {
        return double{LoadAsFloat(g, p.gamma.dtype, LinearOffset(p.gamma, i))};
      };
      double sum_ax = 0;
      for (int64_t i = 0; i < p.n; ++i) sum_ax += dyv(i) * gv(i) * xv(i);
      const double mean_ax = sum_ax / static_cast<double>(p.n);
      for (int64_t i = 0; i < p.n; ++i) {
        const double v = r * (dyv(i) * gv(i) - xv(i) * r * r * mean_ax);
        StoreFromFloat(dx, p.dx.dtype, dxb + Inner(p.dx, i), static_cast<float>(v));
        acc[i] += dyv(i) * xv(i) * r;
      }
    }
    for (int64_t i = 0; i < p.n; ++i) {
      StoreFromFloat(dg, ACL_FLOAT, LinearOffset(p.dgamma, i), static_cast<float>(acc[i]));
    }
    return Status::Ok();
  }

 private:
  // Offset of element i of a row, counted over the trailing (normalised) dims.
  int64_t Inner(const TensorDesc& t, int64_t i) const {
    int64_t off = 0;
    for (int d = t.rank - 1; d >= p_.begin; --d) {
      off += (i % t.dims[d]) * t.strides[d];
      i /= t.dims[d];
    }
    return off;
  }

  const Problem p_;
  const size_t acc_offset_;
};

}  // namespace

const char* ReferenceDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace) {
  const size_t acc = workspace->Book(static_cast<size_t>(problem.n) * sizeof(double));
  return std::make_unique<ReferencePlan>(problem, acc);
}

}  // namespace openaclnn::rms_norm_grad

// The float64 reference of RmsNorm: plain loops over the strided views, no SIMD, no threads.
// Per row: rstd = 1 / sqrt(sum(x^2) / N + epsilon), y = x * rstd * gamma; y and rstd are
// rounded from double to float, then y to its dtype.
#include <cmath>

#include "api/dtype.h"
#include "ops/rms_norm/problem.h"
#include "ops/rms_norm/rows.h"

namespace openaclnn::rms_norm {
namespace {

class ReferencePlan : public Plan {
 public:
  explicit ReferencePlan(const Problem& p) : p_(p) {}

  Status Run(const Bindings& b, void* /*workspace*/) const override {
    const Problem& p = p_;
    const void* x = p.x.First(static_cast<const void*>(b.inputs[kX]));
    const void* g = p.gamma.First(static_cast<const void*>(b.inputs[kGamma]));
    void* y = p.y.First(b.outputs[kY]);
    void* rstd = p.rstd.First(b.outputs[kRstd]);
    for (int64_t m = 0; m < p.m; ++m) {
      const int64_t xb = RowBase(p.x, p.begin, m);
      const int64_t yb = RowBase(p.y, p.begin, m);
      double ss = 0;
      for (int64_t i = 0; i < p.n; ++i) {
        const double v = LoadAsFloat(x, p.x.dtype, xb + RowInner(p.x, i));
        ss += v * v;
      }
      const double rs = 1.0 / std::sqrt(ss / static_cast<double>(p.n) + p.epsilon);
      StoreFromFloat(rstd, ACL_FLOAT, LinearOffset(p.rstd, m), static_cast<float>(rs));
      for (int64_t i = 0; i < p.n; ++i) {
        const double v = LoadAsFloat(x, p.x.dtype, xb + RowInner(p.x, i));
        const double w = LoadAsFloat(g, p.gamma.dtype, LinearOffset(p.gamma, i));
        StoreFromFloat(y, p.y.dtype, yb + RowInner(p.y, i), static_cast<float>(v * rs * w));
      }
    }
    return Status::Ok();
  }

 private:
  // Offset of element i of a row, counted over the trailing (normalised) dims.
  int64_t RowInner(const TensorDesc& t, int64_t i) const {
    int64_t off = 0;
    for (int d = t.rank - 1; d >= p_.begin; --d) {
      off += (i % t.dims[d]) * t.strides[d];
      i /= t.dims[d];
    }
    return off;
  }

  const Problem p_;
};

}  // namespace

const char* ReferenceDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking*) {
  return std::make_unique<ReferencePlan>(problem);
}

}  // namespace openaclnn::rms_norm

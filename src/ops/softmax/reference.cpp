#include "ops/softmax/reference.h"

#include <cmath>
#include <cstring>
#include <vector>

namespace openaclnn::softmax {
namespace {

void StoreDouble(void* base, aclDataType dtype, int64_t i, double v) {
  if (dtype == ACL_DOUBLE) {
    static_cast<double*>(base)[i] = v;
  } else {
    StoreFromFloat(base, dtype, i, static_cast<float>(v));
  }
}

class ReferencePlan : public Plan {
 public:
  explicit ReferencePlan(const Problem& p) : p_(p) {}

  Status Run(const Bindings& bindings, void* /*workspace*/) const override {
    const RowView view(p_);
    const bool backward = IsBackward(p_.kind);
    const void* x = p_.x.First(bindings.inputs[backward ? kGradOutput : kSelf]);
    const void* y = backward ? p_.y.First(bindings.inputs[kOutput]) : nullptr;
    void* out = p_.out.First(bindings.outputs[kOut]);
    std::vector<double> a(static_cast<size_t>(view.n)), b(static_cast<size_t>(view.n));
    for (int64_t r = 0; r < view.rows; ++r) {
      int64_t start[3];
      view.RowStart(r, start);
      for (int64_t i = 0; i < view.n; ++i) {
        a[i] = LoadElement(x, p_.x.dtype, start[0] + i * view.step[0]);
        if (backward) b[i] = LoadElement(y, p_.y.dtype, start[1] + i * view.step[1]);
      }
      double s = 0.0;
      switch (p_.kind) {
        case Kind::kSoftmax:
        case Kind::kLogSoftmax: {
          double m = -INFINITY;
          for (int64_t i = 0; i < view.n; ++i) m = std::fmax(m, a[i]);
          // A NaN anywhere makes the whole row NaN, as PyTorch does.
          for (int64_t i = 0; i < view.n; ++i) {
            if (std::isnan(a[i])) m = NAN;
          }
          for (int64_t i = 0; i < view.n; ++i) s += std::exp(a[i] - m);
          for (int64_t i = 0; i < view.n; ++i) {
            a[i] = p_.kind == Kind::kSoftmax ? std::exp(a[i] - m) / s : a[i] - m - std::log(s);
          }
          break;
        }
        case Kind::kSoftmaxBackward:
          for (int64_t i = 0; i < view.n; ++i) s += a[i] * b[i];
          for (int64_t i = 0; i < view.n; ++i) a[i] = b[i] * (a[i] - s);
          break;
        case Kind::kLogSoftmaxBackward:
          for (int64_t i = 0; i < view.n; ++i) s += a[i];
          for (int64_t i = 0; i < view.n; ++i) a[i] = a[i] - std::exp(b[i]) * s;
          break;
      }
      for (int64_t i = 0; i < view.n; ++i) {
        StoreDouble(out, p_.out.dtype, start[2] + i * view.step[2], a[i]);
      }
    }
    return Status::Ok();
  }

 private:
  Problem p_;
};

}  // namespace

const char* ReferenceDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking*) {
  return std::make_unique<ReferencePlan>(problem);
}

}  // namespace openaclnn::softmax

// The float64 reference of both NLL loss operators (last in the implementation list): plain loops
// on the calling thread, every product and sum in double, each output rounded once.
#include <vector>

#include "api/dtype.h"
#include "kernels/cpu/element_convert.h"
#include "ops/nll_loss/problem.h"

namespace openaclnn::nll_loss {
namespace {

void Store(void* base, aclDataType dtype, int64_t i, double v) {
  StoreFromFloat(base, dtype, i, openaclnn::cpu::NarrowToFloat(v));
}

class ReferencePlan : public Plan {
 public:
  explicit ReferencePlan(const Problem& p) : p_(p) {}

  Status Run(const Bindings& bindings, void* /*workspace*/) const override {
    const bool forward = p_.kind == Kind::kForward;
    std::vector<int64_t> target(static_cast<size_t>(p_.n));
    OPENACLNN_RETURN_IF_ERROR(
        ReadTargets(p_, bindings.inputs[forward ? kFwdTarget : kBwdTarget], target.data()));
    const void* weight = p_.weight.First(
        static_cast<const void*>(bindings.inputs[forward ? kFwdWeight : kBwdWeight]));
    auto w = [&](int64_t cls) {
      return static_cast<double>(LoadAsFloat(weight, p_.weight.dtype, cls * p_.weight.strides[0]));
    };
    if (forward) {
      const void* self = p_.self.First(static_cast<const void*>(bindings.inputs[kFwdSelf]));
      void* out = p_.out.First(bindings.outputs[kFwdOut]);
      void* total = p_.total.First(bindings.outputs[kFwdTotal]);
      double sum = 0.0, total_weight = 0.0;
      for (int64_t r = 0; r < p_.n; ++r) {
        const int64_t t = target[r];
        double loss = 0.0;
        if (t >= 0) {
          const double x =
              LoadAsFloat(self, p_.self.dtype, r * p_.row_stride + t * p_.class_stride);
          loss = -w(t) * x;
          sum += loss;
          total_weight += w(t);
        }
        if (p_.per_row()) Store(out, p_.out.dtype, r * p_.per_row_stride, loss);
      }
      if (p_.per_row()) {
        Store(total, p_.total.dtype, 0, 0.0);
      } else {
        Store(out, p_.out.dtype, 0, p_.reduction == kMean ? sum / total_weight : sum);
        Store(total, p_.total.dtype, 0, total_weight);
      }
      return Status::Ok();
    }
    const void* grad =
        p_.grad_output.First(static_cast<const void*>(bindings.inputs[kBwdGradOutput]));
    void* out = p_.out.First(bindings.outputs[kBwdOut]);
    double total_weight = 1.0;
    if (p_.reduction == kMean) {
      const void* total = p_.total.First(static_cast<const void*>(bindings.inputs[kBwdTotal]));
      total_weight = LoadAsFloat(total, p_.total.dtype, 0);
    }
    for (int64_t r = 0; r < p_.n; ++r) {
      double g = LoadAsFloat(grad, p_.grad_output.dtype, r * p_.per_row_stride);
      if (p_.reduction == kMean) g /= total_weight;
      for (int64_t cls = 0; cls < p_.c; ++cls) {
        const double v = cls == target[r] ? -w(cls) * g : 0.0;
        Store(out, p_.out.dtype, r * p_.row_stride + cls * p_.class_stride, v);
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

}  // namespace openaclnn::nll_loss

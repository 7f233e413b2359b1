// The float64 reference of aclnnApplyAdamW and aclnnApplyAdamWV2: plain loops over the strided
// views, no SIMD, no threads; each element's new var, m, v (and maxGradNorm) computed in double
// from the values read, rounded to float, then to the tensor's dtype.
#include <algorithm>
#include <cmath>

#include "api/dtype.h"
#include "ops/apply_adam_w/apply_adam_w.h"

namespace openaclnn::apply_adam_w {
namespace {

class ReferencePlan : public Plan {
 public:
  explicit ReferencePlan(const Problem& p) : p_(p) {}

  Status Run(const Bindings& b, void* /*workspace*/) const override {
    StepScalars s;
    OPENACLNN_RETURN_IF_ERROR(ReadStepScalars(p_, b, &s));
    void* var = p_.var.First(b.outputs[kVar]);
    void* m = p_.m.First(b.outputs[kM]);
    void* v = p_.v.First(b.outputs[kV]);
    void* vmax = MaxGradNormData(p_, b);
    const void* grad = p_.grad.First(static_cast<const void*>(b.inputs[kGrad]));
    const double beta1 = s.beta1, beta2 = s.beta2, eps = s.eps;
    for (int64_t i = 0; i < p_.numel; ++i) {
      const int64_t iv = ElementOffset(p_.var, i), im = ElementOffset(p_.m, i),
                    iw = ElementOffset(p_.v, i), ig = ElementOffset(p_.grad, i);
      double g = LoadAsFloat(grad, p_.grad.dtype, ig);
      if (p_.maximize) g = -g;
      double x = LoadAsFloat(var, p_.var.dtype, iv);
      double mi = LoadAsFloat(m, p_.m.dtype, im);
      double vi = LoadAsFloat(v, p_.v.dtype, iw);
      x *= s.decay;
      mi = beta1 * mi + (1.0 - beta1) * g;
      vi = beta2 * vi + (1.0 - beta2) * g * g;
      double vm = vi;
      if (p_.amsgrad) {
        const int64_t ix = ElementOffset(p_.max_grad_norm, i);
        vm = std::max(static_cast<double>(LoadAsFloat(vmax, p_.max_grad_norm.dtype, ix)), vi);
        // V1 reads maxGradNormOptional only.
        if (!p_.v1) StoreFromFloat(vmax, p_.max_grad_norm.dtype, ix, static_cast<float>(vm));
      }
      x -= s.step_size * mi / (std::sqrt(vm) / s.bc2_sqrt + eps);
      StoreFromFloat(var, p_.var.dtype, iv, static_cast<float>(x));
      StoreFromFloat(m, p_.m.dtype, im, static_cast<float>(mi));
      StoreFromFloat(v, p_.v.dtype, iw, static_cast<float>(vi));
    }
    return Status::Ok();
  }

 private:
  const Problem p_;
};

}  // namespace

const char* ReferenceDeclines(const Problem&) { return nullptr; }
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking*) {
  return std::make_unique<ReferencePlan>(problem);
}

}  // namespace openaclnn::apply_adam_w

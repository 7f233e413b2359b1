#include "ops/conv_tbc/reference.h"

#include <vector>

#include "api/dtype.h"

namespace openaclnn::conv_tbc_forward {

float ApplyRounding(InputRounding rounding, float value) {
  switch (rounding) {
    case InputRounding::kHf32:
      return RoundToHf32(value);
    case InputRounding::kHalf:
      return RoundThroughHalf(value);
    default:
      return value;
  }
}

namespace {

// Plain loops in float64 over the zero-padded definition
//   out[t, b, co] = bias[co] + sum_k sum_ci x[t + k - pad, b, ci] * w[k, ci, co],
// from the emulation-rounded inputs; the result is rounded once (twice for cubeMathType 2, through
// FLOAT16 first, as decision E6 says).
class ReferencePlan : public Plan {
 public:
  explicit ReferencePlan(const Problem& p) : p_(p) {}

  Status Run(const Bindings& bindings, void*) const override {
    const void* x = p_.self.First(bindings.inputs[kSelf]);
    const void* w = p_.weight.First(bindings.inputs[kWeight]);
    const void* bias = p_.bias.First(bindings.inputs[kBias]);
    void* y = p_.out.First(bindings.outputs[kOut]);
    const bool bias_rounded = p_.rounding == InputRounding::kHalf;
    std::vector<double> acc(p_.c_out);
    for (int64_t t = 0; t < p_.t_out; ++t) {
      for (int64_t b = 0; b < p_.batch; ++b) {
        for (int64_t co = 0; co < p_.c_out; ++co) {
          const float v = LoadAsFloat(bias, p_.bias.dtype, co * p_.bias.strides[0]);
          acc[co] = bias_rounded ? RoundThroughHalf(v) : v;
        }
        for (int64_t k = 0; k < p_.taps; ++k) {
          const int64_t s = t + k - p_.pad;
          if (s < 0 || s >= p_.t_in) continue;
          for (int64_t ci = 0; ci < p_.c_in; ++ci) {
            const double xv = ApplyRounding(
                p_.rounding, LoadAsFloat(x, p_.self.dtype,
                                         s * p_.self.strides[0] + b * p_.self.strides[1] +
                                             ci * p_.self.strides[2]));
            for (int64_t co = 0; co < p_.c_out; ++co) {
              const double wv = ApplyRounding(
                  p_.rounding, LoadAsFloat(w, p_.weight.dtype,
                                           k * p_.weight.strides[0] + ci * p_.weight.strides[1] +
                                               co * p_.weight.strides[2]));
              acc[co] += xv * wv;
            }
          }
        }
        for (int64_t co = 0; co < p_.c_out; ++co) {
          float v = static_cast<float>(acc[co]);
          if (p_.round_result_to_half) v = RoundThroughHalf(v);
          StoreFromFloat(y, p_.out.dtype,
                         t * p_.out.strides[0] + b * p_.out.strides[1] + co * p_.out.strides[2], v);
        }
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

}  // namespace openaclnn::conv_tbc_forward

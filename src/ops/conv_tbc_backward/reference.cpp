#include "ops/conv_tbc_backward/reference.h"

#include "api/dtype.h"

namespace openaclnn::conv_tbc {

void ConvTbcBackwardF64(const ConvShape& s, const double* dy, const double* x, const double* w,
                        double* gx, double* gw, double* gb) {
  const int64_t t_out = s.t_out();
  const int64_t B = s.batch, ci_n = s.c_in, co_n = s.c_out;
  auto dy_at = [&](int64_t t, int64_t b, int64_t co) { return dy[(t * B + b) * co_n + co]; };
  auto x_at = [&](int64_t t, int64_t b, int64_t ci) { return x[(t * B + b) * ci_n + ci]; };
  auto w_at = [&](int64_t k, int64_t ci, int64_t co) { return w[(k * ci_n + ci) * co_n + co]; };
  if (gx != nullptr) {
    // gradInput[t,b,ci] = sum_k sum_co dy[t+pad-k, b, co] * w[k, ci, co], 0 <= t+pad-k < t_out.
    for (int64_t t = 0; t < s.t_in; ++t) {
      for (int64_t b = 0; b < B; ++b) {
        for (int64_t ci = 0; ci < ci_n; ++ci) {
          double sum = 0;
          for (int64_t k = 0; k < s.taps; ++k) {
            const int64_t to = t + s.pad - k;
            if (to < 0 || to >= t_out) continue;
            for (int64_t co = 0; co < co_n; ++co) sum += dy_at(to, b, co) * w_at(k, ci, co);
          }
          gx[(t * B + b) * ci_n + ci] = sum;
        }
      }
    }
  }
  if (gw != nullptr) {
    // gradWeight[k,ci,co] = sum_t sum_b xpad[t+k, b, ci] * dy[t, b, co], xpad[t'] = x[t'-pad].
    for (int64_t k = 0; k < s.taps; ++k) {
      for (int64_t ci = 0; ci < ci_n; ++ci) {
        for (int64_t co = 0; co < co_n; ++co) {
          double sum = 0;
          for (int64_t t = 0; t < t_out; ++t) {
            const int64_t ti = t + k - s.pad;
            if (ti < 0 || ti >= s.t_in) continue;
            for (int64_t b = 0; b < B; ++b) sum += x_at(ti, b, ci) * dy_at(t, b, co);
          }
          gw[(k * ci_n + ci) * co_n + co] = sum;
        }
      }
    }
  }
  if (gb != nullptr) {
    for (int64_t co = 0; co < co_n; ++co) {
      double sum = 0;
      for (int64_t t = 0; t < t_out; ++t) {
        for (int64_t b = 0; b < B; ++b) sum += dy_at(t, b, co);
      }
      gb[co] = sum;
    }
  }
}

namespace {

// Visits every element of a rank-3 (or rank-1) view in row-major order with its storage index.
template <class Fn>
void ForEachElement(const TensorDesc& d, Fn&& fn) {
  const int64_t n0 = d.rank >= 1 ? d.dims[0] : 1;
  const int64_t n1 = d.rank >= 2 ? d.dims[1] : 1;
  const int64_t n2 = d.rank >= 3 ? d.dims[2] : 1;
  const int64_t s0 = d.rank >= 1 ? d.strides[0] : 0;
  const int64_t s1 = d.rank >= 2 ? d.strides[1] : 0;
  const int64_t s2 = d.rank >= 3 ? d.strides[2] : 0;
  int64_t linear = 0;
  for (int64_t i = 0; i < n0; ++i) {
    for (int64_t j = 0; j < n1; ++j) {
      for (int64_t k = 0; k < n2; ++k) fn(linear++, i * s0 + j * s1 + k * s2);
    }
  }
}

void LoadView(const TensorDesc& d, const void* base, InputRounding rounding, double* out) {
  const void* first = d.First(base);
  ForEachElement(d, [&](int64_t linear, int64_t index) {
    out[linear] = ApplyRounding(rounding, LoadAsFloat(first, d.dtype, index));
  });
}

void StoreView(const TensorDesc& d, void* base, bool round_to_half, const double* values) {
  void* first = d.First(base);
  ForEachElement(d, [&](int64_t linear, int64_t index) {
    float v = static_cast<float>(values[linear]);
    if (round_to_half) v = RoundThroughHalf(v);
    StoreFromFloat(first, d.dtype, index, v);
  });
}

class ReferencePlan : public Plan {
 public:
  ReferencePlan(const Problem& p, WorkspaceBooking* ws) : p_(p) {
    shape_ = ConvShape{p.t_in, p.batch, p.c_in, p.c_out, p.taps, p.pad};
    dy_ = ws->Book(sizeof(double) * p.self.Numel());
    x_ = ws->Book(sizeof(double) * p.input.Numel());
    w_ = ws->Book(sizeof(double) * p.weight.Numel());
    gx_ = ws->Book(sizeof(double) * p.grad_input.Numel());
    gw_ = ws->Book(sizeof(double) * p.grad_weight.Numel());
    gb_ = ws->Book(sizeof(double) * p.grad_bias.Numel());
  }

  Status Run(const Bindings& bindings, void* workspace) const override {
    double* dy = WorkspaceBooking::At<double>(workspace, dy_);
    double* x = WorkspaceBooking::At<double>(workspace, x_);
    double* w = WorkspaceBooking::At<double>(workspace, w_);
    double* gx = WorkspaceBooking::At<double>(workspace, gx_);
    double* gw = WorkspaceBooking::At<double>(workspace, gw_);
    double* gb = WorkspaceBooking::At<double>(workspace, gb_);
    // gradBias sums self as stored (spec 5.4): load it unrounded first.
    LoadView(p_.self, bindings.inputs[kSelf], InputRounding::kNone, dy);
    ConvTbcBackwardF64(shape_, dy, nullptr, nullptr, nullptr, nullptr, gb);
    LoadView(p_.self, bindings.inputs[kSelf], p_.rounding, dy);
    LoadView(p_.input, bindings.inputs[kInput], p_.rounding, x);
    LoadView(p_.weight, bindings.inputs[kWeight], p_.rounding, w);
    ConvTbcBackwardF64(shape_, dy, x, w, gx, gw, nullptr);
    StoreView(p_.grad_input, bindings.outputs[kGradInput], p_.round_result_to_half, gx);
    StoreView(p_.grad_weight, bindings.outputs[kGradWeight], p_.round_result_to_half, gw);
    StoreView(p_.grad_bias, bindings.outputs[kGradBias], false, gb);
    return Status::Ok();
  }

 private:
  Problem p_;
  ConvShape shape_;
  size_t dy_, x_, w_, gx_, gw_, gb_;
};

}  // namespace

const char* ReferenceDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace) {
  return std::make_unique<ReferencePlan>(problem, workspace);
}

}  // namespace openaclnn::conv_tbc

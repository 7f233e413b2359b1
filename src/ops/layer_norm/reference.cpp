#include "ops/layer_norm/reference.h"

#include <cmath>
#include <limits>
#include <vector>

#include "api/dtype.h"

namespace openaclnn::layer_norm {
namespace {

// Plain loops in float64, one row at a time: two-pass mean and biased variance, eps (already
// narrowed to float) added in float64, every output rounded once from its float64 value.
class ReferencePlan : public Plan {
 public:
  explicit ReferencePlan(const Problem& p) : p_(p) {}

  Status Run(const Bindings& bindings, void* /*workspace*/) const override {
    if (p_.n == 0) {
      WriteEmptyRowStats(p_, bindings);
      return Status::Ok();
    }
    const void* x = p_.input.First(bindings.inputs[kInput]);
    const void* w = p_.has_weight ? p_.weight.First(bindings.inputs[kWeight]) : nullptr;
    const void* b = p_.has_bias ? p_.bias.First(bindings.inputs[kBias]) : nullptr;
    void* y = p_.out.First(bindings.outputs[kOut]);
    void* mean = p_.has_mean ? p_.mean.First(bindings.outputs[kMean]) : nullptr;
    void* rstd = p_.has_rstd ? p_.rstd.First(bindings.outputs[kRstd]) : nullptr;
    std::vector<double> weight(p_.n, 1.0), bias(p_.n, 0.0), row(p_.n);
    for (int64_t i = 0; i < p_.n; ++i) {
      if (w != nullptr) weight[i] = LoadAsFloat(w, p_.weight.dtype, ElementOffset(p_.weight, i));
      if (b != nullptr) bias[i] = LoadAsFloat(b, p_.bias.dtype, ElementOffset(p_.bias, i));
    }
    for (int64_t m = 0; m < p_.m; ++m) {
      double sum = 0;
      for (int64_t i = 0; i < p_.n; ++i) {
        row[i] = LoadAsFloat(x, p_.input.dtype, ElementOffset(p_.input, m * p_.n + i));
        sum += row[i];
      }
      const double mu = sum / static_cast<double>(p_.n);
      double sq = 0;
      for (int64_t i = 0; i < p_.n; ++i) sq += (row[i] - mu) * (row[i] - mu);
      const double var = sq / static_cast<double>(p_.n);
      const double rs = 1.0 / std::sqrt(var + static_cast<double>(p_.eps));
      for (int64_t i = 0; i < p_.n; ++i) {
        const double v = (row[i] - mu) * rs * weight[i] + bias[i];
        StoreFromFloat(y, p_.out.dtype, ElementOffset(p_.out, m * p_.n + i), static_cast<float>(v));
      }
      if (mean != nullptr) {
        StoreFromFloat(mean, p_.mean.dtype, ElementOffset(p_.mean, m), static_cast<float>(mu));
      }
      if (rstd != nullptr) {
        StoreFromFloat(rstd, p_.rstd.dtype, ElementOffset(p_.rstd, m), static_cast<float>(rs));
      }
    }
    return Status::Ok();
  }

 private:
  Problem p_;
};

}  // namespace

void WriteEmptyRowStats(const Problem& p, const Bindings& bindings) {
  if (p.has_mean) {
    void* mean = p.mean.First(bindings.outputs[kMean]);
    for (int64_t m = 0; m < p.m; ++m) {
      StoreFromFloat(mean, p.mean.dtype, ElementOffset(p.mean, m), 0.0f);
    }
  }
  if (p.has_rstd) {
    void* rstd = p.rstd.First(bindings.outputs[kRstd]);
    for (int64_t m = 0; m < p.m; ++m) {
      StoreFromFloat(rstd, p.rstd.dtype, ElementOffset(p.rstd, m),
                     std::numeric_limits<float>::quiet_NaN());
    }
  }
}

const char* ReferenceDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking*) {
  return std::make_unique<ReferencePlan>(problem);
}

}  // namespace openaclnn::layer_norm

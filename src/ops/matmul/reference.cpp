#include "ops/matmul/reference.h"

#include <vector>

#include "api/dtype.h"

namespace openaclnn::matmul {
namespace {

class ReferencePlan : public Plan {
 public:
  explicit ReferencePlan(const Problem& p) : p_(p) {}

  Status Run(const Bindings& bindings, void* /*workspace*/) const override {
    const Problem& p = p_;
    const void* a = p.a.desc.First(static_cast<const void*>(bindings.inputs[p.a_slot]));
    const void* b = p.b.desc.First(static_cast<const void*>(bindings.inputs[p.b_slot]));
    const void* bias =
        p.has_bias ? p.bias.desc.First(static_cast<const void*>(bindings.inputs[p.bias_slot]))
                   : nullptr;
    void* c = p.c.desc.First(bindings.outputs[0]);
    const InputRounding bias_rounding =
        p.rounding == InputRounding::kHalf ? InputRounding::kHalf : InputRounding::kNone;
    // Every result first, then the stores in row-major order: out may share bytes with an input or
    // map two indices to one address.
    std::vector<float> results(static_cast<size_t>(p.batch * p.m * p.n));
    size_t next = 0;
    for (int64_t l = 0; l < p.batch; ++l) {
      const int64_t ao = p.a.BatchOffset(p.batch_rank, p.batch_dims.data(), l);
      const int64_t bo = p.b.BatchOffset(p.batch_rank, p.batch_dims.data(), l);
      const int64_t so = p.bias.BatchOffset(p.batch_rank, p.batch_dims.data(), l);
      for (int64_t i = 0; i < p.m; ++i) {
        for (int64_t j = 0; j < p.n; ++j) {
          double sum = 0.0;
          for (int64_t q = 0; q < p.k; ++q) {
            const double x = cpu::ApplyRounding(
                p.rounding,
                LoadAsFloat(a, p.a.desc.dtype, ao + i * p.a.row_stride + q * p.a.col_stride));
            const double y = cpu::ApplyRounding(
                p.rounding,
                LoadAsFloat(b, p.b.desc.dtype, bo + q * p.b.row_stride + j * p.b.col_stride));
            sum += x * y;
          }
          double v = static_cast<double>(p.alpha) * sum;
          if (p.has_bias) {
            const float s = cpu::ApplyRounding(
                bias_rounding, LoadAsFloat(bias, p.bias.desc.dtype,
                                           so + i * p.bias.row_stride + j * p.bias.col_stride));
            v += static_cast<double>(p.beta) * s;
          }
          float out = static_cast<float>(v);
          if (p.round_result_to_half) out = RoundThroughHalf(out);
          results[next++] = out;
        }
      }
    }
    next = 0;
    for (int64_t l = 0; l < p.batch; ++l) {
      const int64_t co = p.c.BatchOffset(p.batch_rank, p.batch_dims.data(), l);
      for (int64_t i = 0; i < p.m; ++i) {
        for (int64_t j = 0; j < p.n; ++j) {
          StoreFromFloat(c, p.c.desc.dtype, co + i * p.c.row_stride + j * p.c.col_stride,
                         results[next++]);
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

}  // namespace openaclnn::matmul

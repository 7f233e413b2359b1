// The float64 reference of both embedding operators (last in the implementation list): plain
// loops on the calling thread. The forward copies each element's bytes; the backward sums every
// grad element into a double per out element, in index order, and rounds once to out's dtype.
#include <cstring>
#include <vector>

#include "api/dtype.h"
#include "kernels/cpu/element_convert.h"
#include "ops/embedding/problem.h"

namespace openaclnn::embedding {
namespace {

class ReferencePlan : public Plan {
 public:
  explicit ReferencePlan(const Problem& p) : p_(p) {}

  Status Run(const Bindings& bindings, void* /*workspace*/) const override {
    std::vector<int64_t> index(static_cast<size_t>(p_.num_indices));
    OPENACLNN_RETURN_IF_ERROR(ReadIndices(p_, bindings.inputs[kIndices], index.data()));
    const int last = p_.table.rank - 1;
    if (p_.kind == Kind::kForward) {
      const size_t esize = DTypeSize(p_.table.dtype);
      const auto* weight = static_cast<const unsigned char*>(
          p_.table.First(static_cast<const void*>(bindings.inputs[kWeight])));
      auto* out = static_cast<unsigned char*>(p_.out.First(bindings.outputs[kOut]));
      const int out_last = p_.out.rank - 1;
      for (int64_t r = 0; r < p_.num_indices; ++r) {
        const int64_t out_row = RowOffset(p_.out, r);
        for (int64_t j = 0; j < p_.dim; ++j) {
          const int64_t from = index[r] * p_.table.strides[0] + j * p_.table.strides[last];
          const int64_t to = out_row + j * p_.out.strides[out_last];
          std::memcpy(out + to * static_cast<int64_t>(esize),
                      weight + from * static_cast<int64_t>(esize), esize);
        }
      }
      return Status::Ok();
    }
    const void* grad = p_.table.First(static_cast<const void*>(bindings.inputs[kGrad]));
    void* out = p_.out.First(bindings.outputs[kOut]);
    std::vector<double> sum(static_cast<size_t>(p_.num_weights * p_.dim), 0.0);
    std::vector<int64_t> count(static_cast<size_t>(p_.num_weights), 0);
    for (int64_t r = 0; r < p_.num_indices; ++r) {
      const int64_t w = index[r];
      ++count[w];
      if (w == p_.padding_idx) continue;
      const int64_t row = RowOffset(p_.table, r);
      for (int64_t j = 0; j < p_.dim; ++j) {
        sum[w * p_.dim + j] += LoadAsFloat(grad, p_.table.dtype, row + j * p_.table.strides[last]);
      }
    }
    for (int64_t w = 0; w < p_.num_weights; ++w) {
      for (int64_t j = 0; j < p_.dim; ++j) {
        double v = sum[w * p_.dim + j];
        if (p_.scale_grad_by_freq && count[w] > 0) v /= static_cast<double>(count[w]);
        StoreFromFloat(out, p_.out.dtype, w * p_.out.strides[0] + j * p_.out.strides[1],
                       openaclnn::cpu::NarrowToFloat(v));
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

}  // namespace openaclnn::embedding

#include "ops/reduce_sum/reference.h"

#include <cstring>
#include <vector>

#include "api/reduce_convert.h"
#include "api/tensor_desc.h"

namespace openaclnn::reduce_sum {
namespace {

class ReferencePlan : public Plan {
 public:
  explicit ReferencePlan(const Problem& p) : p_(p) {}

  Status Run(const Bindings& bindings, void* /*workspace*/) const override {
    auto* out = static_cast<unsigned char*>(p_.out.First(bindings.outputs[kOut]));
    const int64_t out_size = static_cast<int64_t>(ElemSize(p_.out_type));
    if (p_.in.Numel() == 0) {
      for (int64_t i = 0; i < p_.out.Numel(); ++i) {
        std::memset(out + ElementOffset(p_.out, i) * out_size, 0, static_cast<size_t>(out_size));
      }
      return Status::Ok();
    }
    const auto* in = static_cast<const unsigned char*>(p_.in.First(bindings.inputs[kSelf]));
    const int64_t in_size = static_cast<int64_t>(ElemSize(p_.in_type));
    // Kept index of every input element: row-major over the kept dims.
    int64_t kept_count = 1;
    for (int d = 0; d < p_.in.rank; ++d) {
      if (!((p_.mask >> d) & 1u)) kept_count *= p_.in.dims[d];
    }
    const bool integer = AccumulatorOf(p_.out_type) == Accumulator::kInt64;
    std::vector<double> sums(integer ? 0 : kept_count, 0.0);
    // uint64_t: two's complement wrap-around without signed overflow.
    std::vector<uint64_t> counts(integer ? kept_count : 0, 0);
    std::vector<int64_t> index(p_.in.rank, 0);
    const int64_t total = p_.in.Numel();
    for (int64_t i = 0; i < total; ++i) {
      int64_t k = 0, offset = 0;
      for (int d = 0; d < p_.in.rank; ++d) {
        offset += index[d] * p_.in.strides[d];
        if (!((p_.mask >> d) & 1u)) k = k * p_.in.dims[d] + index[d];
      }
      const unsigned char* e = in + offset * in_size;
      if (integer) {
        counts[k] +=
            static_cast<uint64_t>(ConvertElementToIntegerOutput(e, p_.in_type, p_.out_type));
      } else if (p_.out_type == ElemType::kFloat64) {
        sums[k] += ConvertElementToDoubleOutput(e, p_.in_type);
      } else {
        sums[k] += ConvertElementToFloatOutput(e, p_.in_type, p_.out_type);
      }
      for (int d = p_.in.rank - 1; d >= 0; --d) {
        if (++index[d] < p_.in.dims[d]) break;
        index[d] = 0;
      }
    }
    int64_t out_strides[kMaxRank];
    OutputStridesByInputDim(p_, out_strides);
    // Output element of kept index k: walk the kept dims in row-major order again.
    std::vector<int64_t> kept_index(p_.in.rank, 0);
    for (int64_t k = 0; k < kept_count; ++k) {
      int64_t offset = 0;
      for (int d = 0; d < p_.in.rank; ++d) offset += kept_index[d] * out_strides[d];
      unsigned char* o = out + offset * out_size;
      if (integer) {
        StoreIntegerSum(o, p_.out_type, static_cast<int64_t>(counts[k]));
      } else if (p_.out_type == ElemType::kFloat64) {
        std::memcpy(o, &sums[k], sizeof(double));
      } else {
        StoreFloatSum(o, p_.out_type, static_cast<float>(sums[k]));
      }
      for (int d = p_.in.rank - 1; d >= 0; --d) {
        if ((p_.mask >> d) & 1u) continue;
        if (++kept_index[d] < p_.in.dims[d]) break;
        kept_index[d] = 0;
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

}  // namespace openaclnn::reduce_sum

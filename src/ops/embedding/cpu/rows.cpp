// The CPU implementation of both embedding operators.
//
// Forward: the indices are read and checked once (into the workspace), then the out rows are
// copied in fixed chunks on the thread pool (memcpy when both rows are contiguous).
//
// Dense backward: the indices are read and checked, then sorted stably by value with a counting
// sort (positions of the indices equal to w, in increasing order, form bucket w). The out rows are
// split into fixed chunks on the pool; out row w is the fp32 sum of the grad rows of bucket w,
// taken in increasing position, divided by the bucket size when scaleGradByFreq is set, rounded
// once to out's dtype. Every sum has one order, set by the problem alone: results are bitwise the
// same for any thread count.
#include <algorithm>
#include <cstring>
#include <vector>

#include "api/dtype.h"
#include "api/elem_type.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/float_runs.h"
#include "ops/embedding/problem.h"

namespace openaclnn::embedding::cpu {
namespace {

// About this many out elements per pool task.
constexpr int64_t kElementsPerChunk = 1 << 15;

int64_t RowsPerChunk(int64_t dim) {
  return std::max<int64_t>(1, kElementsPerChunk / std::max<int64_t>(dim, 1));
}

class ForwardPlan : public Plan {
 public:
  ForwardPlan(const Problem& p, WorkspaceBooking* workspace)
      : p_(p), index_offset_(workspace->Book(static_cast<size_t>(p.num_indices) * 8)) {}

  Status Run(const Bindings& bindings, void* workspace) const override {
    int64_t* index = WorkspaceBooking::At<int64_t>(workspace, index_offset_);
    OPENACLNN_RETURN_IF_ERROR(ReadIndices(p_, bindings.inputs[kIndices], OpName(p_.kind), index));
    const int64_t esize = static_cast<int64_t>(DTypeSize(p_.table.dtype));
    const auto* weight = static_cast<const unsigned char*>(
        p_.table.First(static_cast<const void*>(bindings.inputs[kWeight])));
    auto* out = static_cast<unsigned char*>(p_.out.First(bindings.outputs[kOut]));
    const int64_t w_step = p_.table.strides[1];
    const int64_t o_step = p_.out.strides[p_.out.rank - 1];
    const bool memcpy_rows = w_step == 1 && o_step == 1;
    const int64_t rows_per_chunk = RowsPerChunk(p_.dim);
    const int64_t chunks = (p_.num_indices + rows_per_chunk - 1) / rows_per_chunk;
    openaclnn::cpu::ParallelFor(chunks, [&](int64_t chunk) {
      const int64_t end = std::min(p_.num_indices, (chunk + 1) * rows_per_chunk);
      for (int64_t r = chunk * rows_per_chunk; r < end; ++r) {
        const unsigned char* src = weight + index[r] * p_.table.strides[0] * esize;
        unsigned char* dst = out + RowOffset(p_.out, r) * esize;
        if (memcpy_rows) {
          std::memcpy(dst, src, static_cast<size_t>(p_.dim * esize));
          continue;
        }
        for (int64_t j = 0; j < p_.dim; ++j) {
          std::memcpy(dst + j * o_step * esize, src + j * w_step * esize,
                      static_cast<size_t>(esize));
        }
      }
    });
    return Status::Ok();
  }

 private:
  Problem p_;
  size_t index_offset_;
};

class DenseBackwardPlan : public Plan {
 public:
  DenseBackwardPlan(const Problem& p, WorkspaceBooking* workspace)
      : p_(p),
        target_(openaclnn::cpu::PlanningTarget()),
        index_offset_(workspace->Book(static_cast<size_t>(p.num_indices) * 8)),
        order_offset_(workspace->Book(static_cast<size_t>(p.num_indices) * 8)),
        bucket_offset_(workspace->Book(static_cast<size_t>(p.num_weights + 1) * 8)) {}

  const char* target_name() const override { return target_.name; }

  Status Run(const Bindings& bindings, void* workspace) const override {
    int64_t* index = WorkspaceBooking::At<int64_t>(workspace, index_offset_);
    int64_t* order = WorkspaceBooking::At<int64_t>(workspace, order_offset_);
    int64_t* bucket = WorkspaceBooking::At<int64_t>(workspace, bucket_offset_);
    OPENACLNN_RETURN_IF_ERROR(ReadIndices(p_, bindings.inputs[kIndices], OpName(p_.kind), index));
    // Counting sort: bucket[w] .. bucket[w + 1] are the positions of the indices equal to w.
    std::fill(bucket, bucket + p_.num_weights + 1, 0);
    for (int64_t r = 0; r < p_.num_indices; ++r) ++bucket[index[r] + 1];
    for (int64_t w = 0; w < p_.num_weights; ++w) bucket[w + 1] += bucket[w];
    for (int64_t r = 0; r < p_.num_indices; ++r) order[bucket[index[r]]++] = r;
    // bucket[w] now holds the end of bucket w: shift back to the starts.
    for (int64_t w = p_.num_weights; w > 0; --w) bucket[w] = bucket[w - 1];
    bucket[0] = 0;

    const void* grad = p_.table.First(static_cast<const void*>(bindings.inputs[kGrad]));
    void* out = p_.out.First(bindings.outputs[kOut]);
    const ElemType type = ToElemType(p_.table.dtype);
    const int64_t esize = static_cast<int64_t>(ElemSize(type));
    const int64_t g_step = p_.table.strides[p_.table.rank - 1];
    const int64_t o_step = p_.out.strides[1];
    const int64_t rows_per_chunk = RowsPerChunk(p_.dim);
    const int64_t chunks = (p_.num_weights + rows_per_chunk - 1) / rows_per_chunk;
    openaclnn::cpu::ParallelFor(chunks, [&](int64_t chunk) {
      std::vector<float> sum(static_cast<size_t>(p_.dim)), row(static_cast<size_t>(p_.dim));
      const int64_t end = std::min(p_.num_weights, (chunk + 1) * rows_per_chunk);
      for (int64_t w = chunk * rows_per_chunk; w < end; ++w) {
        std::fill(sum.begin(), sum.end(), 0.0f);
        const int64_t count = bucket[w + 1] - bucket[w];
        if (w != p_.padding_idx) {
          for (int64_t k = bucket[w]; k < bucket[w + 1]; ++k) {
            const auto* src =
                static_cast<const unsigned char*>(grad) + RowOffset(p_.table, order[k]) * esize;
            if (g_step == 1) {
              openaclnn::cpu::LoadFloatRun(target_, type, src, p_.dim, row.data());
            } else {
              for (int64_t j = 0; j < p_.dim; ++j) {
                row[j] = LoadAsFloat(src, p_.table.dtype, j * g_step);
              }
            }
            for (int64_t j = 0; j < p_.dim; ++j) sum[j] += row[j];
          }
          if (p_.scale_grad_by_freq && count > 1) {
            const float n = static_cast<float>(count);
            for (int64_t j = 0; j < p_.dim; ++j) sum[j] /= n;
          }
        }
        auto* dst = static_cast<unsigned char*>(out) + w * p_.out.strides[0] * esize;
        if (o_step == 1) {
          openaclnn::cpu::StoreFloatRun(target_, type, sum.data(), p_.dim, dst);
        } else {
          for (int64_t j = 0; j < p_.dim; ++j) {
            StoreFromFloat(dst, p_.out.dtype, j * o_step, sum[j]);
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  Problem p_;
  openaclnn::cpu::KernelTarget target_;
  size_t index_offset_, order_offset_, bucket_offset_;
};

}  // namespace

const char* FastDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace) {
  if (problem.kind == Kind::kForward) return std::make_unique<ForwardPlan>(problem, workspace);
  return std::make_unique<DenseBackwardPlan>(problem, workspace);
}

}  // namespace openaclnn::embedding::cpu

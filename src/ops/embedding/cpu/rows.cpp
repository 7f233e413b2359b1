// The CPU implementation of both embedding operators.
//
// Forward: the indices are read and checked once (into the workspace), then the out rows are
// copied in fixed chunks on the thread pool (memcpy when both rows are contiguous).
//
// Dense backward: the indices are read and checked. Out row w is the fp32 sum of the grad rows
// whose index is w, divided by their count when scaleGradByFreq is set, rounded once to out's
// dtype. Three ways to form the sums, chosen from the problem alone (so results are bitwise the
// same for any thread count):
// - split (many indices for few out rows, e.g. a small vocabulary): the positions are cut into a
//   fixed number of ranges; each range sums its grad rows, in increasing position, into its own
//   fp32 copy of the table in the workspace, and each out row adds the copies in range order.
//   grad is read once, in order, by all threads together.
// - scan (at most kMaxScanChunks chunks of out rows): each chunk walks all the indices in order
//   and sums the grad rows of its own out rows in increasing position.
// - sorted (more chunks): a stable counting sort of the indices gives each out row the list of
//   its positions, summed in increasing position (the same order as the scan).
#include <algorithm>
#include <cstring>
#include <vector>

#include "api/dtype.h"
#include "api/elem_type.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/float_runs.h"
#include "kernels/cpu/gemm_rows.h"
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
    OPENACLNN_RETURN_IF_ERROR(ReadIndices(p_, bindings.inputs[kIndices], index));
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

// Chunks of out rows up to which each chunk scans all the indices (see DenseBackwardPlan).
constexpr int64_t kMaxScanChunks = 8;
// The split form: positions per range (at least), ranges (at most), the workspace its table
// copies may take, and how many indices per out row it needs to be chosen.
constexpr int64_t kSplitPositions = 8192;
constexpr int64_t kMaxSplitRanges = 16;
constexpr int64_t kMaxSplitBytes = int64_t{8} << 20;
constexpr int64_t kSplitIndicesPerRow = 8;

// Ranges of the split form for this problem, or 0 when the problem does not take it.
int64_t SplitRanges(const Problem& p) {
  if (p.num_indices < kSplitIndicesPerRow * p.num_weights) return 0;
  const int64_t table_bytes = p.num_weights * std::max<int64_t>(p.dim, 1) * 4;
  int64_t ranges = std::min(kMaxSplitRanges, p.num_indices / kSplitPositions);
  while (ranges > 1 && ranges * table_bytes > kMaxSplitBytes) --ranges;
  return ranges >= 2 ? ranges : 0;
}

class DenseBackwardPlan : public Plan {
 public:
  DenseBackwardPlan(const Problem& p, WorkspaceBooking* workspace)
      : p_(p),
        target_(openaclnn::cpu::PlanningTarget()),
        rows_per_chunk_(RowsPerChunk(p.dim)),
        chunks_((p.num_weights + rows_per_chunk_ - 1) / rows_per_chunk_),
        split_ranges_(SplitRanges(p)),
        scan_(split_ranges_ == 0 && chunks_ <= kMaxScanChunks),
        index_offset_(workspace->Book(static_cast<size_t>(p.num_indices) * 8)) {
    if (split_ranges_ > 0) {
      const auto copies = static_cast<size_t>(split_ranges_ * p.num_weights);
      split_sums_offset_ = workspace->Book(copies * static_cast<size_t>(p.dim) * sizeof(float));
      split_counts_offset_ = workspace->Book(copies * sizeof(int64_t));
    } else if (!scan_) {
      order_offset_ = workspace->Book(static_cast<size_t>(p.num_indices) * 8);
      bucket_offset_ = workspace->Book(static_cast<size_t>(p.num_weights + 1) * 8);
    }
  }

  const char* target_name() const override { return target_.name; }

  Status Run(const Bindings& bindings, void* workspace) const override {
    int64_t* index = WorkspaceBooking::At<int64_t>(workspace, index_offset_);
    OPENACLNN_RETURN_IF_ERROR(ReadIndices(p_, bindings.inputs[kIndices], index));
    const void* grad = p_.table.First(static_cast<const void*>(bindings.inputs[kGrad]));
    void* out = p_.out.First(bindings.outputs[kOut]);
    if (split_ranges_ > 0) {
      RunSplit(index, WorkspaceBooking::At<float>(workspace, split_sums_offset_),
               WorkspaceBooking::At<int64_t>(workspace, split_counts_offset_), grad, out);
    } else if (scan_) {
      RunScan(index, grad, out);
    } else {
      RunSorted(index, WorkspaceBooking::At<int64_t>(workspace, order_offset_),
                WorkspaceBooking::At<int64_t>(workspace, bucket_offset_), grad, out);
    }
    return Status::Ok();
  }

 private:
  // acc[j] += grad row r (of the [num_indices, dim] view), element j widened to fp32; `scratch`
  // holds dim floats.
  void AddGradRow(const void* grad, int64_t r, float* acc, float* scratch) const {
    const int64_t g_step = p_.table.strides[p_.table.rank - 1];
    const auto* src = static_cast<const unsigned char*>(grad) +
                      RowOffset(p_.table, r) * static_cast<int64_t>(DTypeSize(p_.table.dtype));
    if (g_step == 1 && p_.table.dtype == ACL_FLOAT) {
      openaclnn::cpu::AccumulateRow(target_, reinterpret_cast<const float*>(src), p_.dim, acc);
      return;
    }
    if (g_step == 1) {
      openaclnn::cpu::LoadFloatRun(target_, ToElemType(p_.table.dtype), src, p_.dim, scratch);
    } else {
      for (int64_t j = 0; j < p_.dim; ++j) {
        scratch[j] = LoadAsFloat(src, p_.table.dtype, j * g_step);
      }
    }
    openaclnn::cpu::AccumulateRow(target_, scratch, p_.dim, acc);
  }

  // Out row w from its fp32 sum of `count` grad rows (divided by count with scaleGradByFreq),
  // rounded once.
  void StoreOutRow(void* out, int64_t w, float* sum, int64_t count) const {
    if ((count == 0 || w == p_.padding_idx) && p_.out.strides[1] == 1) {
      // Nothing added (most rows of a large vocabulary): +0 is all-zero bits in every dtype.
      const int64_t esize = static_cast<int64_t>(DTypeSize(p_.out.dtype));
      std::memset(static_cast<unsigned char*>(out) + w * p_.out.strides[0] * esize, 0,
                  static_cast<size_t>(p_.dim * esize));
      return;
    }
    if (p_.scale_grad_by_freq && count > 1) {
      const float n = static_cast<float>(count);
      for (int64_t j = 0; j < p_.dim; ++j) sum[j] /= n;
    }
    const int64_t o_step = p_.out.strides[1];
    auto* dst = static_cast<unsigned char*>(out) +
                w * p_.out.strides[0] * static_cast<int64_t>(DTypeSize(p_.out.dtype));
    if (o_step == 1) {
      openaclnn::cpu::StoreFloatRun(target_, ToElemType(p_.out.dtype), sum, p_.dim, dst);
    } else {
      for (int64_t j = 0; j < p_.dim; ++j) StoreFromFloat(dst, p_.out.dtype, j * o_step, sum[j]);
    }
  }

  // Many indices for few out rows: each range of positions sums into its own table copy, then each
  // out row adds the copies in range order.
  void RunSplit(const int64_t* index, float* sums, int64_t* counts, const void* grad,
                void* out) const {
    const int64_t per_range = (p_.num_indices + split_ranges_ - 1) / split_ranges_;
    const int64_t table = p_.num_weights * p_.dim;
    openaclnn::cpu::ParallelFor(split_ranges_, [&](int64_t range) {
      float* sum = sums + range * table;
      int64_t* count = counts + range * p_.num_weights;
      std::fill(sum, sum + table, 0.0f);
      std::fill(count, count + p_.num_weights, int64_t{0});
      std::vector<float> row(static_cast<size_t>(p_.dim));
      const int64_t end = std::min(p_.num_indices, (range + 1) * per_range);
      for (int64_t r = range * per_range; r < end; ++r) {
        const int64_t w = index[r];
        ++count[w];
        if (w != p_.padding_idx) AddGradRow(grad, r, sum + w * p_.dim, row.data());
      }
    });
    openaclnn::cpu::ParallelFor(chunks_, [&](int64_t chunk) {
      std::vector<float> total(static_cast<size_t>(p_.dim));
      const int64_t end = std::min(p_.num_weights, (chunk + 1) * rows_per_chunk_);
      for (int64_t w = chunk * rows_per_chunk_; w < end; ++w) {
        std::copy(sums + w * p_.dim, sums + (w + 1) * p_.dim, total.begin());
        int64_t count = counts[w];
        for (int64_t range = 1; range < split_ranges_; ++range) {
          openaclnn::cpu::AccumulateRow(target_, sums + range * table + w * p_.dim, p_.dim,
                                        total.data());
          count += counts[range * p_.num_weights + w];
        }
        StoreOutRow(out, w, total.data(), count);
      }
    });
  }

  // Few chunks: each chunk walks every index in increasing position and adds the grad rows of its
  // own out rows into fp32 accumulators (grad read in order, no sort).
  void RunScan(const int64_t* index, const void* grad, void* out) const {
    openaclnn::cpu::ParallelFor(chunks_, [&](int64_t chunk) {
      const int64_t lo = chunk * rows_per_chunk_;
      const int64_t hi = std::min(p_.num_weights, lo + rows_per_chunk_);
      std::vector<float> sum(static_cast<size_t>((hi - lo) * p_.dim), 0.0f);
      std::vector<float> row(static_cast<size_t>(p_.dim));
      std::vector<int64_t> count(static_cast<size_t>(hi - lo), 0);
      for (int64_t r = 0; r < p_.num_indices; ++r) {
        const int64_t w = index[r];
        if (w < lo || w >= hi) continue;
        ++count[w - lo];
        if (w == p_.padding_idx) continue;
        AddGradRow(grad, r, sum.data() + (w - lo) * p_.dim, row.data());
      }
      for (int64_t w = lo; w < hi; ++w) {
        StoreOutRow(out, w, sum.data() + (w - lo) * p_.dim, count[w - lo]);
      }
    });
  }

  // Many chunks: a stable counting sort of the indices, then each out row sums its bucket's grad
  // rows in increasing position (the same order as the scan).
  void RunSorted(const int64_t* index, int64_t* order, int64_t* bucket, const void* grad,
                 void* out) const {
    // bucket[w] .. bucket[w + 1] are the positions of the indices equal to w.
    std::fill(bucket, bucket + p_.num_weights + 1, 0);
    for (int64_t r = 0; r < p_.num_indices; ++r) ++bucket[index[r] + 1];
    for (int64_t w = 0; w < p_.num_weights; ++w) bucket[w + 1] += bucket[w];
    for (int64_t r = 0; r < p_.num_indices; ++r) order[bucket[index[r]]++] = r;
    // bucket[w] now holds the end of bucket w: shift back to the starts.
    for (int64_t w = p_.num_weights; w > 0; --w) bucket[w] = bucket[w - 1];
    bucket[0] = 0;
    openaclnn::cpu::ParallelFor(chunks_, [&](int64_t chunk) {
      std::vector<float> sum(static_cast<size_t>(p_.dim)), row(static_cast<size_t>(p_.dim));
      const int64_t end = std::min(p_.num_weights, (chunk + 1) * rows_per_chunk_);
      for (int64_t w = chunk * rows_per_chunk_; w < end; ++w) {
        std::fill(sum.begin(), sum.end(), 0.0f);
        if (w != p_.padding_idx) {
          for (int64_t k = bucket[w]; k < bucket[w + 1]; ++k) {
            AddGradRow(grad, order[k], sum.data(), row.data());
          }
        }
        StoreOutRow(out, w, sum.data(), bucket[w + 1] - bucket[w]);
      }
    });
  }

  Problem p_;
  openaclnn::cpu::KernelTarget target_;
  int64_t rows_per_chunk_, chunks_;
  int64_t split_ranges_;  // > 0: the split form with this many ranges of positions
  bool scan_;
  size_t index_offset_, order_offset_ = 0, bucket_offset_ = 0;
  size_t split_sums_offset_ = 0, split_counts_offset_ = 0;
};

}  // namespace

const char* FastDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace) {
  if (problem.kind == Kind::kForward) return std::make_unique<ForwardPlan>(problem, workspace);
  return std::make_unique<DenseBackwardPlan>(problem, workspace);
}

}  // namespace openaclnn::embedding::cpu

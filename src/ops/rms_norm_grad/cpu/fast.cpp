// The fast CPU RmsNormGrad: fixed chunks of rows on the thread pool. Each chunk writes its rows'
// dx and an fp32 partial of dgamma (its rows summed in order); dgamma is then the partials summed
// in chunk order per column. The chunks depend on the problem only, so every thread count gives
// the same bits. Views are read in place through their strides; dx is rounded once from fp32.
#include <algorithm>
#include <vector>

#include "api/dtype.h"
#include "backend/cpu/thread_pool.h"
#include "ops/rms_norm/rows.h"
#include "ops/rms_norm_grad/problem.h"

namespace openaclnn::rms_norm_grad::cpu {
namespace {

using rms_norm::ForRow;
using rms_norm::LinearOffset;
using rms_norm::LoadRow;
using rms_norm::RowBase;
using rms_norm::RowsPerChunk;
using rms_norm::StoreRow;

constexpr int64_t kSerialElements = int64_t{1} << 17;
constexpr int64_t kColumnBlock = 4096;  // dgamma columns per task of the final sum

class FastPlan : public Plan {
 public:
  FastPlan(const Problem& p, size_t partial_offset)
      : p_(p),
        rows_per_chunk_(RowsPerChunk(p.m, p.n)),
        partial_offset_(partial_offset),
        target_(openaclnn::cpu::PlanningTarget()) {}

  int64_t Chunks() const { return (p_.m + rows_per_chunk_ - 1) / rows_per_chunk_; }

  const char* target_name() const override { return target_.name; }

  Status Run(const Bindings& b, void* workspace) const override {
    const Problem& p = p_;
    const void* dy = p.dy.First(static_cast<const void*>(b.inputs[kDy]));
    const void* x = p.x.First(static_cast<const void*>(b.inputs[kX]));
    const float* rstd =
        static_cast<const float*>(p.rstd.First(static_cast<const void*>(b.inputs[kRstd])));
    const void* g = p.gamma.First(static_cast<const void*>(b.inputs[kGamma]));
    void* dx = p.dx.First(b.outputs[kDx]);
    float* dg = static_cast<float*>(p.dgamma.First(b.outputs[kDgamma]));
    float* partials = WorkspaceBooking::At<float>(workspace, partial_offset_);
    const int64_t chunks = Chunks();
    const size_t n = static_cast<size_t>(p.n);
    const bool serial = p.m * p.n <= kSerialElements;

    auto chunk = [&](int64_t c) {
      std::vector<float> w(n), xs(n), dys(n);
      ForRow(p.gamma, 0, 0, p.n, [&](int64_t i, int64_t off) {
        w[static_cast<size_t>(i)] = LoadAsFloat(g, p.gamma.dtype, off);
      });
      float* part = partials + static_cast<size_t>(c) * n;
      std::fill(part, part + n, 0.0f);
      const int64_t m0 = c * rows_per_chunk_;
      const int64_t m1 = std::min(p.m, m0 + rows_per_chunk_);
      const float inv_n = 1.0f / static_cast<float>(p.n);
      for (int64_t m = m0; m < m1; ++m) {
        const float r = rstd[LinearOffset(p.rstd, m)];
        LoadRow(target_, p.x, x, p.begin, m, p.n, xs.data());
        LoadRow(target_, p.dy, dy, p.begin, m, p.n, dys.data());
        const float sum_ax = rms_norm::RowDot(dys.data(), w.data(), xs.data(), p.n);
        const float coef = r * r * (sum_ax * inv_n);
        for (size_t k = 0; k < n; ++k) {
          part[k] += dys[k] * xs[k] * r;
          dys[k] = r * (dys[k] * w[k] - xs[k] * coef);  // dx, in place of dy
        }
        StoreRow(target_, p.dx, dx, p.begin, m, p.n, dys.data());
      }
    };
    if (serial) {
      for (int64_t c = 0; c < chunks; ++c) chunk(c);
    } else if (chunks > 0) {
      openaclnn::cpu::ParallelFor(chunks, chunk);
    }

    // dgamma: per column, the chunk partials in chunk order (M == 0: zeros).
    const int64_t blocks = (p.n + kColumnBlock - 1) / kColumnBlock;
    auto columns = [&](int64_t blk) {
      const int64_t c0 = blk * kColumnBlock;
      const int64_t c1 = std::min(p.n, c0 + kColumnBlock);
      std::vector<float> sum(static_cast<size_t>(c1 - c0), 0.0f);
      for (int64_t c = 0; c < chunks; ++c) {
        const float* part = partials + static_cast<size_t>(c) * n;
        for (int64_t i = c0; i < c1; ++i) sum[static_cast<size_t>(i - c0)] += part[i];
      }
      for (int64_t i = c0; i < c1; ++i) {
        dg[LinearOffset(p.dgamma, i)] = sum[static_cast<size_t>(i - c0)];
      }
    };
    if (serial || blocks == 1) {
      for (int64_t blk = 0; blk < blocks; ++blk) columns(blk);
    } else {
      openaclnn::cpu::ParallelFor(blocks, columns);
    }
    return Status::Ok();
  }

 private:
  const Problem p_;
  const int64_t rows_per_chunk_;
  const size_t partial_offset_;
  const openaclnn::cpu::KernelTarget target_;  // phase 1's SIMD target for the row loads/stores
};

}  // namespace

const char* FastDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace) {
  const int64_t rows = RowsPerChunk(problem.m, problem.n);
  const int64_t chunks = (problem.m + rows - 1) / rows;
  const size_t bytes = static_cast<size_t>(chunks) * static_cast<size_t>(problem.n) * sizeof(float);
  const size_t offset = bytes > 0 ? workspace->Book(bytes) : 0;
  return std::make_unique<FastPlan>(problem, offset);
}

}  // namespace openaclnn::rms_norm_grad::cpu

// The fast CPU RmsNorm: fixed chunks of rows on the thread pool; per row the sum of squares is
// accumulated in fp32 in element order, so every thread count gives the same bits. Views are
// read in place through their strides; 16-bit outputs are rounded once from fp32.
#include <algorithm>
#include <cmath>
#include <vector>

#include "api/dtype.h"
#include "backend/cpu/thread_pool.h"
#include "ops/rms_norm/problem.h"
#include "ops/rms_norm/rows.h"

namespace openaclnn::rms_norm::cpu {
namespace {

// Problems this small run their chunks on the calling thread (same chunks, same bits).
constexpr int64_t kSerialElements = int64_t{1} << 17;

class FastPlan : public Plan {
 public:
  explicit FastPlan(const Problem& p)
      : p_(p), rows_per_chunk_(RowsPerChunk(p.m, p.n)), target_(openaclnn::cpu::PlanningTarget()) {}

  const char* target_name() const override { return target_.name; }

  Status Run(const Bindings& b, void* /*workspace*/) const override {
    const Problem& p = p_;
    const void* x = p.x.First(static_cast<const void*>(b.inputs[kX]));
    const void* g = p.gamma.First(static_cast<const void*>(b.inputs[kGamma]));
    void* y = p.y.First(b.outputs[kY]);
    float* rstd = static_cast<float*>(p.rstd.First(b.outputs[kRstd]));
    const int64_t chunks = (p.m + rows_per_chunk_ - 1) / rows_per_chunk_;
    auto chunk = [&](int64_t c) {
      std::vector<float> w(static_cast<size_t>(p.n));
      std::vector<float> row(static_cast<size_t>(p.n));
      ForRow(p.gamma, 0, 0, p.n, [&](int64_t i, int64_t off) {
        w[static_cast<size_t>(i)] = LoadAsFloat(g, p.gamma.dtype, off);
      });
      const int64_t m0 = c * rows_per_chunk_;
      const int64_t m1 = std::min(p.m, m0 + rows_per_chunk_);
      const float inv_n = 1.0f / static_cast<float>(p.n);
      for (int64_t m = m0; m < m1; ++m) {
        LoadRow(target_, p.x, x, p.begin, m, p.n, row.data());
        const float ss = RowDot(row.data(), row.data(), nullptr, p.n);
        const float rs =
            static_cast<float>(1.0 / std::sqrt(static_cast<double>(ss * inv_n) + p.epsilon));
        rstd[LinearOffset(p.rstd, m)] = rs;
        for (size_t k = 0; k < row.size(); ++k) row[k] = row[k] * rs * w[k];
        StoreRow(target_, p.y, y, p.begin, m, p.n, row.data());
      }
    };
    if (p.m * p.n <= kSerialElements) {
      for (int64_t c = 0; c < chunks; ++c) chunk(c);
    } else {
      openaclnn::cpu::ParallelFor(chunks, chunk);
    }
    return Status::Ok();
  }

 private:
  const Problem p_;
  const int64_t rows_per_chunk_;
  const openaclnn::cpu::KernelTarget target_;  // phase 1's SIMD target for the row loads/stores
};

}  // namespace

const char* FastDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking*) {
  return std::make_unique<FastPlan>(problem);
}

}  // namespace openaclnn::rms_norm::cpu

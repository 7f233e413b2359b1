// aclnnLayerNorm (forward) on the LayerNorm shapes of issue 3, FLOAT and BFLOAT16 (with FLOAT
// weight and bias), writing out (input dtype), mean and rstd (FLOAT, as torch_npu asks). For each
// shape: the median time of phase 2 plus synchronisation on a repeatable executor; GB/s counting
// x and out at M*N in their dtype, mean and rstd at M and weight and bias at N (FLOAT); the floor,
// i.e. those bytes at the bandwidth of a one-read-one-write stream kernel (out = x * s) run in the
// same process on the same buffers and threads (the faster of ordinary and non-temporal stores);
// and, with --torch_results=FILE (written by bench/bench_layer_norm_forward.py), PyTorch's
// native_layer_norm on the same shapes. Phase 1 alone is timed on a contiguous 3-D problem.
//
//   bench_layer_norm [--quick] [--shape=INDEX] [--torch_results=FILE]
// --quick: four shapes, short repetitions (the README's main job); --shape: one shape only.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "bench_common.h"

namespace {

using Shape = openaclnn::bench::LayerNormShape;
const auto& kShapes = openaclnn::bench::kLayerNormShapes;
const auto& kQuickShapes = openaclnn::bench::kLayerNormQuickShapes;

double Bytes(const Shape& s, aclDataType dtype) {
  const double m = static_cast<double>(s.M()), n = static_cast<double>(s.N());
  return 2 * m * n * openaclnn::DTypeSize(dtype) + 2 * m * 4 + 2 * n * 4;
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Median over `reps` of the mean time of one call, each repetition running for at least
// `min_time` seconds.
double MedianSeconds(const std::function<void()>& fn, int reps, double min_time) {
  fn();  // warm-up: first touch, caches
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    int calls = 0;
    const double t0 = Now();
    double t1 = t0;
    do {
      fn();
      ++calls;
      t1 = Now();
    } while (t1 - t0 < min_time);
    times.push_back((t1 - t0) / calls);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

aclTensor* Make(const std::vector<int64_t>& dims, aclDataType dt, void* data) {
  return aclCreateTensor(dims.data(), dims.size(), dt, nullptr, 0, ACL_FORMAT_ND, dims.data(),
                         dims.size(), data);
}

struct Result {
  double ours = 0, floor = 0;
};

Result Measure(const Shape& s, aclDataType dt, aclrtStream stream, int reps, double min_time) {
  const int64_t m = s.M(), n = s.N();
  const size_t data_bytes = static_cast<size_t>(m * n) * openaclnn::DTypeSize(dt);
  void *x = nullptr, *y = nullptr, *mean = nullptr, *rstd = nullptr, *w = nullptr, *b = nullptr;
  aclrtMalloc(&x, std::max<size_t>(data_bytes, 64), ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&y, std::max<size_t>(data_bytes, 64), ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&mean, m * 4 + 64, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&rstd, m * 4 + 64, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&w, n * 4 + 64, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&b, n * 4 + 64, ACL_MEM_MALLOC_HUGE_FIRST);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t i = 0; i < m * n; ++i) {
    openaclnn::StoreFromFloat(x, dt, i, 1.5f * u(rng) - 0.5f);
    openaclnn::StoreFromFloat(y, dt, i, 0.0f);
  }
  for (int64_t c = 0; c < n; ++c) {
    static_cast<float*>(w)[c] = 1.0f + 0.1f * u(rng);
    static_cast<float*>(b)[c] = 0.1f * u(rng);
  }
  std::vector<int64_t> stat_dims(s.dims.begin(), s.dims.end() - s.norm_len);
  stat_dims.resize(s.dims.size(), 1);
  const std::vector<int64_t> norm(s.dims.end() - s.norm_len, s.dims.end());
  aclTensor* tx = Make(s.dims, dt, x);
  aclTensor* ty = Make(s.dims, dt, y);
  aclTensor* tm = Make(stat_dims, ACL_FLOAT, mean);
  aclTensor* tr = Make(stat_dims, ACL_FLOAT, rstd);
  aclTensor* tw = Make(norm, ACL_FLOAT, w);
  aclTensor* tb = Make(norm, ACL_FLOAT, b);
  aclIntArray* na = aclCreateIntArray(norm.data(), norm.size());
  Result r;
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  if (aclnnLayerNormGetWorkspaceSize(tx, na, tw, tb, 1e-5, ty, tm, tr, &ws, &ex) == 0 &&
      aclSetAclOpExecutorRepeatable(ex) == 0) {
    void* workspace = nullptr;
    if (ws > 0) aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    r.ours = MedianSeconds(
        [&] {
          aclnnLayerNorm(workspace, ws, ex, stream);
          aclrtSynchronizeStream(stream);
        },
        reps, min_time);
    aclDestroyAclOpExecutor(ex);
    if (workspace != nullptr) aclrtFree(workspace);
  } else {
    std::fprintf(stderr, "%s: %s\n", s.Label().c_str(), aclGetRecentErrMsg());
  }

  // The floor: out = x * s over the same buffers, fixed 64 KiB blocks over the pool's threads.
  const int64_t count = static_cast<int64_t>(data_bytes / sizeof(float));
  const float* a = static_cast<const float*>(x);
  float* c = static_cast<float*>(y);
  constexpr int64_t kBlock = 1 << 14;
  const int64_t tasks = (count + kBlock - 1) / kBlock;
  double best = 1e30;
  for (bool nt : {false, true}) {
    best = std::min(best, MedianSeconds(
                              [&] {
                                openaclnn::cpu::ParallelFor(tasks, [&](int64_t t) {
                                  const int64_t end = std::min(count, (t + 1) * kBlock);
                                  int64_t i = t * kBlock;
                                  const __m128 k = _mm_set1_ps(1.0001f);
                                  if (nt && (reinterpret_cast<uintptr_t>(c + i) & 15) == 0) {
                                    for (; i + 4 <= end; i += 4) {
                                      _mm_stream_ps(c + i, _mm_mul_ps(_mm_loadu_ps(a + i), k));
                                    }
                                    _mm_sfence();
                                  }
                                  for (; i < end; ++i) c[i] = a[i] * 1.0001f;
                                });
                              },
                              reps, min_time));
  }
  // Seconds the op's bytes would take at the stream kernel's bandwidth.
  r.floor = best * Bytes(s, dt) / (2.0 * static_cast<double>(data_bytes));

  for (aclTensor* t : {tx, ty, tm, tr, tw, tb}) aclDestroyTensor(t);
  aclDestroyIntArray(na);
  for (void* p : {x, y, mean, rstd, w, b}) aclrtFree(p);
  return r;
}

// Phase 1 alone: a contiguous [4, 512, 768] FLOAT problem with every output.
double MeasurePhase1() {
  const std::vector<int64_t> dims = {4, 512, 768}, stat = {4, 512, 1}, norm = {768};
  void* dummy = nullptr;
  aclrtMalloc(&dummy, 4 * 512 * 768 * 4, ACL_MEM_MALLOC_HUGE_FIRST);
  aclTensor* tx = Make(dims, ACL_FLOAT, dummy);
  aclTensor* ty = Make(dims, ACL_FLOAT, dummy);
  aclTensor* tm = Make(stat, ACL_FLOAT, dummy);
  aclTensor* tr = Make(stat, ACL_FLOAT, dummy);
  aclTensor* tw = Make(norm, ACL_FLOAT, dummy);
  aclTensor* tb = Make(norm, ACL_FLOAT, dummy);
  aclIntArray* na = aclCreateIntArray(norm.data(), 1);
  std::vector<double> times;
  for (int i = 0; i < 2000; ++i) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    const double t0 = Now();
    aclnnLayerNormGetWorkspaceSize(tx, na, tw, tb, 1e-5, ty, tm, tr, &ws, &ex);
    times.push_back(Now() - t0);
    aclSetAclOpExecutorRepeatable(ex);
    aclDestroyAclOpExecutor(ex);
  }
  for (aclTensor* t : {tx, ty, tm, tr, tw, tb}) aclDestroyTensor(t);
  aclDestroyIntArray(na);
  aclrtFree(dummy);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  openaclnn::bench::TableBenchArgs args;
  if (!openaclnn::bench::ParseTableBenchArgs(argc, argv, &args)) return 2;
  const bool quick = args.quick;
  const int only_shape = args.only_shape;
  const std::string& torch_path = args.torch_path;
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  const std::vector<int> shapes =
      openaclnn::bench::SelectShapes(static_cast<int>(std::size(kShapes)), quick, only_shape,
                                     {std::begin(kQuickShapes), std::end(kQuickShapes)});
  const int reps = quick ? 3 : 7;
  const double min_time = quick ? 0.05 : 0.2;
  openaclnn::bench::TorchColumn torch(torch_path);

  std::printf("openaclnn LayerNorm forward, %d threads, ISA %s; PyTorch: %s\n\n",
              openaclnn::cpu::NumThreads(), openaclnn::cpu::ActiveIsa().c_str(), torch.Describe());
  std::printf(
      "| shape (M, N) | dtype | openaclnn ms | GB/s | floor GB/s | of floor | PyTorch ms "
      "| PyTorch / ours |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
  double min_floor = 1e9;
  for (int si : shapes) {
    for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
      const Shape& s = kShapes[si];
      const Result r = Measure(s, dt, stream, reps, min_time);
      if (r.ours <= 0) continue;
      const double bytes = Bytes(s, dt);
      const double gbs = bytes / r.ours / 1e9, floor_gbs = bytes / r.floor / 1e9;
      min_floor = std::min(min_floor, gbs / floor_gbs);
      const auto torch_cells =
          torch.Cells(std::to_string(si) + "/" + (dt == ACL_BF16 ? "bf16" : "f32"), r.ours);
      std::printf("| %s | %s | %.3f | %.1f | %.1f | %.0f %% | %s | %s |\n", s.Label().c_str(),
                  dt == ACL_BF16 ? "BF16" : "FLOAT", r.ours * 1e3, gbs, floor_gbs,
                  100.0 * gbs / floor_gbs, torch_cells.ms.c_str(), torch_cells.ratio.c_str());
      std::fflush(stdout);
    }
  }
  if (torch.booked() > 0) {
    std::printf("\ngeometric mean speed-up over PyTorch: %.2fx\n", torch.GeometricMean());
  }
  std::printf("lowest fraction of the floor: %.0f %%\n", 100 * min_floor);
  std::printf("phase 1, contiguous 3-D problem: %.2f us\n", MeasurePhase1() * 1e6);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

// The matmul family on the products of a transformer block (hidden 1024, 16 heads of 64, MLP
// 4096, 2048 tokens; and one decode step), FLOAT and BFLOAT16: each projection as a torch Linear
// calls it (aclnnAddmm or aclnnMatmul with weight.t() passed as a view, no copy), the attention
// products through aclnnBatchMatMul. For each: the median time of phase 2 plus synchronisation,
// GFLOP/s (2 M N K per product), the fraction of the same-run fp32 FMA peak of the pool's threads
// (bench_common.h; BFLOAT16 products run at up to twice that on CPUs with native BF16 dot
// products), and, with --torch_results=FILE (written by bench/bench_matmul.py), PyTorch's time
// for the same call on the same shapes and threads.
//
//   bench_matmul [--quick] [--shape=INDEX] [--torch_results=FILE]
// The last line sums the table up for scripts: "matmul: median ...".
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "bench_common.h"
#include "kernels/cpu/gemm.h"
#include "stream_floor.h"

namespace {

enum class Kind {
  kLinearBias,  // aclnnAddmm(bias, x, w): x [M, K], w [K, N] (weight.t() when b_transposed)
  kLinear,      // aclnnMatmul(x, w)
  kMm,          // aclnnMm(a, b), a [M, K] (x.t() of an [K, M] x when a_transposed), b as above
  kBatch,       // aclnnBatchMatMul(a [B, M, K], b [B, K, N]), b stored as given by `b_transposed`
};

struct Shape {
  const char* label;
  Kind kind;
  int64_t batch, m, n, k;
  bool b_transposed;          // b is a transposed view of [B, N, K] (weight.t(), q @ k^T, dy W^T)
  bool a_transposed = false;  // a is a transposed view of [K, M] (x^T dy)
  // kBatch only: which of a (1), b (2) and c (4) are head views as train_transformer_block makes
  // them: batch item i of a [B, M, K] view at offset i * K with rows B * K apart (the heads of
  // sequence-major token rows, [S * batch, heads * head_dim]); the others are contiguous.
  int head_views = 0;
};
// The Python script has the same list; --quick runs the first one.
const Shape kShapes[] = {
    {"QKV projection", Kind::kLinearBias, 1, 2048, 3072, 1024, true},
    {"attention output", Kind::kLinearBias, 1, 2048, 1024, 1024, true},
    {"MLP up", Kind::kLinearBias, 1, 2048, 4096, 1024, true},
    {"MLP down", Kind::kLinearBias, 1, 2048, 1024, 4096, true},
    {"scores q @ k^T", Kind::kBatch, 16, 512, 512, 64, true},
    {"probs @ v", Kind::kBatch, 16, 512, 64, 512, false},
    {"decode MLP up", Kind::kLinear, 1, 1, 4096, 1024, true},
    {"LM head", Kind::kLinear, 1, 256, 32000, 1024, true},
    // The products of one training step of examples/train_transformer_block at the shapes of
    // bench/bench_train_block.py (1024 tokens, d_model 256, d_ff 1024, 4 heads of 64, 64 x 16
    // sequences): x W + b with W [in, out], the weight gradients x^T dy and the input gradients
    // dy W^T (transposed views), and the attention scores per head.
    {"block: x W + b", Kind::kLinearBias, 1, 1024, 256, 256, false},
    {"block: MLP up x W1 + b1", Kind::kLinearBias, 1, 1024, 1024, 256, false},
    {"block: MLP down h W2 + b2", Kind::kLinearBias, 1, 1024, 256, 1024, false},
    {"block: dW = x^T dy", Kind::kMm, 1, 256, 256, 1024, false, true},
    {"block: dW1 = x^T dh", Kind::kMm, 1, 256, 1024, 1024, false, true},
    {"block: dW2 = h^T dy", Kind::kMm, 1, 1024, 256, 1024, false, true},
    {"block: dx = dy W^T", Kind::kMm, 1, 1024, 256, 256, true},
    {"block: dx = dh W1^T", Kind::kMm, 1, 1024, 256, 1024, true},
    {"block: dh = dy W2^T", Kind::kMm, 1, 1024, 1024, 256, true},
    {"block: scores q @ k^T", Kind::kBatch, 64, 64, 64, 64, true},
    // The example's own attention products: q, k, v and ctx are head views of [1024, 256].
    {"block: scores, head views", Kind::kBatch, 64, 64, 64, 64, true, false, 1 | 2},
    {"block: probs @ v, head views", Kind::kBatch, 64, 64, 64, 64, false, false, 2 | 4},
};

void* Alloc(size_t bytes) {
  void* p = nullptr;
  aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  return p;
}

aclTensor* View(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                aclDataType dt, void* data, int64_t elements) {
  return aclCreateTensor(dims.data(), dims.size(), dt, strides.data(), 0, ACL_FORMAT_ND, &elements,
                         1, data);
}

void FillRandom(void* data, aclDataType dt, int64_t n, std::mt19937* rng) {
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t i = 0; i < n; ++i) openaclnn::StoreFromFloat(data, dt, i, u(*rng));
}

// Median seconds of phase 2 + synchronisation, or -1 when phase 1 fails.
double Measure(const Shape& s, aclDataType dt, aclrtStream stream, int min_calls, double seconds) {
  std::mt19937 rng(1);
  const int64_t a_n = s.batch * s.m * s.k, b_n = s.batch * s.k * s.n, c_n = s.batch * s.m * s.n;
  const size_t esize = openaclnn::DTypeSize(dt);
  void* a = Alloc(a_n * esize);
  void* b = Alloc(b_n * esize);
  void* c = Alloc(c_n * esize);
  void* bias = Alloc(s.n * esize);
  FillRandom(a, dt, a_n, &rng);
  FillRandom(b, dt, b_n, &rng);
  FillRandom(bias, dt, s.n, &rng);
  aclTensor *ta = nullptr, *tb = nullptr, *tc = nullptr, *tbias = nullptr;
  aclScalar* one = nullptr;
  float one_value = 1.0f;
  aclOpExecutor* ex = nullptr;
  uint64_t ws = 0;
  aclnnStatus st = 0;
  aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream) = nullptr;
  if (s.kind == Kind::kBatch) {
    // A [B, rows, cols] matrix stack, contiguous or as head views (item i at i * cols, rows
    // B * cols apart); `transposed`: the transpose of such a [B, cols, rows] stack.
    const auto stack = [&](int bit, int64_t rows, int64_t cols, bool transposed, void* data,
                           int64_t n) {
      const int64_t r = transposed ? cols : rows, c = transposed ? rows : cols;
      std::vector<int64_t> strides = (s.head_views & bit) != 0
                                         ? std::vector<int64_t>{c, s.batch * c, 1}
                                         : std::vector<int64_t>{r * c, c, 1};
      if (transposed) std::swap(strides[1], strides[2]);
      return View({s.batch, rows, cols}, strides, dt, data, n);
    };
    ta = stack(1, s.m, s.k, false, a, a_n);
    // b as [B, K, N]: stored [B, N, K] (k^T) or [B, K, N].
    tb = stack(2, s.k, s.n, s.b_transposed, b, b_n);
    tc = stack(4, s.m, s.n, false, c, c_n);
    st = aclnnBatchMatMulGetWorkspaceSize(ta, tb, tc, 0, &ws, &ex);
    phase2 = aclnnBatchMatMul;
  } else {
    ta = s.a_transposed ? View({s.m, s.k}, {1, s.m}, dt, a, a_n)  // x [K, M] seen as x.t()
                        : View({s.m, s.k}, {s.k, 1}, dt, a, a_n);
    tb = s.b_transposed ? View({s.k, s.n}, {1, s.k}, dt, b, b_n)  // weight [N, K] as weight.t()
                        : View({s.k, s.n}, {s.n, 1}, dt, b, b_n);
    tc = View({s.m, s.n}, {s.n, 1}, dt, c, c_n);
    if (s.kind == Kind::kMm) {
      st = aclnnMmGetWorkspaceSize(ta, tb, tc, 0, &ws, &ex);
      phase2 = aclnnMm;
    } else if (s.kind == Kind::kLinearBias) {
      tbias = View({s.n}, {1}, dt, bias, s.n);
      one = aclCreateScalar(&one_value, ACL_FLOAT);
      st = aclnnAddmmGetWorkspaceSize(tbias, ta, tb, one, one, tc, 0, &ws, &ex);
      phase2 = aclnnAddmm;
    } else {
      st = aclnnMatmulGetWorkspaceSize(ta, tb, tc, 0, &ws, &ex);
      phase2 = aclnnMatmul;
    }
  }
  double median = -1;
  if (st == 0 && aclSetAclOpExecutorRepeatable(ex) == 0) {
    void* workspace = ws > 0 ? Alloc(ws) : nullptr;
    std::vector<double> times;
    for (int i = 0; i < 2; ++i) {
      phase2(workspace, ws, ex, stream);
      aclrtSynchronizeStream(stream);
    }
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    while (static_cast<int>(times.size()) < min_calls || elapsed() < seconds) {
      const auto t0 = std::chrono::steady_clock::now();
      phase2(workspace, ws, ex, stream);
      aclrtSynchronizeStream(stream);
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    median = openaclnn::bench::Median(times);
    if (workspace != nullptr) aclrtFree(workspace);
    aclDestroyAclOpExecutor(ex);
  } else {
    std::fprintf(stderr, "%s: %s\n", s.label, aclGetRecentErrMsg());
  }
  for (aclTensor* t : {ta, tb, tc, tbias}) {
    if (t != nullptr) aclDestroyTensor(t);
  }
  if (one != nullptr) aclDestroyScalar(one);
  for (void* p : {a, b, c, bias}) aclrtFree(p);
  return median;
}

}  // namespace

int main(int argc, char** argv) {
  openaclnn::bench::TableBenchArgs args;
  if (!openaclnn::bench::ParseTableBenchArgs(argc, argv, &args)) return 2;
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  const std::vector<int> shapes = openaclnn::bench::SelectShapes(
      static_cast<int>(std::size(kShapes)), args.quick, args.only_shape);
  const int min_calls = args.quick ? 5 : 21;
  const double seconds = args.quick ? 0.3 : 1.5;
  openaclnn::bench::TorchColumn torch(args.torch_path);
  const int threads = openaclnn::cpu::NumThreads();
  // The peak is measured again before each shape (the shared machine's load moves during a run):
  // a row's share of the peak uses the higher of the first and that shape's measurement.
  const double first_peak = openaclnn::bench::MeasureFmaPeak(threads);

  std::printf(
      "openaclnn matmul family, %d threads, ISA %s, %s; fp32 FMA peak %.0f GFLOP/s; "
      "PyTorch: %s\n\n",
      threads, openaclnn::cpu::ActiveIsa().c_str(), openaclnn::cpu::GemmProviderName(), first_peak,
      torch.Describe());
  std::printf(
      "| shape | batch x M x N x K | dtype | openaclnn ms | GFLOP/s | of fp32 peak | PyTorch ms | "
      "PyTorch / ours |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|\n");
  std::vector<double> fractions;
  for (int si : shapes) {
    const Shape& s = kShapes[si];
    const double peak = std::max(first_peak, openaclnn::bench::MeasureFmaPeak(threads, 5'000'000));
    for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
      const double sec = Measure(s, dt, stream, min_calls, seconds);
      if (sec <= 0) continue;
      const double gflops = 2.0 * s.batch * s.m * s.n * s.k / sec / 1e9;
      // BF16 runs on AMX/AVX512_BF16 units, whose peak is not the fp32 FMA peak: only the FLOAT
      // rows make the summary's share of the peak (the table shows both).
      if (dt == ACL_FLOAT) fractions.push_back(gflops / peak);
      const char* dname = dt == ACL_BF16 ? "bf16" : "f32";
      const auto torch_cells = torch.Cells(std::to_string(si) + "/" + dname, sec);
      std::printf("| %s | %lld x %lld x %lld x %lld | %s | %.3f | %.1f | %.0f %% | %s | %s |\n",
                  s.label, static_cast<long long>(s.batch), static_cast<long long>(s.m),
                  static_cast<long long>(s.n), static_cast<long long>(s.k),
                  dt == ACL_BF16 ? "BF16" : "FLOAT", sec * 1e3, gflops, 100.0 * gflops / peak,
                  torch_cells.ms.c_str(), torch_cells.ratio.c_str());
      std::fflush(stdout);
    }
  }
  if (!fractions.empty()) {
    std::printf("\nmatmul: median %.0f %% of the fp32 FMA peak (FLOAT rows)",
                100 * openaclnn::bench::Median(fractions));
    std::printf("%s", torch.Summary().c_str());
    std::printf("\n");
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

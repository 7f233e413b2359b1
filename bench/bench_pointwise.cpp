// The pointwise operators on tensors far beyond L2 (16M elements), against the same run's stream
// bandwidth: a multi-threaded copy (one read, one write) for the one-input rows and a triad (two
// reads, one write) for the two-input ones, each reported as bytes moved per second. A row's GB/s
// counts the bytes the operator must move: one read per input element, one write per output.
//
//   build/release/bench/bench_pointwise [--quick] [--shape=ROW] [--torch_results=FILE]
//
// FILE comes from bench/bench_pointwise.py (PyTorch's out= ops on the same shapes and threads).
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_mul.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "bench_common.h"

namespace {

constexpr int64_t kRows = 4096, kCols = 4096;  // 16M elements

// The benchmark's rows; `dtypes` lists the element types each runs in ("f32", "bf16").
enum class Row { kAdd, kMul, kAdds, kCopy, kCopyTransposed, kCastF32ToBf16, kCastBf16ToF32 };
struct RowSpec {
  Row row;
  const char* name;
  int inputs;  // tensor inputs read
};
const RowSpec kRowSpecs[] = {
    {Row::kAdd, "Add", 2},
    {Row::kMul, "Mul", 2},
    {Row::kAdds, "Adds", 1},
    {Row::kCopy, "InplaceCopy", 1},
    {Row::kCopyTransposed, "InplaceCopy (transposed src)", 1},
    {Row::kCastF32ToBf16, "Cast FLOAT -> BF16", 1},
    {Row::kCastBf16ToF32, "Cast BF16 -> FLOAT", 1},
};

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

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

aclTensor* Make(aclDataType dt, void* data, bool transposed = false) {
  const int64_t dims[2] = {kRows, kCols};
  const int64_t strides[2] = {transposed ? 1 : kCols, transposed ? kRows : 1};
  return aclCreateTensor(dims, 2, dt, strides, 0, ACL_FORMAT_ND, dims, 2, data);
}

void* Alloc(size_t bytes) {
  void* p = nullptr;
  aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  return p;
}

// c = a + s * b on [begin, end), 8 lanes at a time: the triad at the speed of the vector units,
// so that it measures memory, not the loop.
__attribute__((target("avx2"))) void TriadAvx2(const float* a, const float* b, float* c,
                                               int64_t begin, int64_t end) {
  const __m256 s = _mm256_set1_ps(1.5f);
  int64_t i = begin;
  for (; i + 8 <= end; i += 8) {
    _mm256_storeu_ps(
        c + i, _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_mul_ps(s, _mm256_loadu_ps(b + i))));
  }
  for (; i < end; ++i) c[i] = a[i] + 1.5f * b[i];
}

// The stream bandwidths of this run, in bytes moved per second: copy (c = a) and triad
// (c = a + s * b) over `n` floats per buffer, fixed 64 Ki-element tasks on the library's thread
// pool. Rows compare with the stream over buffers of their own byte size (16M floats for FLOAT
// rows, 8M for BF16 ones, the output's size for the casts).
struct Stream {
  double copy = 0, triad = 0;
};
Stream MeasureStream(int64_t n, int reps, double min_time) {
  float* a = static_cast<float*>(Alloc(n * 4));
  float* b = static_cast<float*>(Alloc(n * 4));
  float* c = static_cast<float*>(Alloc(n * 4));
  for (int64_t i = 0; i < n; ++i) a[i] = b[i] = c[i] = static_cast<float>(i & 1023);
  constexpr int64_t kBlock = 1 << 16;
  const int64_t tasks = (n + kBlock - 1) / kBlock;
  Stream s;
  const bool avx2 = __builtin_cpu_supports("avx2");
  const double t_copy = MedianSeconds(
      [&] {
        openaclnn::cpu::ParallelFor(tasks, [&](int64_t t) {
          const int64_t i = t * kBlock;
          std::memcpy(c + i, a + i, std::min(kBlock, n - i) * sizeof(float));
        });
      },
      reps, min_time);
  const double t_triad = MedianSeconds(
      [&] {
        openaclnn::cpu::ParallelFor(tasks, [&](int64_t t) {
          const int64_t begin = t * kBlock, end = std::min(n, (t + 1) * kBlock);
          if (avx2) {
            TriadAvx2(a, b, c, begin, end);
          } else {
            for (int64_t i = begin; i < end; ++i) c[i] = a[i] + 1.5f * b[i];
          }
        });
      },
      reps, min_time);
  s.copy = 2.0 * n * 4 / t_copy;
  s.triad = 3.0 * n * 4 / t_triad;
  for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c)}) {
    aclrtFree(p);
  }
  return s;
}

struct Measured {
  double seconds = 0;
  double bytes = 0;
};

// Runs one row in dtype `dt` (the input dtype for the casts) through a repeatable executor.
Measured MeasureRow(Row row, aclDataType dt, aclrtStream stream, int reps, double min_time) {
  const int64_t n = kRows * kCols;
  aclDataType in_dt = dt, out_dt = dt;
  if (row == Row::kCastF32ToBf16) in_dt = ACL_FLOAT, out_dt = ACL_BF16;
  if (row == Row::kCastBf16ToF32) in_dt = ACL_BF16, out_dt = ACL_FLOAT;
  const size_t in_bytes = n * openaclnn::DTypeSize(in_dt);
  const size_t out_bytes = n * openaclnn::DTypeSize(out_dt);
  void* x = Alloc(in_bytes);
  void* y = Alloc(in_bytes);
  void* z = Alloc(out_bytes);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t i = 0; i < n; ++i) {
    openaclnn::StoreFromFloat(x, in_dt, i, u(rng));
    openaclnn::StoreFromFloat(y, in_dt, i, 1.0f + u(rng));
  }
  std::memset(z, 0, out_bytes);
  aclTensor* tx = Make(in_dt, x, row == Row::kCopyTransposed);
  aclTensor* ty = Make(in_dt, y);
  aclTensor* tz = Make(out_dt, z);
  float two = 2.0f;
  aclScalar* alpha = aclCreateScalar(&two, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  aclnnStatus status = 0;
  aclnnStatus (*run)(void*, uint64_t, aclOpExecutor*, aclrtStream) = nullptr;
  int inputs = 1;
  switch (row) {
    case Row::kAdd:
      status = aclnnAddGetWorkspaceSize(tx, ty, alpha, tz, &ws, &ex);
      run = aclnnAdd;
      inputs = 2;
      break;
    case Row::kMul:
      status = aclnnMulGetWorkspaceSize(tx, ty, tz, &ws, &ex);
      run = aclnnMul;
      inputs = 2;
      break;
    case Row::kAdds:
      status = aclnnAddsGetWorkspaceSize(tx, alpha, alpha, tz, &ws, &ex);
      run = aclnnAdds;
      break;
    case Row::kCopy:
    case Row::kCopyTransposed:
      status = aclnnInplaceCopyGetWorkspaceSize(tz, tx, &ws, &ex);
      run = aclnnInplaceCopy;
      break;
    case Row::kCastF32ToBf16:
    case Row::kCastBf16ToF32:
      status = aclnnCastGetWorkspaceSize(tx, out_dt, tz, &ws, &ex);
      run = aclnnCast;
      break;
  }
  Measured m;
  m.bytes = static_cast<double>(inputs) * in_bytes + out_bytes;
  if (status == 0 && aclSetAclOpExecutorRepeatable(ex) == 0) {
    void* workspace = ws > 0 ? Alloc(ws) : nullptr;
    m.seconds = MedianSeconds(
        [&] {
          run(workspace, ws, ex, stream);
          aclrtSynchronizeStream(stream);
        },
        reps, min_time);
    aclDestroyAclOpExecutor(ex);
    if (workspace != nullptr) aclrtFree(workspace);
  } else {
    std::fprintf(stderr, "row failed: %s\n", aclGetRecentErrMsg());
  }
  aclDestroyScalar(alpha);
  for (aclTensor* t : {tx, ty, tz}) aclDestroyTensor(t);
  for (void* p : {x, y, z}) aclrtFree(p);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  openaclnn::bench::TableBenchArgs args;
  if (!openaclnn::bench::ParseTableBenchArgs(argc, argv, &args)) return 2;
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  const int reps = args.quick ? 3 : 7;
  const double min_time = args.quick ? 0.03 : 0.2;
  std::string torch_version;
  const std::map<std::string, double> torch =
      openaclnn::bench::ReadTorchResults(args.torch_path, &torch_version);
  const Stream stream_f32 = MeasureStream(kRows * kCols, reps, min_time);
  const Stream stream_16 = MeasureStream(kRows * kCols / 2, reps, min_time);

  std::printf("openaclnn pointwise, %lld x %lld elements, %d threads, ISA %s; PyTorch: %s\n",
              static_cast<long long>(kRows), static_cast<long long>(kCols),
              openaclnn::cpu::NumThreads(), openaclnn::cpu::ActiveIsa().c_str(),
              torch.empty() ? "not measured (pass --torch_results)" : torch_version.c_str());
  std::printf(
      "stream bandwidth this run (bytes moved): copy %.1f GB/s, triad %.1f GB/s over 64 MiB "
      "buffers; copy %.1f GB/s, triad %.1f GB/s over 32 MiB buffers\n\n",
      stream_f32.copy / 1e9, stream_f32.triad / 1e9, stream_16.copy / 1e9, stream_16.triad / 1e9);
  std::printf(
      "| row | op | dtype | openaclnn ms | GB/s | stream GB/s | of stream | PyTorch ms | "
      "PyTorch / ours |\n");
  std::printf("|---:|---|---|---:|---:|---:|---:|---:|---:|\n");
  // For the closing summary: each row's share of the stream (contiguous rows and the transposed
  // copy apart) and the log of its speed against PyTorch.
  std::vector<double> contiguous_pct, transposed_pct, log_ratios;
  for (int ri = 0; ri < static_cast<int>(std::size(kRowSpecs)); ++ri) {
    if (args.only_shape >= 0 && ri != args.only_shape) continue;
    const RowSpec& spec = kRowSpecs[ri];
    std::vector<aclDataType> dtypes = {ACL_FLOAT, ACL_BF16};
    if (spec.row == Row::kCastF32ToBf16) dtypes = {ACL_FLOAT};
    if (spec.row == Row::kCastBf16ToF32) dtypes = {ACL_BF16};
    for (aclDataType dt : dtypes) {
      const Measured m = MeasureRow(spec.row, dt, stream, reps, min_time);
      if (m.seconds <= 0) continue;
      const double gbs = m.bytes / m.seconds / 1e9;
      // The output's buffer size picks the stream figure (BF16 rows and the cast to BF16: 32 MiB).
      const bool half_size =
          dt == ACL_BF16 ? spec.row != Row::kCastBf16ToF32 : spec.row == Row::kCastF32ToBf16;
      const Stream& stream_bw = half_size ? stream_16 : stream_f32;
      const double ref = (spec.inputs == 2 ? stream_bw.triad : stream_bw.copy) / 1e9;
      const char* dname = dt == ACL_BF16 ? "bf16" : "f32";
      char torch_cell[32] = "-", ratio[32] = "-";
      const auto th = torch.find(std::to_string(ri) + "/" + dname);
      if (th != torch.end()) {
        std::snprintf(torch_cell, sizeof(torch_cell), "%.3f", th->second * 1e3);
        std::snprintf(ratio, sizeof(ratio), "%.2f", th->second / m.seconds);
        log_ratios.push_back(std::log(th->second / m.seconds));
      }
      (spec.row == Row::kCopyTransposed ? transposed_pct : contiguous_pct)
          .push_back(100 * gbs / ref);
      std::printf("| %d | %s | %s | %.3f | %.1f | %.1f | %.0f %% | %s | %s |\n", ri, spec.name,
                  dt == ACL_BF16 ? "BF16" : "FLOAT", m.seconds * 1e3, gbs, ref, 100 * gbs / ref,
                  torch_cell, ratio);
      std::fflush(stdout);
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t h = v.size() / 2;
    return v.empty() ? 0.0 : v.size() % 2 == 1 ? v[h] : (v[h - 1] + v[h]) / 2;
  };
  std::printf(
      "\npointwise: median %.0f %% of stream bandwidth (contiguous), %.0f %% (transposed copy)",
      median(contiguous_pct), median(transposed_pct));
  if (!log_ratios.empty()) {
    double sum = 0;
    for (double l : log_ratios) sum += l;
    std::printf(", geometric mean %.2f x PyTorch", std::exp(sum / log_ratios.size()));
  }
  std::printf("\n");
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

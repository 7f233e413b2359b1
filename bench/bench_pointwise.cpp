// The pointwise operators on tensors far beyond L2 (16M elements), against the same run's stream
// bandwidth: a multi-threaded copy (one read, one write) for the one-input rows and a triad (two
// reads, one write) for the two-input ones, with non-temporal stores, each reported as bytes moved
// per second and timed alternately with the row (the share is the median of the paired ratios,
// so that drifting bandwidth on a shared machine cancels). A row's GB/s counts the bytes the
// operator must move: one read per input element, one write per output. The last line sums up:
// the median share of the contiguous rows, of the transposed copies, and the geometric mean of
// the speed against PyTorch.
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

// Seconds per call of fn over at least min_time.
double TimeCalls(const std::function<void()>& fn, double min_time) {
  int calls = 0;
  const double t0 = Now();
  double t1 = t0;
  do {
    fn();
    ++calls;
    t1 = Now();
  } while (t1 - t0 < min_time);
  return (t1 - t0) / calls;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 == 1 ? v[h] : (v[h - 1] + v[h]) / 2;
}

// The row and its stream reference timed alternately, `reps` times each after a warm-up: the
// machine's bandwidth drifts (other tenants, builds), so each of the row's timings is set against
// the reference's timing next to it. `row_share` is the median of those ratios of bandwidth.
struct Paired {
  double row_seconds = 0, ref_seconds = 0, row_share = 0;
};
Paired TimePaired(const std::function<void()>& row, double row_bytes,
                  const std::function<void()>& ref, double ref_bytes, int reps, double min_time) {
  row();  // warm-up: first touch, caches
  ref();
  std::vector<double> row_t, ref_t, share;
  for (int r = 0; r < reps; ++r) {
    row_t.push_back(TimeCalls(row, min_time));
    ref_t.push_back(TimeCalls(ref, min_time));
    share.push_back((row_bytes / row_t.back()) / (ref_bytes / ref_t.back()));
  }
  return {Median(row_t), Median(ref_t), Median(share)};
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
// so that it measures memory, not the loop. The stores are non-temporal (as STREAM is built to
// measure bandwidth): a plain store first reads the output line, which the operators beyond the
// last-level cache avoid too. `c + begin` is 32-byte aligned.
__attribute__((target("avx2"))) void TriadAvx2(const float* a, const float* b, float* c,
                                               int64_t begin, int64_t end) {
  const __m256 s = _mm256_set1_ps(1.5f);
  int64_t i = begin;
  for (; i + 8 <= end; i += 8) {
    _mm256_stream_ps(
        c + i, _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_mul_ps(s, _mm256_loadu_ps(b + i))));
  }
  _mm_sfence();
  for (; i < end; ++i) c[i] = a[i] + 1.5f * b[i];
}

// c = a on [begin, end) with non-temporal stores (`c + begin` 32-byte aligned).
__attribute__((target("avx2"))) void CopyAvx2(const float* a, float* c, int64_t begin,
                                              int64_t end) {
  int64_t i = begin;
  for (; i + 16 <= end; i += 16) {
    const __m256 x0 = _mm256_loadu_ps(a + i), x1 = _mm256_loadu_ps(a + i + 8);
    _mm256_stream_ps(c + i, x0);
    _mm256_stream_ps(c + i + 8, x1);
  }
  _mm_sfence();
  for (; i < end; ++i) c[i] = a[i];
}

// The stream references of this run: copy (c = a, bytes moved 2 * 4 n) and triad (c = a + s * b,
// 3 * 4 n) over `n` floats per buffer, written with non-temporal stores, fixed 64 Ki-element tasks
// on the library's thread pool. Each row is set against the reference of its own input count over
// buffers of its largest tensor's byte size (16M floats for the FLOAT rows and the casts, 8M for
// the BF16 rows).
class StreamReference {
 public:
  explicit StreamReference(int64_t n) : n_(n) {
    for (float*& p : buffers_) p = static_cast<float*>(Alloc(n * 4));
    for (int64_t i = 0; i < n; ++i) {
      buffers_[0][i] = buffers_[1][i] = buffers_[2][i] = static_cast<float>(i & 1023);
    }
  }
  ~StreamReference() {
    for (float* p : buffers_) aclrtFree(p);
  }
  StreamReference(const StreamReference&) = delete;
  StreamReference& operator=(const StreamReference&) = delete;

  double bytes(int inputs) const { return (inputs + 1.0) * n_ * 4; }
  void Run(int inputs) const {
    const float* a = buffers_[0];
    const float* b = buffers_[1];
    float* c = buffers_[2];
    const int64_t n = n_;
    const bool avx2 = __builtin_cpu_supports("avx2");
    openaclnn::cpu::ParallelFor((n + kBlock - 1) / kBlock, [&](int64_t t) {
      const int64_t begin = t * kBlock, end = std::min(n, begin + kBlock);
      if (inputs == 1 && avx2) {
        CopyAvx2(a, c, begin, end);
      } else if (inputs == 1) {
        std::memcpy(c + begin, a + begin, (end - begin) * sizeof(float));
      } else if (avx2) {
        TriadAvx2(a, b, c, begin, end);
      } else {
        for (int64_t i = begin; i < end; ++i) c[i] = a[i] + 1.5f * b[i];
      }
    });
  }

 private:
  static constexpr int64_t kBlock = 1 << 16;
  int64_t n_;
  float* buffers_[3] = {};
};

struct Measured {
  double seconds = 0;
  double bytes = 0;
  double ref_seconds = 0, ref_bytes = 0;  // the stream reference timed alongside
  double share = 0;                       // of the reference's bandwidth (median of pairs)
};

// Runs one row in dtype `dt` (the input dtype for the casts) through a repeatable executor,
// alternating with `ref` (its stream reference, `inputs` tensors read).
Measured MeasureRow(Row row, aclDataType dt, aclrtStream stream, int reps, double min_time,
                    const StreamReference& ref, int ref_inputs) {
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
    m.ref_bytes = ref.bytes(ref_inputs);
    const Paired t = TimePaired(
        [&] {
          run(workspace, ws, ex, stream);
          aclrtSynchronizeStream(stream);
        },
        m.bytes, [&] { ref.Run(ref_inputs); }, m.ref_bytes, reps, min_time);
    m.seconds = t.row_seconds;
    m.ref_seconds = t.ref_seconds;
    m.share = t.row_share;
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
  openaclnn::bench::TorchColumn torch(args.torch_path);
  const StreamReference stream_f32(kRows * kCols);
  const StreamReference stream_16(kRows * kCols / 2);

  std::printf("openaclnn pointwise, %lld x %lld elements, %d threads, ISA %s; PyTorch: %s\n",
              static_cast<long long>(kRows), static_cast<long long>(kCols),
              openaclnn::cpu::NumThreads(), openaclnn::cpu::ActiveIsa().c_str(), torch.Describe());
  std::printf(
      "stream: copy (one-input rows) or triad (two-input rows) with non-temporal stores over "
      "buffers of the row's output size, timed alternately with the row; of stream = median of "
      "the paired bandwidth ratios\n\n");
  std::printf(
      "| row | op | dtype | openaclnn ms | GB/s | stream GB/s | of stream | PyTorch ms | "
      "PyTorch / ours |\n");
  std::printf("|---:|---|---|---:|---:|---:|---:|---:|---:|\n");
  // For the closing summary: each row's share of the stream (contiguous rows and the transposed
  // copy apart); `torch` books its speed against PyTorch.
  std::vector<double> contiguous_pct, transposed_pct;
  for (int ri = 0; ri < static_cast<int>(std::size(kRowSpecs)); ++ri) {
    if (args.only_shape >= 0 && ri != args.only_shape) continue;
    const RowSpec& spec = kRowSpecs[ri];
    std::vector<aclDataType> dtypes = {ACL_FLOAT, ACL_BF16};
    if (spec.row == Row::kCastF32ToBf16) dtypes = {ACL_FLOAT};
    if (spec.row == Row::kCastBf16ToF32) dtypes = {ACL_BF16};
    for (aclDataType dt : dtypes) {
      // The row's largest tensor picks the reference's buffer size: 32 MiB for the BF16 rows,
      // 64 MiB for the FLOAT rows and both casts (over 32 MiB buffers the reference's source
      // partly stays in a 32 MiB last-level cache between calls, which the cast's 64 MiB FLOAT
      // source cannot).
      const bool half_size = dt == ACL_BF16 && spec.row != Row::kCastBf16ToF32;
      const Measured m = MeasureRow(spec.row, dt, stream, reps, min_time,
                                    half_size ? stream_16 : stream_f32, spec.inputs);
      if (m.seconds <= 0) continue;
      const double gbs = m.bytes / m.seconds / 1e9;
      const double ref = m.ref_bytes / m.ref_seconds / 1e9;
      const char* dname = dt == ACL_BF16 ? "bf16" : "f32";
      const auto torch_cells = torch.Cells(std::to_string(ri) + "/" + dname, m.seconds);
      (spec.row == Row::kCopyTransposed ? transposed_pct : contiguous_pct).push_back(100 * m.share);
      std::printf("| %d | %s | %s | %.3f | %.1f | %.1f | %.0f %% | %s | %s |\n", ri, spec.name,
                  dt == ACL_BF16 ? "BF16" : "FLOAT", m.seconds * 1e3, gbs, ref, 100 * m.share,
                  torch_cells.ms.c_str(), torch_cells.ratio.c_str());
      std::fflush(stdout);
    }
  }
  std::printf(
      "\npointwise: median %.0f %% of stream bandwidth (contiguous), %.0f %% (transposed copy)",
      Median(contiguous_pct), Median(transposed_pct));
  if (torch.booked() > 0) {
    std::printf(", geometric mean %.2f x PyTorch", torch.GeometricMean());
  }
  std::printf("\n");
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

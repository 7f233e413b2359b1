// aclnnReduceSum on inputs beyond the last-level cache (16M elements), FLOAT and BFLOAT16 (out in
// the input dtype), over inner, outer and middle dims, plus all dims. For each shape: the median
// time of phase 2 plus synchronisation; GB/s counting the input read and the output written; the
// stream bandwidth of a multi-threaded read-and-sum of the same number of bytes on the pool's
// threads (one contiguous span per thread, AVX2 or AVX-512); the fraction of it the operator
// reaches; and, with --torch_results=FILE (written by bench/bench_reduce_sum.py), PyTorch's
// torch.sum(x, dim, keepdim, out=) on the same shapes.
//
// Fairness: a 32 MiB BFLOAT16 input is about one L3's size, and a buffer read again and again stays
// partly cached (by how much depends on the access order and on the other processes), which made
// single-buffer figures jump between 24 and 130 GB/s from one row to the next. So each input lives
// in several copies, kRotationBytes in all, and consecutive calls (the operator's and the stream's
// alike, interleaved, and PyTorch's in the Python script) read consecutive copies: every call
// reads its bytes from memory, never the bytes the call before it has just read. The operator and
// the stream are timed in alternation, call by call, so that both see the same background load, and
// each time is the median of its calls; "of stream" is the median over the pairs of calls of the
// operator's bandwidth over the stream's (the machine's bandwidth may change during a row; the two
// calls of a pair see the same). The last line sums the table up for scripts: the median
// fraction of the stream bandwidth and the geometric mean speed-up over PyTorch.
//
//   bench_reduce_sum [--quick] [--shape=INDEX] [--torch_results=FILE]
// --quick: three shapes (inner, outer, middle), short repetitions; --shape: one shape only.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "bench_common.h"
#include "stream_floor.h"

namespace {

using openaclnn::bench::AlternatingMedians;
using openaclnn::bench::Median;
using openaclnn::bench::StreamPass;

struct ReduceShape {
  std::vector<int64_t> dims;
  std::vector<int64_t> reduce;  // empty: all
  const char* kind;
  int64_t Numel() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  std::vector<int64_t> OutDims() const {
    std::vector<int64_t> out;
    for (size_t d = 0; d < dims.size(); ++d) {
      const bool reduced = reduce.empty() || std::find(reduce.begin(), reduce.end(),
                                                       static_cast<int64_t>(d)) != reduce.end();
      if (!reduced) out.push_back(dims[d]);
    }
    return out;
  }
  std::string Label() const {
    std::string s = "(";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    s += ") dim ";
    if (reduce.empty()) return s + "all";
    for (size_t i = 0; i < reduce.size(); ++i) s += (i ? "," : "") + std::to_string(reduce[i]);
    return s;
  }
};

// Shapes of the table (the Python script has the same list); --quick runs the first three.
const ReduceShape kShapes[] = {
    {{4096, 4096}, {1}, "inner"}, {{4096, 4096}, {0}, "outer"},  {{64, 4096, 64}, {1}, "middle"},
    {{262144, 64}, {1}, "inner"}, {{1048576, 16}, {0}, "outer"}, {{256, 256, 256}, {1}, "middle"},
    {{16777216}, {}, "all"},
};
const int kQuickShapes[] = {0, 1, 2};

// Bytes of the copies of one input that calls rotate over: 8x the 32 MiB L3 of one CPU complex
// of the machines measured, so that no copy is still cached when its turn comes again.
constexpr size_t kRotationBytes = size_t{256} << 20;

aclTensor* Make(const std::vector<int64_t>& dims, aclDataType dt, void* data) {
  return aclCreateTensor(dims.data(), dims.size(), dt, nullptr, 0, ACL_FORMAT_ND, dims.data(),
                         dims.size(), data);
}

struct Result {
  double ours = 0, stream = 0, bytes = 0;
  double fraction = 0;  // of the stream bandwidth: the median over the pairs of calls
};

Result Measure(const ReduceShape& s, aclDataType dt, aclrtStream stream, int pairs,
               double seconds) {
  const int64_t n = s.Numel();
  const std::vector<int64_t> out_dims = s.OutDims();
  int64_t out_n = 1;
  for (int64_t d : out_dims) out_n *= d;
  const size_t esize = openaclnn::DTypeSize(dt);
  const size_t in_bytes = static_cast<size_t>(n) * esize;
  // Call i of the operator reads copy 2i, call i of the stream copy 2i + 1 (modulo copies, at
  // least 4): between two reads of a copy come reads of three others, 96 MiB at the least.
  const size_t copies = std::max<size_t>(4, (kRotationBytes + in_bytes - 1) / in_bytes);
  std::vector<void*> x(copies, nullptr);
  void* y = nullptr;
  for (void*& c : x) aclrtMalloc(&c, in_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&y, static_cast<size_t>(out_n) * esize + 64, ACL_MEM_MALLOC_HUGE_FIRST);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t i = 0; i < n; ++i) openaclnn::StoreFromFloat(x[0], dt, i, u(rng));
  for (size_t c = 1; c < copies; ++c) std::memcpy(x[c], x[0], in_bytes);
  std::vector<aclTensor*> tx(copies, nullptr);
  for (size_t c = 0; c < copies; ++c) tx[c] = Make(s.dims, dt, x[c]);
  aclTensor* ty = Make(out_dims, dt, y);
  aclIntArray* dims = aclCreateIntArray(s.reduce.data(), s.reduce.size());
  Result r;
  r.bytes = static_cast<double>(in_bytes) + static_cast<double>(out_n * esize);
  // One repeatable executor per copy (an executor is bound to its tensors' addresses).
  std::vector<aclOpExecutor*> ex(copies, nullptr);
  uint64_t ws = 0;
  bool ok = true;
  for (size_t c = 0; c < copies && ok; ++c) {
    ok = aclnnReduceSumGetWorkspaceSize(tx[c], dims, false, dt, ty, &ws, &ex[c]) == 0 &&
         aclSetAclOpExecutorRepeatable(ex[c]) == 0;
  }
  if (ok) {
    void* workspace = nullptr;
    if (ws > 0) aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<float> sums;
    static volatile float sink = 0;
    double stream_seconds = 0;
    AlternatingMedians(
        [&](int64_t i) {
          aclnnReduceSum(workspace, ws, ex[static_cast<size_t>(2 * i) % copies], stream);
          aclrtSynchronizeStream(stream);
        },
        // The same bytes read by the stream kernel (the output is small next to the input).
        [&](int64_t i) {
          sink = sink + StreamPass(x[static_cast<size_t>(2 * i + 1) % copies], in_bytes, &sums);
        },
        pairs, seconds, &r.ours, &stream_seconds, &r.fraction);
    // The stream's time scaled to the operator's bytes (input and output).
    const double scale = r.bytes / static_cast<double>(in_bytes);
    r.stream = stream_seconds * scale;
    r.fraction *= scale;
    if (workspace != nullptr) aclrtFree(workspace);
  } else {
    std::fprintf(stderr, "%s: %s\n", s.Label().c_str(), aclGetRecentErrMsg());
  }
  for (aclOpExecutor* e : ex) {
    if (e != nullptr) aclDestroyAclOpExecutor(e);
  }
  for (aclTensor* t : tx) aclDestroyTensor(t);
  aclDestroyTensor(ty);
  aclDestroyIntArray(dims);
  for (void* c : x) aclrtFree(c);
  aclrtFree(y);
  return r;
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
      static_cast<int>(std::size(kShapes)), args.quick, args.only_shape,
      {std::begin(kQuickShapes), std::end(kQuickShapes)});
  // Alternating pairs of calls (operator, stream) per row: at least this many, and this long.
  const int pairs = args.quick ? 15 : 101;
  const double seconds = args.quick ? 0.2 : 2.0;
  openaclnn::bench::TorchColumn torch(args.torch_path);

  std::printf("openaclnn ReduceSum, %d threads, ISA %s; PyTorch: %s\n\n",
              openaclnn::cpu::NumThreads(), openaclnn::cpu::ActiveIsa().c_str(), torch.Describe());
  std::printf(
      "| shape | kind | dtype | openaclnn ms | GB/s | stream GB/s | of stream | PyTorch ms "
      "| PyTorch / ours |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|\n");
  double min_fraction = 1e9;
  std::vector<double> fractions;
  for (int si : shapes) {
    for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
      const ReduceShape& s = kShapes[si];
      const Result r = Measure(s, dt, stream, pairs, seconds);
      if (r.ours <= 0) continue;
      const double gbs = r.bytes / r.ours / 1e9, stream_gbs = r.bytes / r.stream / 1e9;
      min_fraction = std::min(min_fraction, r.fraction);
      fractions.push_back(r.fraction);
      const auto torch_cells =
          torch.Cells(std::to_string(si) + "/" + (dt == ACL_BF16 ? "bf16" : "f32"), r.ours);
      std::printf("| %s | %s | %s | %.3f | %.1f | %.1f | %.0f %% | %s | %s |\n", s.Label().c_str(),
                  s.kind, dt == ACL_BF16 ? "BF16" : "FLOAT", r.ours * 1e3, gbs, stream_gbs,
                  100.0 * r.fraction, torch_cells.ms.c_str(), torch_cells.ratio.c_str());
      std::fflush(stdout);
    }
  }
  if (torch.booked() > 0) {
    std::printf("\ngeometric mean speed-up over PyTorch: %.2fx\n", torch.GeometricMean());
  }
  if (!fractions.empty()) {
    std::printf("lowest fraction of the stream bandwidth: %.0f %%\n", 100 * min_fraction);
    // The one-line summary for scripts.
    std::printf("reduce_sum: median %.0f %% of stream bandwidth", 100 * Median(fractions));
    std::printf("%s", torch.Summary().c_str());
    std::printf("\n");
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

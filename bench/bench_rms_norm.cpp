// aclnnRmsNorm (forward) and aclnnRmsNormGrad (backward) on transformer shapes (rows of 512 to
// 32768 elements, 512 to 16384 rows), FLOAT and BFLOAT16 with a FLOAT gamma. For each shape and
// direction: the median time of phase 2 plus synchronisation; GB/s counting the bytes the
// operator must move (forward: read x and gamma, write y and rstd; backward: read dy, x, rstd and
// gamma, write dx and dgamma); the bandwidth of a multi-threaded read-and-sum of the same number
// of bytes on the pool's threads, timed in alternation with the operator call by call (the
// "stream floor" of that working set); the fraction of it the operator reaches; and, with
// --torch_results=FILE (written by bench/bench_rms_norm.py), PyTorch's
// torch.nn.functional.rms_norm and its autograd backward on the same shapes and threads.
//
// Inputs live in several copies (kRotationBytes in all) and consecutive calls read consecutive
// copies, so that no call reads bytes the call before it left in the cache.
//
//   bench_rms_norm [--quick] [--shape=INDEX] [--torch_results=FILE]
// The last line sums the table up for scripts: "rms_norm: median ...".
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
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "bench_common.h"
#include "stream_floor.h"

namespace {

using openaclnn::bench::AlternatingMedians;
using openaclnn::bench::Median;
using openaclnn::bench::StreamPass;

struct Shape {
  int64_t rows, cols;
};
// The Python script has the same list; --quick runs the first one.
const Shape kShapes[] = {{1024, 4096}, {8192, 512}, {4096, 4096}, {16384, 1024}, {512, 32768}};

constexpr size_t kRotationBytes = size_t{256} << 20;

aclTensor* Make(const std::vector<int64_t>& dims, aclDataType dt, void* data) {
  return aclCreateTensor(dims.data(), dims.size(), dt, nullptr, 0, ACL_FORMAT_ND, dims.data(),
                         dims.size(), data);
}

void* Alloc(size_t bytes) {
  void* p = nullptr;
  aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  return p;
}

struct Result {
  double ours = 0, stream = 0, bytes = 0, fraction = 0;
};

// One direction of one shape: `backward` false times aclnnRmsNorm, true aclnnRmsNormGrad.
Result Measure(const Shape& s, aclDataType dt, bool backward, aclrtStream stream, int pairs,
               double seconds) {
  const size_t n = static_cast<size_t>(s.rows * s.cols);
  const size_t esize = openaclnn::DTypeSize(dt);
  const size_t big = n * esize;  // one [rows, cols] tensor
  const size_t gamma_bytes = static_cast<size_t>(s.cols) * sizeof(float);
  const size_t rstd_bytes = static_cast<size_t>(s.rows) * sizeof(float);
  const std::vector<int64_t> xd = {s.rows, s.cols}, gd = {s.cols}, rd = {s.rows, 1};
  // Inputs read per call: forward x; backward dy and x. Rotated over `copies` sets.
  const size_t per_set = backward ? 2 * big : big;
  const size_t copies = std::max<size_t>(2, (kRotationBytes + per_set - 1) / per_set);
  std::vector<void*> xs(copies), dys(copies);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (size_t c = 0; c < copies; ++c) {
    xs[c] = Alloc(big);
    dys[c] = backward ? Alloc(big) : nullptr;
  }
  for (size_t i = 0; i < n; ++i) {
    openaclnn::StoreFromFloat(xs[0], dt, static_cast<int64_t>(i), u(rng));
    if (backward) openaclnn::StoreFromFloat(dys[0], dt, static_cast<int64_t>(i), u(rng));
  }
  for (size_t c = 1; c < copies; ++c) {
    std::memcpy(xs[c], xs[0], big);
    if (backward) std::memcpy(dys[c], dys[0], big);
  }
  void* gamma = Alloc(gamma_bytes);
  void* rstd = Alloc(rstd_bytes);
  void* out = Alloc(big);
  void* dgamma = Alloc(gamma_bytes);
  for (int64_t i = 0; i < s.cols; ++i) static_cast<float*>(gamma)[i] = 1.0f + 0.001f * i;
  for (int64_t i = 0; i < s.rows; ++i) static_cast<float*>(rstd)[i] = 1.5f;
  aclTensor* tg = Make(gd, ACL_FLOAT, gamma);
  aclTensor* tr = Make(rd, ACL_FLOAT, rstd);
  aclTensor* tout = Make(xd, dt, out);
  aclTensor* tdg = Make(gd, ACL_FLOAT, dgamma);
  std::vector<aclTensor*> tx(copies, nullptr), tdy(copies, nullptr);
  std::vector<aclOpExecutor*> ex(copies, nullptr);
  uint64_t ws = 0;
  bool ok = true;
  for (size_t c = 0; c < copies && ok; ++c) {
    tx[c] = Make(xd, dt, xs[c]);
    uint64_t w = 0;
    if (backward) {
      tdy[c] = Make(xd, dt, dys[c]);
      ok = aclnnRmsNormGradGetWorkspaceSize(tdy[c], tx[c], tr, tg, tout, tdg, &w, &ex[c]) == 0;
    } else {
      ok = aclnnRmsNormGetWorkspaceSize(tx[c], tg, 1e-6, tout, tr, &w, &ex[c]) == 0;
    }
    ok = ok && aclSetAclOpExecutorRepeatable(ex[c]) == 0;
    ws = std::max(ws, w);
  }
  Result r;
  r.bytes = static_cast<double>(backward ? 3 * big + rstd_bytes + 2 * gamma_bytes
                                         : 2 * big + rstd_bytes + gamma_bytes);
  const size_t stream_bytes = static_cast<size_t>(r.bytes) / 128 * 128;
  std::vector<void*> stream_buf(copies);
  if (ok) {
    for (void*& b : stream_buf) {
      b = Alloc(stream_bytes);
      std::memset(b, 0, stream_bytes);
    }
    void* workspace = ws > 0 ? Alloc(ws) : nullptr;
    std::vector<float> sums;
    static volatile float sink = 0;
    AlternatingMedians(
        [&](int64_t i) {
          aclOpExecutor* e = ex[static_cast<size_t>(i) % copies];
          if (backward) {
            aclnnRmsNormGrad(workspace, ws, e, stream);
          } else {
            aclnnRmsNorm(workspace, ws, e, stream);
          }
          aclrtSynchronizeStream(stream);
        },
        [&](int64_t i) {
          sink =
              sink + StreamPass(stream_buf[static_cast<size_t>(i) % copies], stream_bytes, &sums);
        },
        pairs, seconds, &r.ours, &r.stream, &r.fraction);
    if (workspace != nullptr) aclrtFree(workspace);
  } else {
    std::fprintf(stderr, "%lldx%lld: %s\n", static_cast<long long>(s.rows),
                 static_cast<long long>(s.cols), aclGetRecentErrMsg());
  }
  for (aclOpExecutor* e : ex) {
    if (e != nullptr) aclDestroyAclOpExecutor(e);
  }
  for (size_t c = 0; c < copies; ++c) {
    if (tx[c] != nullptr) aclDestroyTensor(tx[c]);
    if (tdy[c] != nullptr) aclDestroyTensor(tdy[c]);
    aclrtFree(xs[c]);
    if (dys[c] != nullptr) aclrtFree(dys[c]);
    if (stream_buf[c] != nullptr) aclrtFree(stream_buf[c]);
  }
  for (aclTensor* t : {tg, tr, tout, tdg}) aclDestroyTensor(t);
  for (void* p : {gamma, rstd, out, dgamma}) aclrtFree(p);
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
      static_cast<int>(std::size(kShapes)), args.quick, args.only_shape);
  const int pairs = args.quick ? 15 : 101;
  const double seconds = args.quick ? 0.2 : 2.0;
  openaclnn::bench::TorchColumn torch(args.torch_path);

  std::printf("openaclnn RmsNorm / RmsNormGrad, %d threads, ISA %s; PyTorch: %s\n\n",
              openaclnn::cpu::NumThreads(), openaclnn::cpu::ActiveIsa().c_str(), torch.Describe());
  std::printf(
      "| rows x cols | dtype | direction | openaclnn ms | GB/s | stream GB/s | of stream | "
      "PyTorch ms | PyTorch / ours |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|\n");
  std::vector<double> fractions, backward_fractions;
  for (int si : shapes) {
    for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
      for (bool backward : {false, true}) {
        const Shape& s = kShapes[si];
        const Result r = Measure(s, dt, backward, stream, pairs, seconds);
        if (r.ours <= 0) continue;
        fractions.push_back(r.fraction);
        if (backward) backward_fractions.push_back(r.fraction);
        const char* dname = dt == ACL_BF16 ? "bf16" : "f32";
        const auto torch_cells =
            torch.Cells(std::to_string(si) + "/" + dname + (backward ? "_bwd" : "_fwd"), r.ours);
        std::printf("| %lld x %lld | %s | %s | %.3f | %.1f | %.1f | %.0f %% | %s | %s |\n",
                    static_cast<long long>(s.rows), static_cast<long long>(s.cols),
                    dt == ACL_BF16 ? "BF16" : "FLOAT", backward ? "backward" : "forward",
                    r.ours * 1e3, r.bytes / r.ours / 1e9, r.bytes / r.stream / 1e9,
                    100.0 * r.fraction, torch_cells.ms.c_str(), torch_cells.ratio.c_str());
        std::fflush(stdout);
      }
    }
  }
  if (!fractions.empty()) {
    std::printf("\nrms_norm: median %.0f %% of stream bandwidth (backward %.0f %%)",
                100 * Median(fractions), 100 * Median(backward_fractions));
    std::printf("%s", torch.Summary().c_str());
    std::printf("\n");
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

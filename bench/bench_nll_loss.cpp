// aclnnNLLLoss (forward) and aclnnNLLLossBackward (backward) with reduction mean on classifier
// shapes (4096 to 1048576 rows of 10 to 32000 classes), FLOAT and BFLOAT16 with INT64 targets and
// class weights. For each shape and direction: the median time of phase 2 plus synchronisation;
// GB/s counting the bytes the operator must move (forward: read the targets, one self element per
// row and the weights, write two scalars; backward: read the targets and weights, write the whole
// gradient); the bandwidth of a multi-threaded read-and-sum of the same number of bytes on the
// pool's threads, timed in alternation with the operator call by call (the "stream floor"); the
// fraction of it the operator reaches; and, with --torch_results=FILE (written by
// bench/bench_nll_loss.py), PyTorch's torch.nn.functional.nll_loss and
// aten::nll_loss_backward on the same shapes and threads. The PyTorch ratio uses our median of
// back-to-back calls (RepeatedMedian), timed as the peer is: operands that fit in the L3 cache
// stay there for both libraries.
//
//   bench_nll_loss [--quick] [--shape=INDEX] [--torch_results=FILE]
// The last line sums the table up for scripts: "nll_loss: median ...".
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
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss_backward.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "bench_common.h"
#include "stream_floor.h"

namespace {

using openaclnn::bench::Median;
using openaclnn::bench::TimeAgainstStream;

struct Shape {
  int64_t rows, classes;
};
// The Python script has the same list; --quick runs the first one.
const Shape kShapes[] = {{4096, 32000}, {65536, 1000}, {1 << 20, 10}};

aclTensor* Make(const std::vector<int64_t>& dims, aclDataType dt, void* data) {
  return aclCreateTensor(dims.data(), dims.size(), dt, nullptr, 0, ACL_FORMAT_ND, dims.data(),
                         dims.size(), data);
}

void* Alloc(size_t bytes) {
  void* p = nullptr;
  aclrtMalloc(&p, std::max<size_t>(bytes, 64), ACL_MEM_MALLOC_HUGE_FIRST);
  return p;
}

struct Result {
  double ours = 0, stream = 0, bytes = 0, fraction = 0;
  double repeated = 0;  // back to back, as the PyTorch peer is timed
};

Result Measure(const Shape& s, aclDataType dt, bool backward, aclrtStream stream, int pairs,
               double seconds) {
  const size_t esize = openaclnn::DTypeSize(dt);
  const size_t big = static_cast<size_t>(s.rows * s.classes) * esize;
  const size_t target_bytes = static_cast<size_t>(s.rows) * 8;
  const size_t weight_bytes = static_cast<size_t>(s.classes) * esize;
  void* self = Alloc(big);
  void* grad_self = backward ? Alloc(big) : nullptr;
  void* target = Alloc(target_bytes);
  void* weight = Alloc(weight_bytes);
  void* out = Alloc(esize);
  void* total = Alloc(esize);
  void* grad_out = Alloc(esize);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-5.f, 0.f);
  for (int64_t i = 0; i < s.rows * s.classes; ++i) openaclnn::StoreFromFloat(self, dt, i, u(rng));
  for (int64_t i = 0; i < s.classes; ++i)
    openaclnn::StoreFromFloat(weight, dt, i, 0.5f + 0.01f * (i % 100));
  for (int64_t i = 0; i < s.rows; ++i) static_cast<int64_t*>(target)[i] = rng() % s.classes;
  openaclnn::StoreFromFloat(grad_out, dt, 0, 1.0f);
  openaclnn::StoreFromFloat(total, dt, 0, static_cast<float>(s.rows));
  aclTensor* ts = Make({s.rows, s.classes}, dt, self);
  aclTensor* tgs = backward ? Make({s.rows, s.classes}, dt, grad_self) : nullptr;
  aclTensor* tt = Make({s.rows}, ACL_INT64, target);
  aclTensor* tw = Make({s.classes}, dt, weight);
  aclTensor* to = Make({1}, dt, out);
  aclTensor* ttw = Make({1}, dt, total);
  aclTensor* tgo = Make({}, dt, grad_out);
  aclOpExecutor* ex = nullptr;
  uint64_t ws = 0;
  bool ok = backward ? aclnnNLLLossBackwardGetWorkspaceSize(tgo, ts, tt, tw, 1, -100, ttw, tgs, &ws,
                                                            &ex) == 0
                     : aclnnNLLLossGetWorkspaceSize(ts, tt, tw, 1, -100, to, ttw, &ws, &ex) == 0;
  ok = ok && aclSetAclOpExecutorRepeatable(ex) == 0;
  Result r;
  // Forward: a whole cache line of self per row at most; counted as one element.
  r.bytes = static_cast<double>(target_bytes + weight_bytes +
                                (backward ? big : static_cast<size_t>(s.rows) * esize));
  if (ok) {
    const size_t stream_bytes = std::max<size_t>(static_cast<size_t>(r.bytes) / 128 * 128, 128);
    void* stream_buf = Alloc(stream_bytes);
    std::memset(stream_buf, 0, stream_bytes);
    void* workspace = ws > 0 ? Alloc(ws) : nullptr;
    const auto run = [&](int64_t) {
      if (backward) {
        aclnnNLLLossBackward(workspace, ws, ex, stream);
      } else {
        aclnnNLLLoss(workspace, ws, ex, stream);
      }
      aclrtSynchronizeStream(stream);
    };
    TimeAgainstStream(run, stream_buf, stream_bytes, nullptr, 0, pairs, seconds, &r.ours, &r.stream,
                      &r.fraction, &r.repeated);
    if (workspace != nullptr) aclrtFree(workspace);
    aclrtFree(stream_buf);
  } else {
    std::fprintf(stderr, "%lld x %lld: %s\n", static_cast<long long>(s.rows),
                 static_cast<long long>(s.classes), aclGetRecentErrMsg());
  }
  if (ex != nullptr) aclDestroyAclOpExecutor(ex);
  for (aclTensor* t : {ts, tgs, tt, tw, to, ttw, tgo}) {
    if (t != nullptr) aclDestroyTensor(t);
  }
  for (void* p : {self, grad_self, target, weight, out, total, grad_out}) {
    if (p != nullptr) aclrtFree(p);
  }
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
  const int pairs = args.quick ? 15 : 51;
  const double seconds = args.quick ? 0.2 : 1.0;
  openaclnn::bench::TorchColumn torch(args.torch_path);

  std::printf(
      "openaclnn NLLLoss / NLLLossBackward (reduction mean), %d threads, ISA %s; PyTorch: %s\n\n",
      openaclnn::cpu::NumThreads(), openaclnn::cpu::ActiveIsa().c_str(), torch.Describe());
  std::printf(
      "| rows x classes | dtype | direction | openaclnn ms | GB/s | stream GB/s | of stream | "
      "openaclnn ms back to back | PyTorch ms | PyTorch / ours |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  std::vector<double> fractions;
  for (int si : shapes) {
    for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
      for (bool backward : {false, true}) {
        const Shape& s = kShapes[si];
        const Result r = Measure(s, dt, backward, stream, pairs, seconds);
        if (r.ours <= 0) continue;
        fractions.push_back(r.fraction);
        const char* dname = dt == ACL_BF16 ? "bf16" : "f32";
        const auto torch_cells = torch.Cells(
            std::to_string(si) + "/" + dname + (backward ? "_bwd" : "_fwd"), r.repeated);
        std::printf("| %lld x %lld | %s | %s | %.3f | %.1f | %.1f | %.0f %% | %.3f | %s | %s |\n",
                    static_cast<long long>(s.rows), static_cast<long long>(s.classes),
                    dt == ACL_BF16 ? "BF16" : "FLOAT", backward ? "backward" : "forward",
                    r.ours * 1e3, r.bytes / r.ours / 1e9, r.bytes / r.stream / 1e9,
                    100.0 * r.fraction, r.repeated * 1e3, torch_cells.ms.c_str(),
                    torch_cells.ratio.c_str());
        std::fflush(stdout);
      }
    }
  }
  if (!fractions.empty()) {
    std::printf("\nnll_loss: median %.0f %% of stream bandwidth", 100 * Median(fractions));
    std::printf("%s", torch.Summary().c_str());
    std::printf("\n");
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

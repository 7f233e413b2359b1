// aclnnSoftmax, aclnnLogSoftmax and their backward functions on transformer-like shapes (rows of
// 512 to 32768 elements along the last dim, and one softmax over dim 0), FLOAT and BFLOAT16. For
// each shape and operator: the median time of phase 2 plus synchronisation; GB/s counting the
// bytes moved (forward: x read, out written; backward: gradOutput and output read, out written);
// the stream bandwidth of a multi-threaded read-and-sum of the same bytes on the pool's threads,
// timed in alternation with the operator (the pattern and the cache rotation of
// bench_reduce_sum.cpp); the fraction of it the operator reaches; and, with
// --torch_results=FILE (written by bench/bench_softmax.py), PyTorch's torch.softmax /
// torch.log_softmax (out=) and torch._softmax_backward_data / torch._log_softmax_backward_data
// (grad_input=) on the same shapes. The last line sums the table up for scripts.
//
//   bench_softmax [--quick] [--shape=INDEX] [--torch_results=FILE]
// --quick: two shapes (one last-dim, one dim-0), short repetitions; --shape: one shape only.
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
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_logsoftmax_backward.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_backward.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "bench_common.h"
#include "stream_floor.h"

namespace {

using openaclnn::bench::AlternatingMedians;
using openaclnn::bench::Median;
using openaclnn::bench::StreamPass;

struct SoftmaxShape {
  std::vector<int64_t> dims;
  int64_t dim;
  int64_t Numel() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  std::string Label() const {
    std::string s = "(";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + ") dim " + std::to_string(dim);
  }
};

// Shapes of the table (the Python script has the same list); --quick runs kQuickShapes.
const SoftmaxShape kShapes[] = {
    {{16384, 512}, -1}, {{4096, 4096}, -1}, {{1024, 32768}, -1}, {{4096, 1024}, 0}};
const int kQuickShapes[] = {0, 3};

enum class Op { kSoftmax, kLogSoftmax, kSoftmaxBackward, kLogSoftmaxBackward };
const Op kOps[] = {Op::kSoftmax, Op::kLogSoftmax, Op::kSoftmaxBackward, Op::kLogSoftmaxBackward};
const char* OpName(Op op) {
  switch (op) {
    case Op::kSoftmax:
      return "softmax";
    case Op::kLogSoftmax:
      return "log_softmax";
    case Op::kSoftmaxBackward:
      return "softmax_backward";
    case Op::kLogSoftmaxBackward:
      return "log_softmax_backward";
  }
  return "";
}
bool IsBackward(Op op) { return op == Op::kSoftmaxBackward || op == Op::kLogSoftmaxBackward; }

// Bytes of the copies of one input that calls rotate over (as bench_reduce_sum.cpp).
constexpr size_t kRotationBytes = size_t{256} << 20;

aclTensor* Make(const std::vector<int64_t>& dims, aclDataType dt, void* data) {
  return aclCreateTensor(dims.data(), dims.size(), dt, nullptr, 0, ACL_FORMAT_ND, dims.data(),
                         dims.size(), data);
}

struct Result {
  double ours = 0, stream = 0, bytes = 0;
  double fraction = 0;  // of the stream bandwidth: the median over the pairs of calls
};

aclnnStatus Phase1(Op op, aclTensor* x, aclTensor* y, int64_t dim, aclTensor* out, uint64_t* ws,
                   aclOpExecutor** ex) {
  switch (op) {
    case Op::kSoftmax:
      return aclnnSoftmaxGetWorkspaceSize(x, dim, out, ws, ex);
    case Op::kLogSoftmax:
      return aclnnLogSoftmaxGetWorkspaceSize(x, dim, out, ws, ex);
    case Op::kSoftmaxBackward:
      return aclnnSoftmaxBackwardGetWorkspaceSize(x, y, dim, out, ws, ex);
    case Op::kLogSoftmaxBackward:
      return aclnnLogSoftmaxBackwardGetWorkspaceSize(x, y, dim, out, ws, ex);
  }
  return -1;
}

aclnnStatus Phase2(Op op, void* workspace, uint64_t ws, aclOpExecutor* ex, aclrtStream stream) {
  switch (op) {
    case Op::kSoftmax:
      return aclnnSoftmax(workspace, ws, ex, stream);
    case Op::kLogSoftmax:
      return aclnnLogSoftmax(workspace, ws, ex, stream);
    case Op::kSoftmaxBackward:
      return aclnnSoftmaxBackward(workspace, ws, ex, stream);
    case Op::kLogSoftmaxBackward:
      return aclnnLogSoftmaxBackward(workspace, ws, ex, stream);
  }
  return -1;
}

Result Measure(const SoftmaxShape& s, Op op, aclDataType dt, aclrtStream stream, int pairs,
               double seconds) {
  const int64_t n = s.Numel();
  const size_t esize = openaclnn::DTypeSize(dt);
  const size_t tensor_bytes = static_cast<size_t>(n) * esize;
  // One copy holds the inputs of one call: x (forward), or gradOutput then output (backward).
  const int inputs = IsBackward(op) ? 2 : 1;
  const size_t in_bytes = tensor_bytes * static_cast<size_t>(inputs);
  const size_t copies = std::max<size_t>(4, (kRotationBytes + in_bytes - 1) / in_bytes);
  std::vector<void*> x(copies, nullptr);
  void* out = nullptr;
  for (void*& c : x) aclrtMalloc(&c, in_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&out, tensor_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  // Backward's output: softmax-like values (small positive) or log-softmax-like (negative).
  for (int64_t i = 0; i < n * inputs; ++i) {
    float v = u(rng);
    if (i >= n) v = op == Op::kSoftmaxBackward ? (v + 1.f) / static_cast<float>(n) : v - 8.f;
    openaclnn::StoreFromFloat(x[0], dt, i, v);
  }
  for (size_t c = 1; c < copies; ++c) std::memcpy(x[c], x[0], in_bytes);
  std::vector<aclTensor*> tx(copies, nullptr), ty(copies, nullptr);
  for (size_t c = 0; c < copies; ++c) {
    tx[c] = Make(s.dims, dt, x[c]);
    if (inputs == 2) ty[c] = Make(s.dims, dt, static_cast<char*>(x[c]) + tensor_bytes);
  }
  aclTensor* tout = Make(s.dims, dt, out);
  Result r;
  r.bytes = static_cast<double>(in_bytes + tensor_bytes);
  std::vector<aclOpExecutor*> ex(copies, nullptr);
  uint64_t ws = 0;
  bool ok = true;
  for (size_t c = 0; c < copies && ok; ++c) {
    ok = Phase1(op, tx[c], ty[c], s.dim, tout, &ws, &ex[c]) == 0 &&
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
          Phase2(op, workspace, ws, ex[static_cast<size_t>(2 * i) % copies], stream);
          aclrtSynchronizeStream(stream);
        },
        // The input bytes read by the stream kernel; its time scaled to all bytes moved below.
        [&](int64_t i) {
          sink = sink + StreamPass(x[static_cast<size_t>(2 * i + 1) % copies], in_bytes, &sums);
        },
        pairs, seconds, &r.ours, &stream_seconds, &r.fraction);
    const double scale = r.bytes / static_cast<double>(in_bytes);
    r.stream = stream_seconds * scale;
    r.fraction *= scale;
    if (workspace != nullptr) aclrtFree(workspace);
  } else {
    std::fprintf(stderr, "%s %s: %s\n", s.Label().c_str(), OpName(op), aclGetRecentErrMsg());
  }
  for (aclOpExecutor* e : ex) {
    if (e != nullptr) aclDestroyAclOpExecutor(e);
  }
  for (aclTensor* t : tx) aclDestroyTensor(t);
  for (aclTensor* t : ty) {
    if (t != nullptr) aclDestroyTensor(t);
  }
  aclDestroyTensor(tout);
  for (void* c : x) aclrtFree(c);
  aclrtFree(out);
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
  const int pairs = args.quick ? 3 : 51;
  const double seconds = args.quick ? 0.05 : 1.0;
  openaclnn::bench::TorchColumn torch(args.torch_path);

  std::printf("openaclnn Softmax family, %d threads, ISA %s; PyTorch: %s\n\n",
              openaclnn::cpu::NumThreads(), openaclnn::cpu::ActiveIsa().c_str(), torch.Describe());
  std::printf(
      "| shape | operator | dtype | openaclnn ms | GB/s | stream GB/s | of stream | PyTorch ms "
      "| PyTorch / ours |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|\n");
  std::vector<double> fractions, backward_fractions;
  for (int si : shapes) {
    for (Op op : kOps) {
      for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
        const SoftmaxShape& s = kShapes[si];
        const Result r = Measure(s, op, dt, stream, pairs, seconds);
        if (r.ours <= 0) continue;
        const double gbs = r.bytes / r.ours / 1e9, stream_gbs = r.bytes / r.stream / 1e9;
        fractions.push_back(r.fraction);
        if (IsBackward(op)) backward_fractions.push_back(r.fraction);
        const auto torch_cells = torch.Cells(
            std::to_string(si) + "/" + (dt == ACL_BF16 ? "bf16:" : "f32:") + OpName(op), r.ours);
        std::printf("| %s | %s | %s | %.3f | %.1f | %.1f | %.0f %% | %s | %s |\n",
                    s.Label().c_str(), OpName(op), dt == ACL_BF16 ? "BF16" : "FLOAT", r.ours * 1e3,
                    gbs, stream_gbs, 100.0 * r.fraction, torch_cells.ms.c_str(),
                    torch_cells.ratio.c_str());
        std::fflush(stdout);
      }
    }
  }
  if (!fractions.empty()) {
    // The one-line summary for scripts.
    std::printf("\nsoftmax: median %.0f %% of stream bandwidth (backward %.0f %%)",
                100 * Median(fractions),
                backward_fractions.empty() ? 0.0 : 100 * Median(backward_fractions));
    std::printf("%s", torch.Summary().c_str());
    std::printf("\n");
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

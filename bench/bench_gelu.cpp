// The GELU family (aclnnGeluV2 erf and tanh forms, aclnnGeluBackwardV2 both forms, aclnnGlu and
// aclnnGluBackward along the last dim) on transformer-sized activations, FLOAT and BFLOAT16. For
// each row: the median time of phase 2 plus synchronisation; GB/s counting every byte read and
// written; a stream pass over the same bytes (each pool thread reads its span of the inputs' bytes
// and writes its span of the outputs' bytes), timed in alternation with the operator; the
// fraction of it the operator reaches; and, with --torch_results=FILE (written by
// bench/bench_gelu.py), PyTorch's operator on the same shapes, against our median of back-to-back
// calls (timed as the peer is). The last line sums the table up for scripts: the median fraction
// of the stream bandwidth of the backward rows and the geometric mean speed-up over PyTorch.
//
//   bench_gelu [--quick] [--shape=INDEX] [--torch_results=FILE]
// --quick: the first shape, short repetitions; --shape: one shape only.
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
#include "aclnnop/aclnn_gelu_backward_v2.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_glu.h"
#include "aclnnop/aclnn_glu_backward.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "bench_common.h"
#include "stream_floor.h"

namespace {

using openaclnn::bench::Median;
using openaclnn::bench::TimeAgainstStream;

// Shapes of the table (bench_gelu.py has the same list): the activation's input for GELU, GLU's
// self (split along the last dim). The last one is the MLP activation of one step of
// examples/train_transformer_block at bench_train_block.py's shapes (1024 tokens, d_ff 1024).
const std::vector<int64_t> kShapes[] = {{4096, 4096}, {16384, 1024}, {2048, 8192}, {1024, 1024}};

// The operators of each row, in the order of bench_gelu.py's OPS.
enum class Op { kGeluErf, kGeluTanh, kGeluBackwardErf, kGeluBackwardTanh, kGlu, kGluBackward };
const Op kOps[] = {Op::kGeluErf,          Op::kGeluTanh, Op::kGeluBackwardErf,
                   Op::kGeluBackwardTanh, Op::kGlu,      Op::kGluBackward};
const char* OpLabel(Op op) {
  switch (op) {
    case Op::kGeluErf:
      return "gelu";
    case Op::kGeluTanh:
      return "gelu_tanh";
    case Op::kGeluBackwardErf:
      return "gelu_backward";
    case Op::kGeluBackwardTanh:
      return "gelu_backward_tanh";
    case Op::kGlu:
      return "glu";
    case Op::kGluBackward:
      return "glu_backward";
  }
  return "?";
}
bool IsBackward(Op op) {
  return op == Op::kGeluBackwardErf || op == Op::kGeluBackwardTanh || op == Op::kGluBackward;
}

aclTensor* Make(const std::vector<int64_t>& dims, aclDataType dt, void* data) {
  return aclCreateTensor(dims.data(), dims.size(), dt, nullptr, 0, ACL_FORMAT_ND, dims.data(),
                         dims.size(), data);
}

struct Result {
  double ours = 0, stream = 0, bytes = 0, fraction = 0;
  double repeated = 0;  // back to back, as the PyTorch peer is timed
};

Result Measure(const std::vector<int64_t>& dims, Op op, aclDataType dt, aclrtStream stream,
               int pairs, double seconds) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<int64_t> half = dims;
  half.back() /= 2;
  const size_t esize = openaclnn::DTypeSize(dt);
  const size_t full_bytes = static_cast<size_t>(n) * esize, half_bytes = full_bytes / 2;
  // Inputs: x (self), g (the gradient: dims, or half for GluBackward); output y.
  const std::vector<int64_t>& y_dims = op == Op::kGlu ? half : dims;
  const std::vector<int64_t>& g_dims = op == Op::kGluBackward ? half : dims;
  void *x = nullptr, *g = nullptr, *y = nullptr, *sx = nullptr, *sy = nullptr;
  aclrtMalloc(&x, full_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&g, full_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&y, full_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  for (int64_t i = 0; i < n; ++i) {
    openaclnn::StoreFromFloat(x, dt, i, u(rng));
    openaclnn::StoreFromFloat(g, dt, i, u(rng) * 0.25f);
  }
  aclTensor* tx = Make(dims, dt, x);
  aclTensor* tg = Make(g_dims, dt, g);
  aclTensor* ty = Make(y_dims, dt, y);
  size_t in_bytes = full_bytes, out_bytes = full_bytes;
  if (op == Op::kGeluBackwardErf || op == Op::kGeluBackwardTanh) in_bytes = 2 * full_bytes;
  if (op == Op::kGlu) out_bytes = half_bytes;
  if (op == Op::kGluBackward) in_bytes = full_bytes + half_bytes;
  aclrtMalloc(&sx, in_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&sy, out_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  std::memset(sx, 0, in_bytes);
  Result r;
  r.bytes = static_cast<double>(in_bytes + out_bytes);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  char none[] = "none", tanh_name[] = "tanh";
  aclnnStatus s = 0;
  aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream) = nullptr;
  switch (op) {
    case Op::kGeluErf:
    case Op::kGeluTanh:
      s = aclnnGeluV2GetWorkspaceSize(tx, op == Op::kGeluTanh ? 1 : 0, ty, &ws, &ex);
      phase2 = aclnnGeluV2;
      break;
    case Op::kGeluBackwardErf:
    case Op::kGeluBackwardTanh:
      s = aclnnGeluBackwardV2GetWorkspaceSize(
          tg, tx, op == Op::kGeluBackwardTanh ? tanh_name : none, ty, &ws, &ex);
      phase2 = aclnnGeluBackwardV2;
      break;
    case Op::kGlu:
      s = aclnnGluGetWorkspaceSize(tx, -1, ty, &ws, &ex);
      phase2 = aclnnGlu;
      break;
    case Op::kGluBackward:
      s = aclnnGluBackwardGetWorkspaceSize(tg, tx, -1, ty, &ws, &ex);
      phase2 = aclnnGluBackward;
      break;
  }
  if (s == 0 && aclSetAclOpExecutorRepeatable(ex) == 0) {
    void* workspace = nullptr;
    if (ws > 0) aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    const auto run = [&](int64_t) {
      phase2(workspace, ws, ex, stream);
      aclrtSynchronizeStream(stream);
    };
    TimeAgainstStream(run, sx, in_bytes, sy, out_bytes, pairs, seconds, &r.ours, &r.stream,
                      &r.fraction, &r.repeated);
    if (workspace != nullptr) aclrtFree(workspace);
    aclDestroyAclOpExecutor(ex);
  } else {
    std::fprintf(stderr, "%s: %s\n", OpLabel(op), aclGetRecentErrMsg());
  }
  aclDestroyTensor(tx);
  aclDestroyTensor(tg);
  aclDestroyTensor(ty);
  for (void* p : {x, g, y, sx, sy}) aclrtFree(p);
  return r;
}

std::string Label(const std::vector<int64_t>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + ")";
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
  const int pairs = args.quick ? 3 : 31;
  const double seconds = args.quick ? 0.05 : 1.0;
  openaclnn::bench::TorchColumn torch(args.torch_path);

  std::printf("openaclnn GELU / GLU, %d threads, ISA %s; PyTorch: %s\n\n",
              openaclnn::cpu::NumThreads(), openaclnn::cpu::ActiveIsa().c_str(), torch.Describe());
  std::printf(
      "| shape | operator | dtype | openaclnn ms | GB/s | stream GB/s | of stream | openaclnn ms "
      "back to back | PyTorch ms | PyTorch / ours |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  std::vector<double> backward_fractions;
  for (int si : shapes) {
    for (Op op : kOps) {
      for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
        const Result r = Measure(kShapes[si], op, dt, stream, pairs, seconds);
        if (r.ours <= 0) continue;
        if (IsBackward(op)) backward_fractions.push_back(r.fraction);
        const auto torch_cells = torch.Cells(
            std::to_string(si) + "/" + OpLabel(op) + "/" + (dt == ACL_BF16 ? "bf16" : "f32"),
            r.repeated);
        std::printf("| %s | %s | %s | %.3f | %.1f | %.1f | %.0f %% | %.3f | %s | %s |\n",
                    Label(kShapes[si]).c_str(), OpLabel(op), dt == ACL_BF16 ? "BF16" : "FLOAT",
                    r.ours * 1e3, r.bytes / r.ours / 1e9, r.bytes / r.stream / 1e9,
                    100.0 * r.fraction, r.repeated * 1e3, torch_cells.ms.c_str(),
                    torch_cells.ratio.c_str());
        std::fflush(stdout);
      }
    }
  }
  if (!backward_fractions.empty()) {
    std::printf("\ngelu: median %.0f %% of stream bandwidth (backward rows)",
                100 * Median(backward_fractions));
    std::printf("%s", torch.Summary().c_str());
    std::printf("\n");
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

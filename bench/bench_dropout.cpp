// aclnnDropoutGenMaskV2 and aclnnDropoutDoMask on large activations, each alone and the two in a
// row as a training step runs them. For each row: the median time of phase 2 plus
// synchronisation; GB/s counting every byte read and written; a stream pass over the same bytes
// timed in alternation with the operator (stream_floor.h); and the fraction of it the operator
// reaches. GenMask writes one bit per element and is bound by the Philox arithmetic (10 rounds per
// 4 elements), not by memory: its row also gives elements per second. DoMask alone applies a mask
// GenMaskV2 drew (p = 0.1) before the timing. With --torch_results=FILE
// (written by bench/bench_dropout.py), PyTorch's counterparts: a bool keep mask from bernoulli_
// for GenMask, x * mask * (1 / keep) for DoMask, torch.native_dropout for the pair (PyTorch's
// mask takes a byte per element, ours a bit), and their time over our median of back-to-back calls
// (timed as the peer is). The last line: the median fraction of the stream bandwidth of the
// DoMask rows and the geometric mean speed-up over PyTorch.
//
//   bench_dropout [--quick] [--shape=INDEX] [--torch_results=FILE]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_dropout_do_mask.h"
#include "aclnnop/aclnn_dropout_gen_mask.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "bench_common.h"
#include "stream_floor.h"

namespace {

using openaclnn::bench::Median;
using openaclnn::bench::TimeAgainstStream;

const int64_t kSizes[] = {int64_t{1} << 24, int64_t{1} << 26};

struct Result {
  double ours = 0, stream = 0, bytes = 0, fraction = 0;
  double repeated = 0;  // back to back, as the PyTorch peer is timed
};

aclTensor* Make(int64_t n, aclDataType dt, void* data) {
  return aclCreateTensor(&n, 1, dt, nullptr, 0, ACL_FORMAT_ND, &n, 1, data);
}

enum class Op { kGenMask, kDoMask, kPair };  // kPair: GenMaskV2, then DoMask on its mask

// The table's operator column, and the row key of bench_dropout.py (with the dtype).
const char* OpLabel(Op op) {
  return op == Op::kGenMask  ? "gen_mask_v2"
         : op == Op::kDoMask ? "do_mask"
                             : "gen_mask_v2 + do_mask";
}
std::string TorchKey(int size_index, Op op, aclDataType dt) {
  const std::string dname = dt == ACL_BF16 ? "bf16" : "f32";
  return std::to_string(size_index) + "/" +
         (op == Op::kGenMask ? "gen_mask" : dname + (op == Op::kDoMask ? "_do_mask" : "_dropout"));
}

// One planned operator: its executor (repeatable) and workspace.
struct Planned {
  aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream) = nullptr;
  aclOpExecutor* ex = nullptr;
  uint64_t ws = 0;
  void* workspace = nullptr;
};

Result Measure(int64_t n, Op op, aclDataType dt, aclrtStream stream, int pairs, double seconds) {
  const int64_t mask_bytes = (n + 127) / 128 * 16;
  const size_t esize = openaclnn::DTypeSize(dt);
  void *x = nullptr, *y = nullptr, *mask = nullptr, *sx = nullptr, *sy = nullptr;
  aclrtMalloc(&mask, mask_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&x, n * esize, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&y, n * esize, ACL_MEM_MALLOC_HUGE_FIRST);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  for (int64_t i = 0; i < n; ++i) openaclnn::StoreFromFloat(x, dt, i, u(rng));
  aclTensor* tm = Make(mask_bytes, ACL_UINT8, mask);
  aclTensor* tx = Make(n, dt, x);
  aclTensor* ty = Make(n, dt, y);
  aclIntArray* shape = aclCreateIntArray(&n, 1);
  // GenMask writes the mask; DoMask reads x and the mask and writes y; the pair does both.
  const bool gen = op != Op::kDoMask, apply = op != Op::kGenMask;
  const size_t in_bytes = apply ? n * esize + mask_bytes : 0;
  const size_t out_bytes = (gen ? mask_bytes : 0) + (apply ? n * esize : 0);
  // The stream pass reads at least 64 floats per thread.
  const size_t stream_in = std::max<size_t>(in_bytes, 1 << 20);
  aclrtMalloc(&sx, stream_in, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&sy, out_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  std::memset(sx, 0, stream_in);
  Result r;
  r.bytes = static_cast<double>(in_bytes + out_bytes);
  std::vector<Planned> plan;
  bool ok = true;
  {  // GenMask is planned for every row: DoMask alone applies a mask it drew before the timing.
    Planned p{aclnnDropoutGenMaskV2};
    const aclnnStatus s =
        aclnnDropoutGenMaskV2GetWorkspaceSize(shape, 0.1, 42, 7, ACL_FLOAT, tm, &p.ws, &p.ex);
    ok = s == 0 && aclSetAclOpExecutorRepeatable(p.ex) == 0;
    plan.push_back(p);
  }
  if (apply && ok) {
    Planned p{aclnnDropoutDoMask};
    const aclnnStatus s = aclnnDropoutDoMaskGetWorkspaceSize(tx, tm, 0.1, ty, &p.ws, &p.ex);
    ok = s == 0 && aclSetAclOpExecutorRepeatable(p.ex) == 0;
    plan.push_back(p);
  }
  if (ok) {
    for (Planned& p : plan) {
      if (p.ws > 0) aclrtMalloc(&p.workspace, p.ws, ACL_MEM_MALLOC_HUGE_FIRST);
    }
    // A real keep mask (probability 0.9, random bits): DoMask's time may depend on the bits.
    plan[0].phase2(plan[0].workspace, plan[0].ws, plan[0].ex, stream);
    aclrtSynchronizeStream(stream);
    const size_t first_timed = gen ? 0 : 1;
    const auto run = [&](int64_t) {
      for (size_t i = first_timed; i < plan.size(); ++i) {
        plan[i].phase2(plan[i].workspace, plan[i].ws, plan[i].ex, stream);
      }
      aclrtSynchronizeStream(stream);
    };
    TimeAgainstStream(run, sx, stream_in, sy, out_bytes, pairs, seconds, &r.ours, &r.stream,
                      &r.fraction, &r.repeated);
  } else {
    std::fprintf(stderr, "%s: %s\n", OpLabel(op), aclGetRecentErrMsg());
  }
  for (const Planned& p : plan) {
    if (p.workspace != nullptr) aclrtFree(p.workspace);
    if (p.ex != nullptr) aclDestroyAclOpExecutor(p.ex);
  }
  aclDestroyIntArray(shape);
  for (aclTensor* t : {tm, tx, ty}) aclDestroyTensor(t);
  for (void* p : {x, y, mask, sx, sy}) aclrtFree(p);
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
  const std::vector<int> sizes = openaclnn::bench::SelectShapes(static_cast<int>(std::size(kSizes)),
                                                                args.quick, args.only_shape);
  const int pairs = args.quick ? 3 : 21;
  const double seconds = args.quick ? 0.05 : 1.0;
  openaclnn::bench::TorchColumn torch(args.torch_path);
  std::printf("openaclnn dropout, %d threads, ISA %s; PyTorch: %s\n\n",
              openaclnn::cpu::NumThreads(), openaclnn::cpu::ActiveIsa().c_str(), torch.Describe());
  std::printf(
      "| elements | operator | dtype | openaclnn ms | GB/s | stream GB/s | of stream | Gelem/s | "
      "openaclnn ms back to back | PyTorch ms | PyTorch / ours |\n");
  std::printf("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::vector<double> do_mask_fractions;
  for (int si : sizes) {
    const int64_t n = kSizes[si];
    for (Op op : {Op::kGenMask, Op::kDoMask, Op::kPair}) {
      for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
        if (op == Op::kGenMask && dt != ACL_FLOAT) continue;  // GenMask has no data dtype
        const Result r = Measure(n, op, dt, stream, pairs, seconds);
        if (r.ours <= 0) continue;
        if (op == Op::kDoMask) do_mask_fractions.push_back(r.fraction);
        const auto torch_cells = torch.Cells(TorchKey(si, op, dt), r.repeated);
        std::printf("| %lld | %s | %s | %.3f | %.1f | %.1f | %.0f %% | %.2f | %.3f | %s | %s |\n",
                    static_cast<long long>(n), OpLabel(op),
                    op == Op::kGenMask ? "-" : (dt == ACL_BF16 ? "BF16" : "FLOAT"), r.ours * 1e3,
                    r.bytes / r.ours / 1e9, r.bytes / r.stream / 1e9, 100.0 * r.fraction,
                    n / r.ours / 1e9, r.repeated * 1e3, torch_cells.ms.c_str(),
                    torch_cells.ratio.c_str());
        std::fflush(stdout);
      }
    }
  }
  if (!do_mask_fractions.empty()) {
    std::printf("\ndropout: median %.0f %% of stream bandwidth (do_mask rows)%s\n",
                100 * Median(do_mask_fractions), torch.Summary().c_str());
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

// aclnnDropoutGenMaskV2 and aclnnDropoutDoMask on large activations. For each row: the median time
// of phase 2 plus synchronisation; GB/s counting every byte read and written; a stream pass over
// the same bytes timed in alternation with the operator (stream_floor.h); and the fraction of it
// the operator reaches. GenMask writes one bit per element and is bound by the Philox arithmetic
// (10 rounds per 4 elements), not by memory: its row also gives elements per second.
//
//   bench_dropout [--quick] [--shape=INDEX]
// (no PyTorch peer yet: --torch_results is accepted and ignored.)
#include <algorithm>
#include <cstdio>
#include <cstring>
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

using openaclnn::bench::AlternatingMedians;
using openaclnn::bench::StreamPass;

const int64_t kSizes[] = {int64_t{1} << 24, int64_t{1} << 26};

struct Result {
  double ours = 0, stream = 0, bytes = 0, fraction = 0;
};

aclTensor* Make(int64_t n, aclDataType dt, void* data) {
  return aclCreateTensor(&n, 1, dt, nullptr, 0, ACL_FORMAT_ND, &n, 1, data);
}

// op 0: GenMaskV2; op 1: DoMask.
Result Measure(int64_t n, int op, aclDataType dt, aclrtStream stream, int pairs, double seconds) {
  const int64_t mask_bytes = (n + 127) / 128 * 16;
  const size_t esize = openaclnn::DTypeSize(dt);
  void *x = nullptr, *y = nullptr, *mask = nullptr, *sx = nullptr, *sy = nullptr;
  aclrtMalloc(&mask, mask_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&x, n * esize, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&y, n * esize, ACL_MEM_MALLOC_HUGE_FIRST);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  for (int64_t i = 0; i < n; ++i) openaclnn::StoreFromFloat(x, dt, i, u(rng));
  std::memset(mask, 0x5A, mask_bytes);
  aclTensor* tm = Make(mask_bytes, ACL_UINT8, mask);
  aclTensor* tx = Make(n, dt, x);
  aclTensor* ty = Make(n, dt, y);
  aclIntArray* shape = aclCreateIntArray(&n, 1);
  const size_t in_bytes = op == 0 ? 0 : n * esize + mask_bytes;
  const size_t out_bytes = op == 0 ? mask_bytes : n * esize;
  // The stream pass reads at least 64 floats per thread.
  const size_t stream_in = std::max<size_t>(in_bytes, 1 << 20);
  aclrtMalloc(&sx, stream_in, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&sy, out_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  std::memset(sx, 0, stream_in);
  Result r;
  r.bytes = static_cast<double>(in_bytes + out_bytes);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream) = nullptr;
  aclnnStatus s = 0;
  if (op == 0) {
    s = aclnnDropoutGenMaskV2GetWorkspaceSize(shape, 0.1, 42, 7, ACL_FLOAT, tm, &ws, &ex);
    phase2 = aclnnDropoutGenMaskV2;
  } else {
    s = aclnnDropoutDoMaskGetWorkspaceSize(tx, tm, 0.1, ty, &ws, &ex);
    phase2 = aclnnDropoutDoMask;
  }
  if (s == 0 && aclSetAclOpExecutorRepeatable(ex) == 0) {
    void* workspace = nullptr;
    if (ws > 0) aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<float> sums;
    static volatile float sink = 0;
    AlternatingMedians(
        [&](int64_t) {
          phase2(workspace, ws, ex, stream);
          aclrtSynchronizeStream(stream);
        },
        [&](int64_t) { sink = sink + StreamPass(sx, stream_in, &sums, sy, out_bytes); }, pairs,
        seconds, &r.ours, &r.stream, &r.fraction);
    if (workspace != nullptr) aclrtFree(workspace);
    aclDestroyAclOpExecutor(ex);
  } else {
    std::fprintf(stderr, "op %d: %s\n", op, aclGetRecentErrMsg());
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
  std::vector<int> sizes;
  if (args.only_shape >= 0 && args.only_shape < static_cast<int>(std::size(kSizes))) {
    sizes.push_back(args.only_shape);
  } else if (args.quick) {
    sizes.push_back(0);
  } else {
    for (int i = 0; i < static_cast<int>(std::size(kSizes)); ++i) sizes.push_back(i);
  }
  const int pairs = args.quick ? 3 : 21;
  const double seconds = args.quick ? 0.05 : 1.0;
  std::printf("openaclnn dropout, %d threads, ISA %s\n\n", openaclnn::cpu::NumThreads(),
              openaclnn::cpu::ActiveIsa().c_str());
  std::printf(
      "| elements | operator | dtype | openaclnn ms | GB/s | stream GB/s | of stream | "
      "Gelem/s |\n");
  std::printf("|---:|---|---|---:|---:|---:|---:|---:|\n");
  for (int si : sizes) {
    const int64_t n = kSizes[si];
    for (int op : {0, 1}) {
      for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
        if (op == 0 && dt != ACL_FLOAT) continue;  // GenMask has no data dtype
        const Result r = Measure(n, op, dt, stream, pairs, seconds);
        if (r.ours <= 0) continue;
        std::printf("| %lld | %s | %s | %.3f | %.1f | %.1f | %.0f %% | %.2f |\n",
                    static_cast<long long>(n), op == 0 ? "gen_mask_v2" : "do_mask",
                    op == 0 ? "-" : (dt == ACL_BF16 ? "BF16" : "FLOAT"), r.ours * 1e3,
                    r.bytes / r.ours / 1e9, r.bytes / r.stream / 1e9, 100.0 * r.fraction,
                    n / r.ours / 1e9);
        std::fflush(stdout);
      }
    }
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

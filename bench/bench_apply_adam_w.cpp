// aclnnApplyAdamWV2 on large parameter tensors (FLOAT and BFLOAT16 state and grads, without and
// with amsgrad). For each row: the median time of phase 2 plus synchronisation; GB/s counting every
// byte read (var, m, v, grad, and maxGradNorm with amsgrad) and written (var, m, v, and
// maxGradNorm); a stream pass over the same bytes timed in alternation with the operator
// (stream_floor.h); and the fraction of it the operator reaches.
//
// With --torch_results=FILE (written by bench/bench_apply_adam_w.py): PyTorch's fused AdamW step
// (torch._fused_adamw_) on the same sizes, and its time over our median of back-to-back calls
// (timed as the peer is).
//
//   bench_apply_adam_w [--quick] [--shape=INDEX] [--torch_results=FILE]
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_apply_adam_w_v2.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "bench_common.h"
#include "stream_floor.h"

namespace {

using openaclnn::bench::TimeAgainstStream;

const int64_t kSizes[] = {int64_t{1} << 22, int64_t{1} << 24};

struct Result {
  double ours = 0, stream = 0, bytes = 0, fraction = 0;
  double repeated = 0;  // back to back, as the PyTorch peer is timed
};

aclTensor* Make(int64_t n, aclDataType dt, void* data) {
  return aclCreateTensor(&n, 1, dt, nullptr, 0, ACL_FORMAT_ND, &n, 1, data);
}

Result Measure(int64_t n, aclDataType dt, bool amsgrad, aclrtStream stream, int pairs,
               double seconds) {
  const size_t bytes = static_cast<size_t>(n) * openaclnn::DTypeSize(dt);
  void* buf[5] = {};
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int k = 0; k < 5; ++k) {
    aclrtMalloc(&buf[k], bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    for (int64_t i = 0; i < n; ++i) {
      const float r = u(rng);
      openaclnn::StoreFromFloat(buf[k], dt, i, k == 2 || k == 3 ? r * r : r);
    }
  }
  aclTensor* t[5];
  for (int k = 0; k < 5; ++k) t[k] = Make(n, dt, buf[k]);
  int64_t step_value = 10, one = 1;
  void* step_data = nullptr;
  aclrtMalloc(&step_data, sizeof(int64_t), ACL_MEM_MALLOC_HUGE_FIRST);
  std::memcpy(step_data, &step_value, sizeof(step_value));
  aclTensor* step =
      aclCreateTensor(&one, 1, ACL_INT64, nullptr, 0, ACL_FORMAT_ND, &one, 1, step_data);
  const int tensors = amsgrad ? 5 : 4;
  const size_t in_bytes = tensors * bytes, out_bytes = (tensors - 1) * bytes;
  void *sx = nullptr, *sy = nullptr;
  aclrtMalloc(&sx, in_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  aclrtMalloc(&sy, out_bytes, ACL_MEM_MALLOC_HUGE_FIRST);
  std::memset(sx, 0, in_bytes);
  Result r;
  r.bytes = static_cast<double>(in_bytes + out_bytes);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  const aclnnStatus s = aclnnApplyAdamWV2GetWorkspaceSize(
      t[0], t[1], t[2], amsgrad ? t[3] : nullptr, t[4], step, 1e-3f, 0.9f, 0.999f, 0.01f, 1e-8f,
      amsgrad, false, &ws, &ex);
  if (s == 0 && aclSetAclOpExecutorRepeatable(ex) == 0) {
    void* workspace = nullptr;
    if (ws > 0) aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    const auto run = [&](int64_t) {
      aclnnApplyAdamWV2(workspace, ws, ex, stream);
      aclrtSynchronizeStream(stream);
    };
    TimeAgainstStream(run, sx, in_bytes, sy, out_bytes, pairs, seconds, &r.ours, &r.stream,
                      &r.fraction, &r.repeated);
    if (workspace != nullptr) aclrtFree(workspace);
    aclDestroyAclOpExecutor(ex);
  } else {
    std::fprintf(stderr, "apply_adam_w_v2: %s\n", aclGetRecentErrMsg());
  }
  aclDestroyTensor(step);
  aclrtFree(step_data);
  for (int k = 0; k < 5; ++k) {
    aclDestroyTensor(t[k]);
    aclrtFree(buf[k]);
  }
  aclrtFree(sx);
  aclrtFree(sy);
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
  std::printf("openaclnn ApplyAdamWV2, %d threads, ISA %s; PyTorch: %s\n\n",
              openaclnn::cpu::NumThreads(), openaclnn::cpu::ActiveIsa().c_str(), torch.Describe());
  std::printf(
      "| elements | dtype | amsgrad | openaclnn ms | GB/s | stream GB/s | of stream | openaclnn ms "
      "back to back | PyTorch ms | PyTorch / ours |\n");
  std::printf("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int si : sizes) {
    for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
      for (bool amsgrad : {false, true}) {
        const Result r = Measure(kSizes[si], dt, amsgrad, stream, pairs, seconds);
        if (r.ours <= 0) continue;
        const auto torch_cells =
            torch.Cells(std::to_string(si) + "/" + (dt == ACL_BF16 ? "bf16" : "f32") +
                            (amsgrad ? "_amsgrad" : ""),
                        r.repeated);
        std::printf("| %lld | %s | %s | %.3f | %.1f | %.1f | %.0f %% | %.3f | %s | %s |\n",
                    static_cast<long long>(kSizes[si]), dt == ACL_BF16 ? "BF16" : "FLOAT",
                    amsgrad ? "yes" : "no", r.ours * 1e3, r.bytes / r.ours / 1e9,
                    r.bytes / r.stream / 1e9, 100.0 * r.fraction, r.repeated * 1e3,
                    torch_cells.ms.c_str(), torch_cells.ratio.c_str());
        std::fflush(stdout);
      }
    }
  }
  if (torch.booked() > 0) {
    std::printf("\napply_adam_w_v2: geometric mean %.2fx PyTorch\n", torch.GeometricMean());
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

// aclnnConvTbcBackward on fairseq's convolution shapes (issue 4), FLOAT and BFLOAT16: median time
// of phase 2 plus synchronisation on a repeatable executor, GFLOP/s counted as
// ../shared/notes/machine.md does, and the ratio to the fp32 FMA peak measured in the same run.
// bench/bench_conv_tbc_backward.py adds PyTorch's conv_tbc_backward and prints the table.
//
//   bench_conv_tbc_backward [--quick] [google-benchmark flags]
// --quick: three shapes, one short repetition each (the README's main job).
#include <benchmark/benchmark.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "api/dtype.h"
#include "backend/cpu/thread_pool.h"
#include "bench_common.h"
#include "kernels/cpu/gemm.h"

namespace {

struct Shape {
  int64_t t_in, batch, c_in, c_out, taps, pad;
  int64_t t_out() const { return t_in + 2 * pad + 1 - taps; }
  // 2 products x 2*B*Cin*Cout*S, S = output steps each tap touches, summed over taps.
  double Flops() const {
    int64_t steps = 0;
    for (int64_t k = 0; k < taps; ++k) {
      const int64_t lo = std::max<int64_t>(0, pad - k);
      const int64_t hi = std::min<int64_t>(t_out(), t_in + pad - k);
      steps += std::max<int64_t>(0, hi - lo);
    }
    return 2.0 * 2.0 * batch * c_in * c_out * steps;
  }
};

const Shape kShapes[] = {
    {32, 128, 512, 1024, 3, 1},  {32, 128, 512, 1024, 3, 2}, {32, 128, 1024, 2048, 3, 1},
    {32, 128, 1024, 4096, 1, 0}, {30, 100, 768, 1536, 3, 1}, {100, 40, 512, 1024, 3, 1},
    {25, 160, 256, 512, 3, 1},   {1024, 1, 850, 1700, 6, 5}, {64, 16, 64, 64, 3, 1},
    {64, 32, 512, 512, 31, 15},
};

double g_peak_gflops = 0;

using openaclnn::bench::MeasureFmaPeak;

struct DeviceBuffer {
  void* ptr = nullptr;
  aclTensor* tensor = nullptr;
  DeviceBuffer(std::vector<int64_t> shape, aclDataType dtype, float scale) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const size_t bytes = std::max<size_t>(n * openaclnn::DTypeSize(dtype), 64);
    aclrtMalloc(&ptr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<uint8_t> host(bytes);
    for (int64_t i = 0; i < n; ++i) {
      openaclnn::StoreFromFloat(host.data(), dtype, i,
                                scale * static_cast<float>((i * 37) % 101 - 50) / 50);
    }
    aclrtMemcpy(ptr, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    tensor = aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, ACL_FORMAT_ND,
                             shape.data(), shape.size(), ptr);
  }
  ~DeviceBuffer() {
    aclDestroyTensor(tensor);
    aclrtFree(ptr);
  }
};

void BM_ConvTbcBackward(benchmark::State& state, Shape s, aclDataType dtype) {
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  DeviceBuffer dy({s.t_out(), s.batch, s.c_out}, dtype, 1.0f);
  DeviceBuffer x({s.t_in, s.batch, s.c_in}, dtype, 1.0f);
  DeviceBuffer w({s.taps, s.c_in, s.c_out}, dtype, 0.1f);
  DeviceBuffer b({s.c_out}, dtype, 0.0f);
  DeviceBuffer gx({s.t_in, s.batch, s.c_in}, dtype, 0.0f);
  DeviceBuffer gw({s.taps, s.c_in, s.c_out}, dtype, 0.0f);
  DeviceBuffer gb({s.c_out}, dtype, 0.0f);
  uint64_t ws_size = 0;
  aclOpExecutor* ex = nullptr;
  if (aclnnConvTbcBackwardGetWorkspaceSize(dy.tensor, x.tensor, w.tensor, b.tensor, s.pad, 0,
                                           gx.tensor, gw.tensor, gb.tensor, &ws_size, &ex) != 0 ||
      aclSetAclOpExecutorRepeatable(ex) != 0) {
    state.SkipWithError(aclGetRecentErrMsg());
    return;
  }
  void* ws = nullptr;
  if (ws_size > 0) aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST);
  // One untimed run: first-touch of the outputs and oneDNN's kernel generation.
  aclnnConvTbcBackward(ws, ws_size, ex, stream);
  aclrtSynchronizeStream(stream);
  double total_s = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    aclnnConvTbcBackward(ws, ws_size, ex, stream);
    aclrtSynchronizeStream(stream);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(seconds);
    total_s += seconds;
  }
  const double flops = s.Flops();
  const double gflops = total_s > 0 ? flops * state.iterations() / total_s / 1e9 : 0;
  state.counters["pct_of_peak"] = 100.0 * gflops / g_peak_gflops;
  state.counters["GFLOPs"] =
      benchmark::Counter(flops / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak_GFLOPs"] = g_peak_gflops;
  state.counters["workspace_MiB"] = ws_size / 1048576.0;
  aclDestroyAclOpExecutor(ex);
  if (ws != nullptr) aclrtFree(ws);
  aclrtDestroyStream(stream);
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = openaclnn::bench::TakeFlag(&argc, argv, "--quick");
  benchmark::Initialize(&argc, argv);
  aclInit(nullptr);
  aclrtSetDevice(0);
  const int threads = openaclnn::cpu::NumThreads();
  g_peak_gflops = MeasureFmaPeak(threads);
  std::printf("threads %d, fp32 FMA peak %.1f GFLOP/s (in-register %s FMA), GEMM provider %s\n",
              threads, g_peak_gflops, openaclnn::bench::FmaRegisterName(),
              openaclnn::cpu::GemmProviderName());
  const int quick_set[] = {0, 3, 8};
  for (int i = 0; i < static_cast<int>(sizeof(kShapes) / sizeof(kShapes[0])); ++i) {
    if (quick && std::find(std::begin(quick_set), std::end(quick_set), i) == std::end(quick_set)) {
      continue;
    }
    const Shape& s = kShapes[i];
    for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
      char name[160];
      std::snprintf(name, sizeof(name),
                    "ConvTbcBackward/%s/T%lld_B%lld_Cin%lld_Cout%lld_K%lld_pad%lld",
                    dt == ACL_FLOAT ? "FLOAT" : "BF16", static_cast<long long>(s.t_in),
                    static_cast<long long>(s.batch), static_cast<long long>(s.c_in),
                    static_cast<long long>(s.c_out), static_cast<long long>(s.taps),
                    static_cast<long long>(s.pad));
      auto* bm = benchmark::RegisterBenchmark(name, BM_ConvTbcBackward, s, dt)
                     ->UseManualTime()
                     ->Unit(benchmark::kMillisecond);
      if (quick) {
        bm->Iterations(3);
      } else {
        // The median is the figure to quote; the minimum shows what a quiet machine gives
        // (the development machines are shared).
        bm->MinTime(0.5)->Repetitions(5)->ReportAggregatesOnly(true)->ComputeStatistics(
            "min",
            [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
      }
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

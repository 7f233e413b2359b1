// GPU benchmark of aclnnLayerNormBackward and aclnnConvTbcBackward on the CUDA device, on the CPU
// issues' shape sets, FLOAT and BFLOAT16, next to a device-to-device copy measured in the same run.
// Each repetition first overwrites a 64 MiB buffer (more than the H200's 50 MB L2), then times
// only the operator's phase 2 with CUDA events on the operator's own stream (manual time).
//
//   bench_cuda_ops [--benchmark_filter=...] [--benchmark_format=json]
//
// bench/cuda/bench_cuda.py runs it next to PyTorch on the same GPU and prints the table.

#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "api/dtype.h"
#include "backend/cuda/runtime.h"
#include "bench_common.h"
#include "runtime/device.h"
#include "runtime/stream.h"

namespace {

constexpr size_t kFlushBytes = size_t{64} << 20;

aclrtStream g_stream = nullptr;
cudaStream_t g_cuda_stream = nullptr;
void* g_flush = nullptr;

#define BENCH_CHECK(expr)                                                         \
  do {                                                                            \
    if (!(expr)) {                                                                \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,   \
                   aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "(no message)"); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

// A device buffer of `count` elements of `dtype` filled from a uniform [lo, hi) distribution.
void* DeviceRandom(int64_t count, aclDataType dtype, float lo, float hi, uint32_t seed) {
  const size_t bytes =
      std::max<size_t>(static_cast<size_t>(count) * openaclnn::DTypeSize(dtype), 64);
  std::vector<unsigned char> host(bytes);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (int64_t i = 0; i < count; ++i) openaclnn::StoreFromFloat(host.data(), dtype, i, u(rng));
  void* dev = nullptr;
  BENCH_CHECK(aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  BENCH_CHECK(aclrtMemcpy(dev, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE) ==
              ACL_SUCCESS);
  return dev;
}

aclTensor* Tensor(const std::vector<int64_t>& dims, aclDataType dtype, void* data) {
  return aclCreateTensor(dims.data(), dims.size(), dtype, nullptr, 0, ACL_FORMAT_ND, dims.data(),
                         dims.size(), data);
}

// Runs `launch` (which queues work on g_stream) once per iteration after flushing L2, timing
// only the launch's GPU work.
template <class Launch>
void TimeOnGpu(benchmark::State& state, Launch&& launch) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  launch();  // warm-up (cuBLAS heuristics, first-touch)
  BENCH_CHECK(aclrtSynchronizeStream(g_stream) == ACL_SUCCESS);
  for (auto _ : state) {
    cudaMemsetAsync(g_flush, static_cast<int>(state.iterations() & 0xff), kFlushBytes,
                    g_cuda_stream);
    cudaEventRecord(start, g_cuda_stream);
    launch();
    cudaEventRecord(stop, g_cuda_stream);
    BENCH_CHECK(aclrtSynchronizeStream(g_stream) == ACL_SUCCESS);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    state.SetIterationTime(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

// ---- LayerNorm backward -------------------------------------------------------------------

struct LnShape {
  int64_t m, n;
};
const LnShape kLnShapes[] = {{16384, 768}, {16384, 1024}, {8192, 1600},   {16384, 4096},
                             {8192, 8192}, {50432, 384},  {1048576, 128}, {401408, 24},
                             {512, 65536}, {4445, 512},   {1000, 1},      {800000, 16}};

void LayerNormBackward(benchmark::State& state, int shape_index, aclDataType dtype) {
  const LnShape s = kLnShapes[shape_index];
  void* dy = DeviceRandom(s.m * s.n, dtype, -1, 1, 1);
  void* x = DeviceRandom(s.m * s.n, dtype, -2, 1, 2);
  void* dx = DeviceRandom(s.m * s.n, dtype, 0, 0, 3);
  void* mean = DeviceRandom(s.m, ACL_FLOAT, -0.5f, -0.5f, 4);
  void* rstd = DeviceRandom(s.m, ACL_FLOAT, 0.6f, 0.7f, 5);
  void* w = DeviceRandom(s.n, ACL_FLOAT, 0.9f, 1.1f, 6);
  void* gw = DeviceRandom(s.n, ACL_FLOAT, 0, 0, 7);
  void* gb = DeviceRandom(s.n, ACL_FLOAT, 0, 0, 8);
  aclTensor* t_dy = Tensor({s.m, s.n}, dtype, dy);
  aclTensor* t_x = Tensor({s.m, s.n}, dtype, x);
  aclTensor* t_dx = Tensor({s.m, s.n}, dtype, dx);
  aclTensor* t_mean = Tensor({s.m, 1}, ACL_FLOAT, mean);
  aclTensor* t_rstd = Tensor({s.m, 1}, ACL_FLOAT, rstd);
  aclTensor* t_w = Tensor({s.n}, ACL_FLOAT, w);
  aclTensor* t_gw = Tensor({s.n}, ACL_FLOAT, gw);
  aclTensor* t_gb = Tensor({s.n}, ACL_FLOAT, gb);
  aclIntArray* norm = aclCreateIntArray(&s.n, 1);
  const bool mask_values[3] = {true, true, true};
  aclBoolArray* mask = aclCreateBoolArray(mask_values, 3);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  BENCH_CHECK(aclnnLayerNormBackwardGetWorkspaceSize(t_dy, t_x, norm, t_mean, t_rstd, t_w, nullptr,
                                                     mask, t_dx, t_gw, t_gb, &ws,
                                                     &ex) == ACLNN_SUCCESS);
  BENCH_CHECK(aclSetAclOpExecutorRepeatable(ex) == ACLNN_SUCCESS);
  void* workspace = nullptr;
  if (ws > 0) BENCH_CHECK(aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  TimeOnGpu(state, [&] {
    BENCH_CHECK(aclnnLayerNormBackward(workspace, ws, ex, g_stream) == ACLNN_SUCCESS);
  });
  const double bytes =
      3.0 * s.m * s.n * openaclnn::DTypeSize(dtype) + 2.0 * s.m * 4 + 3.0 * s.n * 4;
  state.counters["bytes"] = bytes;
  state.counters["GBps"] = benchmark::Counter(
      bytes * static_cast<double>(state.iterations()) * 1e-9, benchmark::Counter::kIsRate);
  aclDestroyAclOpExecutor(ex);
  if (workspace != nullptr) aclrtFree(workspace);
  for (aclTensor* t : {t_dy, t_x, t_dx, t_mean, t_rstd, t_w, t_gw, t_gb}) aclDestroyTensor(t);
  aclDestroyIntArray(norm);
  aclDestroyBoolArray(mask);
  for (void* p : {dy, x, dx, mean, rstd, w, gw, gb}) aclrtFree(p);
}

// ---- ConvTbc backward ---------------------------------------------------------------------

struct ConvShape {
  int64_t t_in, batch, c_in, c_out, taps, pad;
};
const ConvShape kConvShapes[] = {
    {32, 128, 512, 1024, 3, 1},  {32, 128, 512, 1024, 3, 2}, {32, 128, 1024, 2048, 3, 1},
    {32, 128, 1024, 4096, 1, 0}, {30, 100, 768, 1536, 3, 1}, {100, 40, 512, 1024, 3, 1},
    {25, 160, 256, 512, 3, 1},   {1024, 1, 850, 1700, 6, 5}, {64, 16, 64, 64, 3, 1},
    {64, 32, 512, 512, 31, 15},
};

double ConvFlops(const ConvShape& s) {
  const int64_t t_out = s.t_in + 2 * s.pad + 1 - s.taps;
  double steps = 0;
  for (int64_t k = 0; k < s.taps; ++k) {
    const int64_t lo = std::max<int64_t>(0, s.pad - k);
    const int64_t hi = std::min<int64_t>(t_out, s.t_in + s.pad - k);
    steps += static_cast<double>(std::max<int64_t>(0, hi - lo));
  }
  return 2.0 * 2.0 * static_cast<double>(s.batch * s.c_in * s.c_out) * steps;
}

void ConvTbcBackward(benchmark::State& state, int shape_index, aclDataType dtype) {
  const ConvShape s = kConvShapes[shape_index];
  const int64_t t_out = s.t_in + 2 * s.pad + 1 - s.taps;
  void* dy = DeviceRandom(t_out * s.batch * s.c_out, dtype, -1, 1, 11);
  void* x = DeviceRandom(s.t_in * s.batch * s.c_in, dtype, -1, 1, 12);
  void* w = DeviceRandom(s.taps * s.c_in * s.c_out, dtype, -0.1f, 0.1f, 13);
  void* b = DeviceRandom(s.c_out, dtype, 0, 0, 14);
  void* gx = DeviceRandom(s.t_in * s.batch * s.c_in, dtype, 0, 0, 15);
  void* gw = DeviceRandom(s.taps * s.c_in * s.c_out, dtype, 0, 0, 16);
  void* gb = DeviceRandom(s.c_out, dtype, 0, 0, 17);
  aclTensor* t_dy = Tensor({t_out, s.batch, s.c_out}, dtype, dy);
  aclTensor* t_x = Tensor({s.t_in, s.batch, s.c_in}, dtype, x);
  aclTensor* t_w = Tensor({s.taps, s.c_in, s.c_out}, dtype, w);
  aclTensor* t_b = Tensor({s.c_out}, dtype, b);
  aclTensor* t_gx = Tensor({s.t_in, s.batch, s.c_in}, dtype, gx);
  aclTensor* t_gw = Tensor({s.taps, s.c_in, s.c_out}, dtype, gw);
  aclTensor* t_gb = Tensor({s.c_out}, dtype, gb);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  BENCH_CHECK(aclnnConvTbcBackwardGetWorkspaceSize(t_dy, t_x, t_w, t_b, s.pad, 0, t_gx, t_gw, t_gb,
                                                   &ws, &ex) == ACLNN_SUCCESS);
  BENCH_CHECK(aclSetAclOpExecutorRepeatable(ex) == ACLNN_SUCCESS);
  void* workspace = nullptr;
  if (ws > 0) BENCH_CHECK(aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  TimeOnGpu(state, [&] {
    BENCH_CHECK(aclnnConvTbcBackward(workspace, ws, ex, g_stream) == ACLNN_SUCCESS);
  });
  const double flops = ConvFlops(s);
  state.counters["flops"] = flops;
  state.counters["TFLOPs"] = benchmark::Counter(
      flops * static_cast<double>(state.iterations()) * 1e-12, benchmark::Counter::kIsRate);
  aclDestroyAclOpExecutor(ex);
  if (workspace != nullptr) aclrtFree(workspace);
  for (aclTensor* t : {t_dy, t_x, t_w, t_b, t_gx, t_gw, t_gb}) aclDestroyTensor(t);
  for (void* p : {dy, x, w, b, gx, gw, gb}) aclrtFree(p);
}

// ---- The same-run limit: a device-to-device copy ---------------------------------------------

void DeviceCopy(benchmark::State& state) {
  const size_t bytes = size_t{1} << 30;
  void *src = nullptr, *dst = nullptr;
  BENCH_CHECK(aclrtMalloc(&src, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  BENCH_CHECK(aclrtMalloc(&dst, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
  BENCH_CHECK(aclrtMemset(src, bytes, 1, bytes) == ACL_SUCCESS);
  TimeOnGpu(state, [&] {
    BENCH_CHECK(aclrtMemcpyAsync(dst, bytes, src, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, g_stream) ==
                ACL_SUCCESS);
  });
  state.counters["bytes"] = 2.0 * static_cast<double>(bytes);  // read + write
  state.counters["GBps"] = benchmark::Counter(
      2.0 * static_cast<double>(bytes) * static_cast<double>(state.iterations()) * 1e-9,
      benchmark::Counter::kIsRate);
  aclrtFree(src);
  aclrtFree(dst);
}

const char* DtypeLabel(aclDataType dtype) { return dtype == ACL_FLOAT ? "FLOAT" : "BFLOAT16"; }

}  // namespace

int main(int argc, char** argv) {
  // --quick: the copy, two LayerNorm shapes and one ConvTbc shape, FLOAT and BFLOAT16.
  const bool quick = openaclnn::bench::TakeFlag(&argc, argv, "--quick");
  if (openaclnn::ProcessDeviceKind() != openaclnn::DeviceKind::kCuda) {
    std::printf("bench_cuda_ops: no CUDA device (%s); nothing to measure\n",
                openaclnn::cuda::UnavailableReason());
    return 0;
  }
  BENCH_CHECK(aclInit(nullptr) == ACL_SUCCESS);
  BENCH_CHECK(aclrtSetDevice(0) == ACL_SUCCESS);
  BENCH_CHECK(aclrtCreateStream(&g_stream) == ACL_SUCCESS);
  g_cuda_stream =
      static_cast<cudaStream_t>(openaclnn::CudaStreamOf(static_cast<openaclnn::Stream*>(g_stream)));
  BENCH_CHECK(aclrtMalloc(&g_flush, kFlushBytes, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);

  benchmark::RegisterBenchmark("DeviceCopy/1GiB", DeviceCopy)->UseManualTime()->MinTime(0.2);
  for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    for (int i = 0; i < static_cast<int>(std::size(kLnShapes)); ++i) {
      if (quick && i != 1 && i != 7) continue;
      const std::string name = std::string("LayerNormBackward/") + DtypeLabel(dtype) + "/M" +
                               std::to_string(kLnShapes[i].m) + "_N" +
                               std::to_string(kLnShapes[i].n);
      benchmark::RegisterBenchmark(name.c_str(), LayerNormBackward, i, dtype)
          ->UseManualTime()
          ->MinTime(0.1);
    }
    for (int i = 0; i < static_cast<int>(std::size(kConvShapes)); ++i) {
      if (quick && i != 0) continue;
      const ConvShape& s = kConvShapes[i];
      const std::string name = std::string("ConvTbcBackward/") + DtypeLabel(dtype) + "/T" +
                               std::to_string(s.t_in) + "_B" + std::to_string(s.batch) + "_Cin" +
                               std::to_string(s.c_in) + "_Cout" + std::to_string(s.c_out) + "_K" +
                               std::to_string(s.taps) + "_pad" + std::to_string(s.pad);
      benchmark::RegisterBenchmark(name.c_str(), ConvTbcBackward, i, dtype)
          ->UseManualTime()
          ->MinTime(0.1);
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  aclrtFree(g_flush);
  aclrtDestroyStream(g_stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

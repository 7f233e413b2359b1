// aclnnConvTbc (forward) on fairseq's convolution shapes (issue 4), FLOAT and BFLOAT16 (FLOAT
// bias): the median time of phase 2 plus synchronisation on a repeatable executor; GFLOP/s
// counted as ../shared/notes/machine.md does for one product (2*B*Cin*Cout*S, S = output steps
// each tap touches, summed over taps); the ratio to the fp32 FMA peak measured in the same run;
// and, with --torch_results=FILE (written by bench/bench_conv_tbc_forward.py), PyTorch's
// conv_tbc on the same shapes.
//
//   bench_conv_tbc [--quick] [--shape=INDEX] [--torch_results=FILE]
// --quick: three shapes, short repetitions (the README's main job); --shape: one shape only.
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "bench_common.h"
#include "kernels/cpu/gemm.h"

namespace {

struct Shape {
  int64_t t_in, batch, c_in, c_out, taps, pad;
  int64_t t_out() const { return t_in + 2 * pad + 1 - taps; }
  double Flops() const {
    int64_t steps = 0;
    for (int64_t k = 0; k < taps; ++k) {
      const int64_t lo = std::max<int64_t>(0, pad - k);
      const int64_t hi = std::min<int64_t>(t_out(), t_in + pad - k);
      steps += std::max<int64_t>(0, hi - lo);
    }
    return 2.0 * batch * c_in * c_out * steps;
  }
  std::string Label() const {
    char buf[96];
    std::snprintf(buf, sizeof(buf), "(%lld, %lld, %lld, %lld, %lld, %lld)",
                  static_cast<long long>(t_in), static_cast<long long>(batch),
                  static_cast<long long>(c_in), static_cast<long long>(c_out),
                  static_cast<long long>(taps), static_cast<long long>(pad));
    return buf;
  }
};

// (T_in, B, Cin, Cout, K, pad), the shapes of bench_conv_tbc_backward.cpp in the same order.
const Shape kShapes[] = {
    {32, 128, 512, 1024, 3, 1},  {32, 128, 512, 1024, 3, 2}, {32, 128, 1024, 2048, 3, 1},
    {32, 128, 1024, 4096, 1, 0}, {30, 100, 768, 1536, 3, 1}, {100, 40, 512, 1024, 3, 1},
    {25, 160, 256, 512, 3, 1},   {1024, 1, 850, 1700, 6, 5}, {64, 16, 64, 64, 3, 1},
    {64, 32, 512, 512, 31, 15},
};
const int kQuickShapes[] = {0, 7, 8};

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double MedianSeconds(const std::function<void()>& fn, int reps, double min_time) {
  fn();  // warm-up: first touch, the GEMM provider's kernel generation
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    int calls = 0;
    const double t0 = Now();
    double t1 = t0;
    do {
      fn();
      ++calls;
      t1 = Now();
    } while (t1 - t0 < min_time);
    times.push_back((t1 - t0) / calls);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

using openaclnn::bench::MeasureFmaPeak;

struct DeviceBuffer {
  void* ptr = nullptr;
  aclTensor* tensor = nullptr;
  DeviceBuffer(std::vector<int64_t> shape, aclDataType dtype, float scale) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const size_t bytes = std::max<size_t>(n * openaclnn::DTypeSize(dtype), 64);
    aclrtMalloc(&ptr, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    for (int64_t i = 0; i < n; ++i) {
      openaclnn::StoreFromFloat(ptr, dtype, i,
                                scale * static_cast<float>((i * 37) % 101 - 50) / 50);
    }
    tensor = aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, ACL_FORMAT_ND,
                             shape.data(), shape.size(), ptr);
  }
  ~DeviceBuffer() {
    aclDestroyTensor(tensor);
    aclrtFree(ptr);
  }
};

double Measure(const Shape& s, aclDataType dtype, aclrtStream stream, int reps, double min_time) {
  DeviceBuffer x({s.t_in, s.batch, s.c_in}, dtype, 1.0f);
  DeviceBuffer w({s.taps, s.c_in, s.c_out}, dtype, 0.1f);
  DeviceBuffer b({s.c_out}, ACL_FLOAT, 0.5f);
  DeviceBuffer y({s.t_out(), s.batch, s.c_out}, dtype, 0.0f);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  if (aclnnConvTbcGetWorkspaceSize(x.tensor, w.tensor, b.tensor, s.pad, y.tensor, 0, &ws, &ex) !=
          0 ||
      aclSetAclOpExecutorRepeatable(ex) != 0) {
    std::fprintf(stderr, "%s: %s\n", s.Label().c_str(), aclGetRecentErrMsg());
    return 0;
  }
  void* workspace = nullptr;
  if (ws > 0) aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  const double t = MedianSeconds(
      [&] {
        aclnnConvTbc(workspace, ws, ex, stream);
        aclrtSynchronizeStream(stream);
      },
      reps, min_time);
  aclDestroyAclOpExecutor(ex);
  if (workspace != nullptr) aclrtFree(workspace);
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  openaclnn::bench::TableBenchArgs args;
  if (!openaclnn::bench::ParseTableBenchArgs(argc, argv, &args)) return 2;
  const bool quick = args.quick;
  const int only_shape = args.only_shape;
  const std::string& torch_path = args.torch_path;
  aclInit(nullptr);
  aclrtSetDevice(0);
  aclrtStream stream = nullptr;
  aclrtCreateStream(&stream);
  const std::vector<int> shapes =
      openaclnn::bench::SelectShapes(static_cast<int>(std::size(kShapes)), quick, only_shape,
                                     {std::begin(kQuickShapes), std::end(kQuickShapes)});
  const int reps = quick ? 3 : 5;
  const double min_time = quick ? 0.1 : 0.3;
  openaclnn::bench::TorchColumn torch(torch_path);
  // The machine is shared: the peak is measured before every shape and the highest value seen
  // in the run is the denominator, so a busy moment does not inflate the ratios.
  const int threads = openaclnn::cpu::NumThreads();
  double peak = 0;
  struct Row {
    int shape;
    aclDataType dtype;
    double seconds;
  };
  std::vector<Row> rows;
  for (int si : shapes) {
    peak = std::max(peak, MeasureFmaPeak(threads));
    for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
      const double t = Measure(kShapes[si], dt, stream, reps, min_time);
      if (t > 0) rows.push_back({si, dt, t});
    }
  }
  peak = std::max(peak, MeasureFmaPeak(threads));
  std::printf(
      "openaclnn ConvTbc forward, %d threads, ISA %s, GEMM %s; fp32 FMA peak %.0f "
      "GFLOP/s (highest in this run); PyTorch: %s\n\n",
      threads, openaclnn::cpu::ActiveIsa().c_str(), openaclnn::cpu::GemmProviderName(), peak,
      torch.Describe());
  std::printf(
      "| (T_in, B, Cin, Cout, K, pad) | dtype | openaclnn ms | GFLOP/s | of peak | "
      "PyTorch ms | PyTorch / ours |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|\n");
  for (const Row& row : rows) {
    const Shape& s = kShapes[row.shape];
    const double t = row.seconds;
    const double gflops = s.Flops() / t / 1e9;
    const auto torch_cells =
        torch.Cells(std::to_string(row.shape) + "/" + (row.dtype == ACL_BF16 ? "bf16" : "f32"), t);
    std::printf("| %s | %s | %.3f | %.0f | %.0f %% | %s | %s |\n", s.Label().c_str(),
                row.dtype == ACL_BF16 ? "BF16" : "FLOAT", t * 1e3, gflops, 100.0 * gflops / peak,
                torch_cells.ms.c_str(), torch_cells.ratio.c_str());
  }
  if (torch.booked() > 0) {
    std::printf("\ngeometric mean speed-up over PyTorch: %.2fx\n", torch.GeometricMean());
  }
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}

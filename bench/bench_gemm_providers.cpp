// The GEMM providers the CPU operators could use, on the tiles the ConvTbc and matmul plans
// actually run (single-threaded calls on fixed tiles, as cpu::SgemmRowMajor is used), measured in
// one run:
//   onednn_sgemm   oneDNN's dnnl_sgemm through cpu::SgemmRowMajor (the fp32 provider of the
//                  plain tiles);
//   onednn_brgemm  oneDNN's f32 matmul primitive through cpu::MatmulRowMajorTo (its brgemm
//                  kernels on AVX-512: the FLOAT panel and blocked-B tiles), where it runs;
//   onednn_bf16    oneDNN's bf16 matmul through cpu::Bf16GemmRowMajor (bfloat16 inputs);
//   openblas       Debian's OpenBLAS as it loads (dlopen; its core type as it detects it, or as
//                  OPENBLAS_CORETYPE says when set before this program starts);
//   blis           Debian's BLIS (dlopen; its CBLAS interface);
//   mkl            Intel MKL from Debian's non-free archive (libmkl-rt, 2020.4 in bookworm; dlopen
//                  of libmkl_rt.so with its sequential threading layer), where installed: not a
//                  dependency of the library, measured as the candidate provider it would be;
//   small_gemm     openaclnn's small-product kernel (cpu::SmallGemm, no packing), on the tiles of
//                  at most 256 in every dim (the matmul plans use it where SmallGemmPays says).
// Libraries that are not installed are reported as skipped. Counter: GFLOP/s on one thread.
//
//   bench_gemm_providers [--quick] [--benchmark_filter=...]

#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "bench_common.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/small_gemm.h"

namespace {

// CBLAS enums (values fixed by the CBLAS standard).
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                            int, float, float*, int);

struct Blas {
  CblasSgemm sgemm = nullptr;
  std::string note;
};

// A CBLAS sgemm from a shared library, single-threaded when the library says how.
Blas LoadBlas(const char* soname, const char* set_threads) {
  Blas blas;
  void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    blas.note = std::string(soname) + " not installed";
    return blas;
  }
  // MKL's single dynamic library: the sequential layer (1 = MKL_THREADING_SEQUENTIAL), chosen
  // before its first call, so no OpenMP runtime of its own is loaded.
  if (auto layer = reinterpret_cast<int (*)(int)>(dlsym(handle, "MKL_Set_Threading_Layer"))) {
    layer(1);
  }
  if (auto version =
          reinterpret_cast<void (*)(char*, int)>(dlsym(handle, "MKL_Get_Version_String"))) {
    char buf[256] = {};
    version(buf, static_cast<int>(sizeof(buf)) - 1);
    blas.note = buf;  // "Intel(R) Math Kernel Library Version 2020.0.4 Product Build ..."
    const size_t build = blas.note.find(" Product Build");
    if (build != std::string::npos) blas.note.resize(build);
  }
  blas.sgemm = reinterpret_cast<CblasSgemm>(dlsym(handle, "cblas_sgemm"));
  if (blas.sgemm == nullptr) blas.note = std::string(soname) + " has no cblas_sgemm";
  if (auto threads = reinterpret_cast<void (*)(int)>(dlsym(handle, set_threads))) threads(1);
  if (auto config = reinterpret_cast<char* (*)()>(dlsym(handle, "openblas_get_config"))) {
    blas.note = config();
  }
  if (auto core = reinterpret_cast<char* (*)()>(dlsym(handle, "openblas_get_corename"))) {
    blas.note += std::string(" core=") + core();
  }
  return blas;
}

const Blas& OpenBlas() {
  static const Blas blas = LoadBlas("libopenblas.so.0", "openblas_set_num_threads");
  return blas;
}
const Blas& Blis() {
  static const Blas blas = LoadBlas("libblis.so.4", "bli_thread_set_num_threads");
  return blas;
}
const Blas& Mkl() {
  static const Blas blas = LoadBlas("libmkl_rt.so", "MKL_Set_Num_Threads");
  return blas;
}

// The tiles: (name, m, n, k, trans_a, trans_b) as the ConvTbc plans call them.
struct Tile {
  const char* name;
  int64_t m, n, k;
  bool trans_a, trans_b;
};
const Tile kTiles[] = {
    {"gradWeight_256x512x4096_At", 256, 512, 4096, true, false},
    {"gradInput_256x512x1024_Bt", 256, 512, 1024, false, true},
    {"forward_256x512x512", 256, 512, 512, false, false},
    // A 512-row chunk of the FLOAT panel mode's gradWeight tile, and a matmul tile.
    {"panel_gradWeight_256x512x512_At", 256, 512, 512, true, false},
    {"matmul_512x512x1024", 512, 512, 1024, false, false},
    // Attention's per-head products (one batch of the training block's BatchMatMul calls).
    {"heads_64x64x64", 64, 64, 64, false, false},
    {"heads_64x64x64_At", 64, 64, 64, true, false},
    {"heads_64x64x64_Bt", 64, 64, 64, false, true},
    {"heads_128x128x128", 128, 128, 128, false, false},
    {"heads_128x128x64", 128, 128, 64, false, false},
    {"heads_64x64x256", 64, 64, 256, false, false},
};

struct Operands {
  std::vector<float> a, b, c;
  std::vector<uint16_t> a16, b16;
  int64_t lda, ldb, ldc;
  explicit Operands(const Tile& t) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    a.resize(t.m * t.k);
    b.resize(t.k * t.n);
    c.assign(t.m * t.n, 0.f);
    for (float& v : a) v = u(rng);
    for (float& v : b) v = u(rng);
    for (float v : a) a16.push_back(openaclnn::FloatToBFloat16(v));
    for (float v : b) b16.push_back(openaclnn::FloatToBFloat16(v));
    lda = t.trans_a ? t.m : t.k;
    ldb = t.trans_b ? t.k : t.n;
    ldc = t.n;
  }
};

void Provider(benchmark::State& state, int tile_index, const std::string& provider) {
  const Tile& t = kTiles[tile_index];
  Operands o(t);
  const Blas* blas = provider == "openblas" ? &OpenBlas()
                     : provider == "blis"   ? &Blis()
                     : provider == "mkl"    ? &Mkl()
                                            : nullptr;
  if (blas != nullptr && blas->sgemm == nullptr) {
    state.SkipWithError(blas->note.c_str());
    return;
  }
  const openaclnn::cpu::KernelTarget target = openaclnn::cpu::PlanningTarget();
  if (provider == "small_gemm" && !openaclnn::cpu::SmallGemmRuns(target)) {
    state.SkipWithError("the small-product kernel does not run on this target");
    return;
  }
  if (provider == "onednn_brgemm" && !openaclnn::cpu::HasBrgemmFloat()) {
    state.SkipWithError("oneDNN's f32 brgemm kernels do not run on this CPU");
    return;
  }
  openaclnn::cpu::GemmOutput out;
  out.c = o.c.data();
  out.ldc = o.ldc;
  auto run = [&] {
    if (provider == "small_gemm") {
      openaclnn::cpu::SmallGemm(
          target, t.m, t.n, t.k, 1.f, {o.a.data(), t.trans_a ? 1 : o.lda, t.trans_a ? o.lda : 1},
          {o.b.data(), t.trans_b ? 1 : o.ldb, t.trans_b ? o.ldb : 1}, false, o.c.data(), o.ldc);
    } else if (provider == "onednn_sgemm") {
      (void)openaclnn::cpu::SgemmRowMajor(t.trans_a, t.trans_b, t.m, t.n, t.k, 1.f, o.a.data(),
                                          o.lda, o.b.data(), o.ldb, 0.f, o.c.data(), o.ldc);
    } else if (provider == "onednn_brgemm") {
      (void)openaclnn::cpu::MatmulRowMajorTo(openaclnn::cpu::GemmElement::kFloat, t.trans_a,
                                             t.trans_b, t.m, t.n, t.k, o.a.data(), o.lda,
                                             o.b.data(), o.ldb, out);
    } else if (provider == "onednn_bf16") {
      (void)openaclnn::cpu::Bf16GemmRowMajor(t.trans_a, t.trans_b, t.m, t.n, t.k, o.a16.data(),
                                             o.lda, o.b16.data(), o.ldb, false, o.c.data(), o.ldc);
    } else {
      blas->sgemm(kRowMajor, t.trans_a ? kTrans : kNoTrans, t.trans_b ? kTrans : kNoTrans,
                  static_cast<int>(t.m), static_cast<int>(t.n), static_cast<int>(t.k), 1.f,
                  o.a.data(), static_cast<int>(o.lda), o.b.data(), static_cast<int>(o.ldb), 0.f,
                  o.c.data(), static_cast<int>(o.ldc));
    }
  };
  run();  // warm-up: JIT, primitive creation, first touch
  for (auto _ : state) {
    run();
    benchmark::ClobberMemory();
  }
  const double flops = 2.0 * t.m * t.n * t.k;
  state.counters["GFLOPs"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  if (blas != nullptr) state.SetLabel(blas->note);
  if (provider == "onednn_bf16" && !openaclnn::cpu::HasFastBf16Gemm()) {
    state.SetLabel("no native bfloat16 on this CPU");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = openaclnn::bench::TakeFlag(&argc, argv, "--quick");
  std::printf("GEMM provider in use: %s; bfloat16 products native: %s\n",
              openaclnn::cpu::GemmProviderName(), openaclnn::cpu::HasFastBf16Gemm() ? "yes" : "no");
  for (int i = 0; i < static_cast<int>(std::size(kTiles)); ++i) {
    if (quick && i != 0) continue;
    const Tile& t = kTiles[i];
    const bool small = t.m <= 256 && t.n <= 256 && t.k <= 256;
    for (const char* provider : {"onednn_sgemm", "onednn_brgemm", "onednn_bf16", "openblas", "blis",
                                 "mkl", "small_gemm"}) {
      if (!small && std::strcmp(provider, "small_gemm") == 0) continue;
      const std::string name = std::string("Gemm/") + t.name + "/" + provider;
      benchmark::RegisterBenchmark(name.c_str(), Provider, i, std::string(provider))
          ->MinTime(quick ? 0.1 : 0.5)
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

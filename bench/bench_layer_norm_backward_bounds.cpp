// How close the LayerNorm backward row kernel comes to what its operations cost at least on one
// core of this machine, and what the smallest stream task costs: the two bounds that the issue's
// "80 % of the floor" target meets on the 2-vCPU machine (see docs/ops/layer_norm_backward.md).
//
// 1. The row kernel (ProcessRows, the instruction set dispatched on this CPU, one thread, rows
//    resident in L1 or L2) against a minimal AVX2 loop over the same bfloat16 rows: the
//    algorithm's operations (two passes, bfloat16 widening, the centred xhat, the two row sums,
//    the gradWeight / gradBias partials in memory, dx rounded to nearest even and packed) and
//    none of the kernel's guarantees (no NaN handling in the rounding, two accumulators per sum
//    instead of the canonical 32 lanes, no tails, no prefetch). Its results are not checked
//    against anything: it only bounds the time.
// 2. aclrtMemsetAsync of 4 bytes plus aclrtSynchronizeStream: the round trip of the least task a
//    CPU stream runs (its worker thread, by design; see architecture.md).
//
// Prints one markdown table; --quick takes fewer repetitions.

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "bench_common.h"
#include "hwy/aligned_allocator.h"
#include "ops/layer_norm_backward/cpu/row_kernels.h"

namespace {

namespace lnb = openaclnn::layer_norm_backward::cpu;

// Rows of bfloat16 dy and x with their statistics, a weight and fp32 partials, as the benchmark's
// (16384, 768) BF16 problem has them, only fewer rows.
struct Problem {
  int64_t m, n;
  hwy::AlignedFreeUniquePtr<uint16_t[]> dy, x, dx;
  hwy::AlignedFreeUniquePtr<float[]> mean, rstd, weight, gw, gb;
};

Problem MakeProblem(int64_t m, int64_t n) {
  Problem p{m, n, hwy::AllocateAligned<uint16_t>(m * n), hwy::AllocateAligned<uint16_t>(m * n),
            hwy::AllocateAligned<uint16_t>(m * n), hwy::AllocateAligned<float>(m),
            hwy::AllocateAligned<float>(m), hwy::AllocateAligned<float>(n),
            hwy::AllocateAligned<float>(n),
            // gradBias half a page after gradWeight's offset, as fast.cpp lays them out
            hwy::AllocateAligned<float>(n + 512)};
  for (int64_t i = 0; i < m * n; ++i) {
    p.dy[i] = static_cast<uint16_t>(0x3E00 + i % 51);  // bfloat16 bits of 0.125 .. 0.2
    p.x[i] = static_cast<uint16_t>(0x3F00 + i % 77);   // 0.5 .. 0.8
  }
  for (int64_t r = 0; r < m; ++r) {
    p.mean[r] = 0.6f;
    p.rstd[r] = 8.0f;
  }
  for (int64_t c = 0; c < n; ++c) p.weight[c] = 1.1f;
  return p;
}

#define MINIMAL_TARGET __attribute__((target("avx2,fma")))

// 16 bfloat16 values as two float vectors (columns 0-3 and 8-11, then 4-7 and 12-15: the order
// does not matter to the bound, as long as the weight and the partials follow it).
MINIMAL_TARGET inline void Widen(const uint16_t* at, __m256* lo, __m256* hi) {
  const __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
  *lo = _mm256_castsi256_ps(_mm256_unpacklo_epi16(_mm256_setzero_si256(), raw));
  *hi = _mm256_castsi256_ps(_mm256_unpackhi_epi16(_mm256_setzero_si256(), raw));
}

// The bfloat16 bits of v, rounded to nearest even, in the low half of each lane (NaN ignored).
MINIMAL_TARGET inline __m256i RoundToBf16Bits(__m256 v) {
  const __m256i u = _mm256_castps_si256(v);
  const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
  return _mm256_srli_epi32(_mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7FFF), lsb)),
                           16);
}

// dy, xhat = (x - mean) * rstd and a = dy * w for 16 columns, as two vectors each (Widen's order).
struct Columns16 {
  __m256 dy[2], xh[2], a[2];
};
MINIMAL_TARGET inline Columns16 LoadColumns16(const uint16_t* dy, const uint16_t* x, const float* w,
                                              __m256 mean, __m256 rstd) {
  Columns16 v;
  __m256 x_lo, x_hi;
  Widen(x, &x_lo, &x_hi);
  Widen(dy, &v.dy[0], &v.dy[1]);
  v.xh[0] = _mm256_mul_ps(_mm256_sub_ps(x_lo, mean), rstd);
  v.xh[1] = _mm256_mul_ps(_mm256_sub_ps(x_hi, mean), rstd);
  v.a[0] = _mm256_mul_ps(v.dy[0], _mm256_load_ps(w));
  v.a[1] = _mm256_mul_ps(v.dy[1], _mm256_load_ps(w + 8));
  return v;
}

// The minimal loop (see the top of the file); n a multiple of 16.
MINIMAL_TARGET void MinimalRows(Problem& p, bool params) {
  const int64_t n = p.n;
  float* const gw = p.gw.get();
  float* const gb = p.gb.get() + 512;
  for (int64_t r = 0; r < p.m; ++r) {
    const uint16_t* dy = p.dy.get() + r * n;
    const uint16_t* x = p.x.get() + r * n;
    uint16_t* dx = p.dx.get() + r * n;
    const __m256 mean = _mm256_set1_ps(p.mean[r]);
    const __m256 rstd = _mm256_set1_ps(p.rstd[r]);
    __m256 sum_a0 = _mm256_setzero_ps(), sum_a1 = sum_a0, sum_ax0 = sum_a0, sum_ax1 = sum_a0;
    for (int64_t c = 0; c < n; c += 16) {
      const Columns16 v = LoadColumns16(dy + c, x + c, p.weight.get() + c, mean, rstd);
      sum_a0 = _mm256_add_ps(sum_a0, v.a[0]);
      sum_a1 = _mm256_add_ps(sum_a1, v.a[1]);
      sum_ax0 = _mm256_fmadd_ps(v.a[0], v.xh[0], sum_ax0);
      sum_ax1 = _mm256_fmadd_ps(v.a[1], v.xh[1], sum_ax1);
      if (params) {
        _mm256_store_ps(gw + c, _mm256_fmadd_ps(v.dy[0], v.xh[0], _mm256_load_ps(gw + c)));
        _mm256_store_ps(gw + c + 8, _mm256_fmadd_ps(v.dy[1], v.xh[1], _mm256_load_ps(gw + c + 8)));
        _mm256_store_ps(gb + c, _mm256_add_ps(v.dy[0], _mm256_load_ps(gb + c)));
        _mm256_store_ps(gb + c + 8, _mm256_add_ps(v.dy[1], _mm256_load_ps(gb + c + 8)));
      }
    }
    const __m256 sa = _mm256_add_ps(sum_a0, sum_a1);
    const __m256 sx = _mm256_add_ps(sum_ax0, sum_ax1);
    __m128 both = _mm_hadd_ps(_mm_add_ps(_mm256_castps256_ps128(sa), _mm256_extractf128_ps(sa, 1)),
                              _mm_add_ps(_mm256_castps256_ps128(sx), _mm256_extractf128_ps(sx, 1)));
    both = _mm_hadd_ps(both, both);  // lane 0: sum of a, lane 1: sum of a * xhat
    const float inv_n = 1.0f / static_cast<float>(n);
    const __m256 c1 = _mm256_set1_ps(_mm_cvtss_f32(both) * inv_n);
    const __m256 c2 = _mm256_set1_ps(_mm_cvtss_f32(_mm_shuffle_ps(both, both, 1)) * inv_n);
    for (int64_t c = 0; c < n; c += 16) {
      const Columns16 v = LoadColumns16(dy + c, x + c, p.weight.get() + c, mean, rstd);
      const __m256 out0 =
          _mm256_mul_ps(rstd, _mm256_fnmadd_ps(v.xh[0], c2, _mm256_sub_ps(v.a[0], c1)));
      const __m256 out1 =
          _mm256_mul_ps(rstd, _mm256_fnmadd_ps(v.xh[1], c2, _mm256_sub_ps(v.a[1], c1)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dx + c),
                          _mm256_packus_epi32(RoundToBf16Bits(out0), RoundToBf16Bits(out1)));
    }
  }
}

void KernelRows(Problem& p, bool params) {
  static const openaclnn::cpu::KernelTarget target = openaclnn::cpu::PlanningTarget();
  lnb::RowArgs a;
  a.n = p.n;
  a.n_pad = (p.n + lnb::kBlock - 1) / lnb::kBlock * lnb::kBlock;
  a.in = a.dx = openaclnn::ElemType::kBFloat16;
  a.want_dx = true;
  a.want_params = params;
  a.rows_contiguous = true;
  a.lead.rank = 1;
  a.lead.dims[0] = p.m;
  for (auto& s : a.lead.strides) s[0] = p.n;
  a.stat.rank = 1;
  a.stat.dims[0] = p.m;
  a.stat.strides[0][0] = a.stat.strides[1][0] = 1;
  lnb::RowPointers ptrs;
  ptrs.dy = p.dy.get();
  ptrs.x = p.x.get();
  ptrs.dx = p.dx.get();
  ptrs.mean = p.mean.get();
  ptrs.rstd = p.rstd.get();
  ptrs.weight = p.weight.get();  // all 1.1: the same in column and swapped order
  lnb::ProcessRows(target, a, ptrs, 0, p.m, p.gw.get(), p.gb.get() + 512);
}

double Median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// Median over `reps` calls of `fn`, in nanoseconds.
template <class Fn>
double MedianNs(int reps, Fn&& fn) {
  std::vector<double> t;
  t.reserve(static_cast<size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    t.push_back(
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
  }
  return Median(std::move(t));
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = openaclnn::bench::TakeFlag(&argc, argv, "--quick");
  if (argc > 1) {
    std::fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
    return 2;
  }
  // Rounds of the two loops in turn (each a median of calls), so that both see the same state of
  // a shared, noisy host; the table gives the medians over the rounds, and of the round ratios.
  const int rounds = quick ? 3 : 31;
  const int scale = quick ? 1 : 10;
  std::printf(
      "LayerNorm backward bounds, one thread: bfloat16 rows, ns per element (median over %d rounds "
      "of the two loops in turn)\n\n"
      "| rows (M, N) | resident in | parameter partials | row kernel | minimal AVX2 loop | "
      "kernel / minimal |\n|---|---|---|---:|---:|---:|\n",
      rounds);
  const bool has_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  struct Case {
    int64_t m, n;
    const char* where;
  };
  for (const Case& c : {Case{8, 512, "L1"}, Case{64, 768, "L2"}}) {
    Problem p = MakeProblem(c.m, c.n);
    const double elements = static_cast<double>(c.m * c.n);
    const int reps = static_cast<int>(scale * 200 * 4096 / (c.m * c.n)) + 20;
    for (const bool params : {true, false}) {
      auto kernel = [&] { KernelRows(p, params); };
      auto minimal = [&] { MinimalRows(p, params); };
      std::vector<double> kernel_ns, minimal_ns, ratio;
      for (int round = 0; round < rounds; ++round) {
        for (int warm = 0; warm < 10; ++warm) kernel();
        kernel_ns.push_back(MedianNs(reps, kernel) / elements);
        if (!has_avx2) continue;
        for (int warm = 0; warm < 10; ++warm) minimal();
        minimal_ns.push_back(MedianNs(reps, minimal) / elements);
        ratio.push_back(kernel_ns.back() / minimal_ns.back());
      }
      std::printf("| (%lld, %lld) | %s | %s | %.3f |", static_cast<long long>(c.m),
                  static_cast<long long>(c.n), c.where, params ? "yes" : "no", Median(kernel_ns));
      if (has_avx2) {
        std::printf(" %.3f | %.2f |\n", Median(minimal_ns), Median(ratio));
      } else {
        std::printf(" - (no AVX2) | - |\n");
      }
    }
  }

  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
    std::fprintf(stderr, "aclInit / aclrtSetDevice failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  aclrtStream stream = nullptr;
  void* target = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS ||
      aclrtMalloc(&target, 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    std::fprintf(stderr, "stream or allocation failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  bool failed = false;
  const double round_trip_us =
      MedianNs(rounds * 1000,
               [&] {
                 failed |= aclrtMemsetAsync(target, 64, 0, 4, stream) != ACL_SUCCESS ||
                           aclrtSynchronizeStream(stream) != ACL_SUCCESS;
               }) /
      1000.0;
  const double idle_sync_us =
      MedianNs(rounds * 1000, [&] { failed |= aclrtSynchronizeStream(stream) != ACL_SUCCESS; }) /
      1000.0;
  (void)aclrtFree(target);
  (void)aclrtDestroyStream(stream);
  (void)aclrtResetDevice(0);
  (void)aclFinalize();
  if (failed) {
    std::fprintf(stderr, "a stream call failed: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  std::printf(
      "\nstream round trip (aclrtMemsetAsync of 4 bytes + aclrtSynchronizeStream): %.3f us;\n"
      "aclrtSynchronizeStream of an idle stream: %.3f us\n",
      round_trip_us, idle_sync_us);
  return 0;
}

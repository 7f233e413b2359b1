#pragma once
// The paired stream floor of the kit's benchmarks: a multi-threaded read (or read and write) of
// the operator's bytes, timed in alternation with the operator so both see the same background
// load, and the medians of both and of their ratio.

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "backend/cpu/thread_pool.h"

namespace openaclnn::bench {

inline double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Median seconds of one call of `a` and of one call of `b`, the calls alternating (a, b, a, b,
// ...; call i of each gets i, so a benchmark can rotate its buffers) after a warm-up, for at least
// `min_pairs` pairs and `seconds` in all: both see the same background load, down to the
// scheduler's time slices. `b_over_a`: the median over the pairs of b's time over a's, the figure
// that stays put when the machine's bandwidth changes during the run (on a shared machine it moves
// between about 20 and 90 GB/s).
inline void AlternatingMedians(const std::function<void(int64_t)>& a,
                               const std::function<void(int64_t)>& b, int min_pairs, double seconds,
                               double* a_seconds, double* b_seconds, double* b_over_a) {
  for (int64_t i = 0; i < 2; ++i) {
    a(i);
    b(i);
  }
  std::vector<double> ta, tb, ratio;
  const double start = Now();
  for (int64_t i = 2; static_cast<int>(ta.size()) < min_pairs || Now() - start < seconds; ++i) {
    const double t0 = Now();
    a(i);
    const double t1 = Now();
    b(i);
    const double t2 = Now();
    ta.push_back(t1 - t0);
    tb.push_back(t2 - t1);
    ratio.push_back((t2 - t1) / (t1 - t0));
  }
  *a_seconds = Median(ta);
  *b_seconds = Median(tb);
  *b_over_a = Median(ratio);
}

// Median seconds of one call of `a`, the calls back to back after two untimed ones, for at least
// `min_calls` calls and `seconds` in all: the calling pattern of the PyTorch peers
// (torch_peer.timed), under which operands that fit in the caches stay there between calls. The
// "PyTorch / ours" columns compare this figure with PyTorch's, so both libraries are timed from the
// same cache state; the alternating figure above (caches flushed by the stream pass before every
// call) is the one the bandwidth columns use.
inline double RepeatedMedian(const std::function<void(int64_t)>& a, int min_calls, double seconds) {
  for (int64_t i = 0; i < 2; ++i) a(i);
  std::vector<double> times;
  const double start = Now();
  for (int64_t i = 2; static_cast<int>(times.size()) < min_calls || Now() - start < seconds; ++i) {
    const double t0 = Now();
    a(i);
    times.push_back(Now() - t0);
  }
  return Median(times);
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx512f"))) inline float SumBlockAvx512(const float* p, int64_t n) {
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    a0 = _mm512_add_ps(a0, _mm512_loadu_ps(p + i));
    a1 = _mm512_add_ps(a1, _mm512_loadu_ps(p + i + 16));
    a2 = _mm512_add_ps(a2, _mm512_loadu_ps(p + i + 32));
    a3 = _mm512_add_ps(a3, _mm512_loadu_ps(p + i + 48));
  }
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)));
  float s = 0;
  for (float v : lanes) s += v;
  for (; i < n; ++i) s += p[i];
  return s;
}

__attribute__((target("avx2"))) inline float SumBlockAvx2(const float* p, int64_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    a0 = _mm256_add_ps(a0, _mm256_loadu_ps(p + i));
    a1 = _mm256_add_ps(a1, _mm256_loadu_ps(p + i + 8));
    a2 = _mm256_add_ps(a2, _mm256_loadu_ps(p + i + 16));
    a3 = _mm256_add_ps(a3, _mm256_loadu_ps(p + i + 24));
  }
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, _mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  float s = 0;
  for (float v : lanes) s += v;
  for (; i < n; ++i) s += p[i];
  return s;
}

// The sum of n floats with the widest vectors this CPU has (the value only keeps the reads live).
inline float SumBlock(const float* p, int64_t n) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512 ? SumBlockAvx512(p, n) : SumBlockAvx2(p, n);
}
#else
// Elsewhere (aarch64): four independent sums the compiler vectorises (NEON at -O2 and up).
inline float SumBlock(const float* p, int64_t n) {
  float a[16] = {};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int j = 0; j < 16; ++j) a[j] += p[i + j];
  }
  float s = 0;
  for (float v : a) s += v;
  for (; i < n; ++i) s += p[i];
  return s;
}
#endif

// One multi-threaded read-and-sum of `in_bytes` at `src` and, when `out_bytes` > 0, a write of
// `out_bytes` at `dst`: one contiguous span of each per pool thread (whole 64-float rounds; the
// last thread takes the rest). Returns a value that depends on every read.
inline float StreamPass(const void* src, size_t in_bytes, std::vector<float>* sums,
                        void* dst = nullptr, size_t out_bytes = 0) {
  const float* p = static_cast<const float*>(src);
  const int64_t count = static_cast<int64_t>(in_bytes / sizeof(float));
  const int64_t tasks = cpu::NumThreads();
  const int64_t span = count / tasks / 64 * 64;
  const size_t out_span = out_bytes / static_cast<size_t>(tasks) / 64 * 64;
  sums->assign(static_cast<size_t>(tasks), 0.f);
  cpu::ParallelFor(tasks, [&](int64_t t) {
    const int64_t n = t + 1 == tasks ? count - t * span : span;
    (*sums)[static_cast<size_t>(t)] = SumBlock(p + t * span, n);
    if (out_bytes > 0) {
      const size_t o = static_cast<size_t>(t) * out_span;
      const size_t m = t + 1 == tasks ? out_bytes - o : out_span;
      std::memset(static_cast<char*>(dst) + o, static_cast<int>(t), m);
    }
  });
  return (*sums)[0];
}

// The figures of one operator call `run` in the kit's tables: its median alternated with a stream
// pass over the same bytes (StreamPass(src, in_bytes, ..., dst, out_bytes)), the pass's median
// and the median ratio of the two (AlternatingMedians), and its median back to back
// (RepeatedMedian, the figure the PyTorch columns compare).
inline void TimeAgainstStream(const std::function<void(int64_t)>& run, const void* src,
                              size_t in_bytes, void* dst, size_t out_bytes, int pairs,
                              double seconds, double* ours, double* stream, double* fraction,
                              double* repeated) {
  std::vector<float> sums;
  static volatile float sink = 0;
  AlternatingMedians(
      run, [&](int64_t) { sink = sink + StreamPass(src, in_bytes, &sums, dst, out_bytes); }, pairs,
      seconds, ours, stream, fraction);
  *repeated = RepeatedMedian(run, pairs, seconds);
}

}  // namespace openaclnn::bench

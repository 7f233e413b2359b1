#pragma once
// What the CPU benchmark programs share: their extra command-line flags, the same-run fp32 FMA
// peak, and the LayerNorm shape set of issue 3.

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace openaclnn::bench {

// Removes every `flag` from argv (so Google Benchmark never sees it); true when it was there.
inline bool TakeFlag(int* argc, char** argv, const char* flag) {
  bool found = false;
  int kept = 0;
  for (int i = 0; i < *argc; ++i) {
    if (i > 0 && std::strcmp(argv[i], flag) == 0) {
      found = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  return found;
}

// PyTorch timings written by the bench/*.py scripts: a "#<version>" line, then lines
// "shape_index dtype seconds". Keyed "shape_index/dtype"; empty when `path` is empty.
inline std::map<std::string, double> ReadTorchResults(const std::string& path,
                                                      std::string* version) {
  std::map<std::string, double> out;
  if (path.empty()) return out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind('#', 0) == 0) {
      *version = line.substr(1);
      continue;
    }
    std::istringstream is(line);
    int shape;
    std::string dt;
    double sec;
    if (is >> shape >> dt >> sec) out[std::to_string(shape) + "/" + dt] = sec;
  }
  return out;
}

// A peer's times beside ours in a benchmark table: the "<peer> ms" and "<peer> / ours" cells of
// each row ("-" where the peer has no time for the row) and the geometric mean of the ratios
// booked, for the summary line.
class PeerColumn {
 public:
  struct RowCells {
    std::string ms = "-";     // the peer's time in milliseconds, "%.3f"
    std::string ratio = "-";  // the peer's time over ours, "%.2f"
  };

  // `seconds`: the peer's time per row key.
  explicit PeerColumn(std::map<std::string, double> seconds) : seconds_(std::move(seconds)) {}

  // The cells of the row `key`, where ours took `our_seconds`; the ratio counts in the geometric
  // mean when `book` (a table may show rows its summary leaves out).
  RowCells Cells(const std::string& key, double our_seconds, bool book = true) {
    RowCells cells;
    const auto it = seconds_.find(key);
    if (it == seconds_.end()) return cells;
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.3f", it->second * 1e3);
    cells.ms = buf;
    std::snprintf(buf, sizeof(buf), "%.2f", it->second / our_seconds);
    cells.ratio = buf;
    if (book) {
      log_sum_ += std::log(it->second / our_seconds);
      ++booked_;
    }
    return cells;
  }

  bool empty() const { return seconds_.empty(); }
  // How many ratios the geometric mean is over.
  int booked() const { return booked_; }
  // The geometric mean of the booked ratios (peer time over ours); 1 when none was booked.
  double GeometricMean() const { return booked_ > 0 ? std::exp(log_sum_ / booked_) : 1.0; }

 private:
  std::map<std::string, double> seconds_;
  double log_sum_ = 0;
  int booked_ = 0;
};

// The PyTorch column of a table, from the file a bench/*.py script wrote (see ReadTorchResults;
// no times when `results_path` is empty).
class TorchColumn {
 public:
  explicit TorchColumn(const std::string& results_path)
      : column_(ReadTorchResults(results_path, &version_)) {}

  PeerColumn::RowCells Cells(const std::string& key, double our_seconds, bool book = true) {
    return column_.Cells(key, our_seconds, book);
  }
  int booked() const { return column_.booked(); }
  double GeometricMean() const { return column_.GeometricMean(); }

  // For the heading's "PyTorch: ...": the file's version line, or how to get one.
  const char* Describe() const {
    return column_.empty() ? "not measured (pass --torch_results)" : version_.c_str();
  }
  // The summary line's ", geometric mean 1.23x PyTorch" ("" when no ratio was booked).
  std::string Summary() const {
    if (booked() == 0) return "";
    char buf[64];
    std::snprintf(buf, sizeof(buf), ", geometric mean %.2fx PyTorch", GeometricMean());
    return buf;
  }

 private:
  std::string version_;  // before column_: the constructor fills it while building column_
  PeerColumn column_;
};

// The options of the table-printing forward benchmarks: --quick, --shape=INDEX,
// --torch_results=FILE. False (after a usage line on stderr) for anything else.
struct TableBenchArgs {
  bool quick = false;
  int only_shape = -1;
  std::string torch_path;
};
inline bool ParseTableBenchArgs(int argc, char** argv, TableBenchArgs* args) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      args->quick = true;
    } else if (a.rfind("--torch_results=", 0) == 0) {
      args->torch_path = a.substr(16);
    } else if (a.rfind("--shape=", 0) == 0) {
      args->only_shape = std::atoi(a.c_str() + 8);
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--shape=INDEX] [--torch_results=FILE]\n", argv[0]);
      return false;
    }
  }
  return true;
}

// The shape (or size) indices a table benchmark runs out of `count`: `only_shape` where it is one
// of them, else `quick_set` with --quick, else all of them.
inline std::vector<int> SelectShapes(int count, bool quick, int only_shape,
                                     std::vector<int> quick_set = {0}) {
  if (only_shape >= 0 && only_shape < count) return {only_shape};
  if (quick) return quick_set;
  std::vector<int> all(count);
  for (int i = 0; i < count; ++i) all[i] = i;
  return all;
}

// fp32 FMA peak: 16 independent FMA chains in registers on every thread (zmm where the CPU has
// AVX-512, else ymm; 128-bit NEON registers on aarch64), in GFLOP/s, best of three.
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx512f"))) inline float FmaChainsAvx512(int64_t iters) {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-6f);
  for (int64_t it = 0; it < iters; ++it) {
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], m, c);
  }
  __m512 s = acc[0];
  for (int i = 1; i < 16; ++i) s = _mm512_add_ps(s, acc[i]);
  float out[16];
  _mm512_storeu_ps(out, s);
  return out[0] + out[15];
}

__attribute__((target("avx2,fma"))) inline float FmaChainsAvx2(int64_t iters) {
  __m256 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-6f);
  for (int64_t it = 0; it < iters; ++it) {
    for (int i = 0; i < 16; ++i) acc[i] = _mm256_fmadd_ps(acc[i], m, c);
  }
  __m256 s = acc[0];
  for (int i = 1; i < 16; ++i) s = _mm256_add_ps(s, acc[i]);
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0] + out[7];
}

inline bool HasAvx512() { return __builtin_cpu_supports("avx512f") != 0; }
inline float FmaChains(bool avx512, int64_t iters) {
  return avx512 ? FmaChainsAvx512(iters) : FmaChainsAvx2(iters);
}
#elif defined(__aarch64__)
inline float FmaChainsNeon(int64_t iters) {
  float32x4_t acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = vdupq_n_f32(static_cast<float>(i));
  const float32x4_t m = vdupq_n_f32(0.999999f), c = vdupq_n_f32(1e-6f);
  for (int64_t it = 0; it < iters; ++it) {
    for (int i = 0; i < 16; ++i) acc[i] = vfmaq_f32(c, acc[i], m);
  }
  float32x4_t s = acc[0];
  for (int i = 1; i < 16; ++i) s = vaddq_f32(s, acc[i]);
  return vgetq_lane_f32(s, 0) + vgetq_lane_f32(s, 3);
}
inline bool HasAvx512() { return false; }
inline float FmaChains(bool, int64_t iters) { return FmaChainsNeon(iters); }
#endif

// The registers MeasureFmaPeak's chains use, for the benchmarks' headers.
inline const char* FmaRegisterName() {
#if defined(__aarch64__)
  return "NEON q";
#else
  return HasAvx512() ? "zmm" : "ymm";
#endif
}

inline double MeasureFmaPeak(int threads, int64_t iters = 20'000'000) {
  static volatile float sink_all = 0;
  const bool avx512 = HasAvx512();
#if defined(__aarch64__)
  const int lanes = 4;
#else
  const int lanes = avx512 ? 16 : 8;
#endif
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    std::vector<std::thread> pool;
    std::vector<float> sink(threads);
    const auto t0 = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] { sink[t] = FmaChains(avx512, iters); });
    }
    for (std::thread& th : pool) th.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sink_all = sink_all + sink[0];
    best = std::max(best, 2.0 * lanes * 16 * static_cast<double>(iters) * threads / s / 1e9);
  }
  return best;
}

// LayerNorm shapes (M rows of N normalised elements; the last `norm_len` dims are normalised).
struct LayerNormShape {
  std::vector<int64_t> dims;
  int norm_len;
  int64_t M() const {
    int64_t m = 1;
    for (size_t i = 0; i + norm_len < dims.size(); ++i) m *= dims[i];
    return m;
  }
  int64_t N() const {
    int64_t n = 1;
    for (size_t i = dims.size() - norm_len; i < dims.size(); ++i) n *= dims[i];
    return n;
  }
  std::string Label() const {
    std::string s = "(";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    s += ")";
    if (norm_len > 1) s += " over last " + std::to_string(norm_len);
    return s;
  }
};

// Issue 3's shapes, and the subset --quick runs.
inline const LayerNormShape kLayerNormShapes[] = {
    {{16384, 768}, 1}, {{16384, 1024}, 1}, {{8192, 1600}, 1},   {{16384, 4096}, 1},
    {{8192, 8192}, 1}, {{50432, 384}, 1},  {{1048576, 128}, 1}, {{401408, 24}, 1},
    {{512, 65536}, 1}, {{4445, 512}, 1},   {{1000, 1}, 1},      {{100000, 8, 16}, 2},
};
inline const int kLayerNormQuickShapes[] = {0, 7, 8, 11};

}  // namespace openaclnn::bench

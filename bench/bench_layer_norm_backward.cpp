// aclnnLayerNormBackward on the shapes of issue 3 (then three small problems, in a table of their
// own), FLOAT and BFLOAT16 (with a FLOAT weight), all three outputs (gradInput in the input dtype,
// gradWeight and gradBias FLOAT, as torch_npu asks). For each shape: the median time of phase 2
// plus synchronisation on a repeatable executor; GB/s counting the bytes as
// ../shared/notes/machine.md does (dy, x, dx at M*N in their dtype, mean and rstd at M, gamma,
// dgamma and dbeta at N, FLOAT); the floor, i.e. those bytes divided by the bandwidth of a
// two-reads-one-write stream kernel run in the same process on the same buffers (same working set,
// same threads; the faster of ordinary and non-temporal stores); oneDNN's layer normalization
// backward on the same buffers; and, with --torch_results=FILE (written by
// bench/bench_layer_norm_backward.py), PyTorch's native_layer_norm_backward. Phase 1 alone is timed
// on a contiguous 3-D problem.
//
//   bench_layer_norm_backward [--quick] [--rounds=K] [--torch_results=FILE] [benchmark flags]
// --quick: four shapes, short repetitions (the README's main job).
// --rounds=K: runs the whole sequence of shapes K times and reports, per cell, the median of the
// K rounds' medians: on a shared host whose speed drifts for seconds at a time, one slow phase
// then moves one round of a shape rather than every repetition of it.
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "bench_common.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace {

using Shape = openaclnn::bench::LayerNormShape;
const auto& kQuickShapes = openaclnn::bench::kLayerNormQuickShapes;
// Issue 3's shapes, then small problems of a few rows (not among the issue's shapes, nor in its
// geometric means and floor summary), where the per-column work and the hand-off to the stream
// weigh as much as the rows. bench_layer_norm_backward.py lists the same shapes in this order.
const int kIssueShapes = static_cast<int>(std::size(openaclnn::bench::kLayerNormShapes));
const std::vector<Shape> kShapes = [] {
  std::vector<Shape> all(std::begin(openaclnn::bench::kLayerNormShapes),
                         std::end(openaclnn::bench::kLayerNormShapes));
  for (const Shape& small : {Shape{{4, 768}, 1}, Shape{{8, 4096}, 1}, Shape{{64, 1024}, 1}}) {
    all.push_back(small);
  }
  return all;
}();

double Bytes(const Shape& s, aclDataType dtype) {
  const double m = static_cast<double>(s.M()), n = static_cast<double>(s.N());
  return 3 * m * n * openaclnn::DTypeSize(dtype) + 2 * m * 4 + 3 * n * 4;
}

// Device buffers of one (shape, dtype): allocated on first use, kept until the next pair.
struct Buffers {
  Shape shape;
  aclDataType dtype;
  void *dy = nullptr, *x = nullptr, *dx = nullptr, *mean = nullptr, *rstd = nullptr, *var = nullptr,
       *w = nullptr, *b = nullptr, *gw = nullptr, *gb = nullptr;
  size_t data_bytes = 0;
  aclTensor *t_dy, *t_x, *t_dx, *t_mean, *t_rstd, *t_w, *t_b, *t_gw, *t_gb;

  Buffers(const Shape& s, aclDataType dt) : shape(s), dtype(dt) {
    const int64_t m = s.M(), n = s.N();
    data_bytes = static_cast<size_t>(m * n) * openaclnn::DTypeSize(dt);
    for (void** p : {&dy, &x, &dx})
      aclrtMalloc(p, std::max<size_t>(data_bytes, 64), ACL_MEM_MALLOC_HUGE_FIRST);
    for (void** p : {&mean, &rstd, &var}) aclrtMalloc(p, m * 4 + 64, ACL_MEM_MALLOC_HUGE_FIRST);
    for (void** p : {&w, &b, &gw, &gb}) aclrtMalloc(p, n * 4 + 64, ACL_MEM_MALLOC_HUGE_FIRST);
    // Values: touch every page; rows with mean -0.5 and rstd about 0.65.
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> row(static_cast<size_t>(n));
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t c = 0; c < n; ++c) row[c] = u(rng);
      for (void* p : {dy, x, dx}) {
        for (int64_t c = 0; c < n; ++c) {
          openaclnn::StoreFromFloat(p, dt, r * n + c, p == x ? row[c] * 1.5f - 0.5f : row[c]);
        }
      }
    }
    for (int64_t r = 0; r < m; ++r) {
      static_cast<float*>(mean)[r] = -0.5f;
      static_cast<float*>(rstd)[r] = 0.65f;
      static_cast<float*>(var)[r] = 1.0f / (0.65f * 0.65f);
    }
    for (int64_t c = 0; c < n; ++c) {
      static_cast<float*>(w)[c] = 1.0f + 0.1f * u(rng);
      static_cast<float*>(b)[c] = 0.0f;
    }
    std::vector<int64_t> stat_dims(s.dims.begin(), s.dims.end() - s.norm_len);
    stat_dims.resize(s.dims.size(), 1);
    const std::vector<int64_t> norm(s.dims.end() - s.norm_len, s.dims.end());
    t_dy = Make(s.dims, dt, dy);
    t_x = Make(s.dims, dt, x);
    t_dx = Make(s.dims, dt, dx);
    t_mean = Make(stat_dims, ACL_FLOAT, mean);
    t_rstd = Make(stat_dims, ACL_FLOAT, rstd);
    t_w = Make(norm, ACL_FLOAT, w);
    t_b = Make(norm, ACL_FLOAT, b);
    t_gw = Make(norm, ACL_FLOAT, gw);
    t_gb = Make(norm, ACL_FLOAT, gb);
  }
  ~Buffers() {
    for (aclTensor* t : {t_dy, t_x, t_dx, t_mean, t_rstd, t_w, t_b, t_gw, t_gb})
      aclDestroyTensor(t);
    for (void* p : {dy, x, dx, mean, rstd, var, w, b, gw, gb}) aclrtFree(p);
  }
  static aclTensor* Make(const std::vector<int64_t>& dims, aclDataType dt, void* data) {
    return aclCreateTensor(dims.data(), dims.size(), dt, nullptr, 0, ACL_FORMAT_ND, dims.data(),
                           dims.size(), data);
  }
};

std::unique_ptr<Buffers> g_buffers;
Buffers& BuffersFor(int shape_index, aclDataType dtype) {
  const Shape& s = kShapes[shape_index];
  if (!g_buffers || g_buffers->dtype != dtype || g_buffers->shape.dims != s.dims) {
    g_buffers.reset();
    g_buffers = std::make_unique<Buffers>(s, dtype);
  }
  return *g_buffers;
}

aclrtStream Stream() {
  static aclrtStream stream = [] {
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream st = nullptr;
    aclrtCreateStream(&st);
    return st;
  }();
  return stream;
}

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void BM_OpenAclnn(benchmark::State& state, int shape_index, aclDataType dtype) {
  Buffers& bf = BuffersFor(shape_index, dtype);
  const Shape& s = kShapes[shape_index];
  const std::vector<int64_t> norm(s.dims.end() - s.norm_len, s.dims.end());
  aclIntArray* na = aclCreateIntArray(norm.data(), norm.size());
  const bool mask[3] = {true, true, true};
  aclBoolArray* ma = aclCreateBoolArray(mask, 3);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  if (aclnnLayerNormBackwardGetWorkspaceSize(bf.t_dy, bf.t_x, na, bf.t_mean, bf.t_rstd, bf.t_w,
                                             bf.t_b, ma, bf.t_dx, bf.t_gw, bf.t_gb, &ws,
                                             &ex) != 0) {
    state.SkipWithError(aclGetRecentErrMsg());
    return;
  }
  aclSetAclOpExecutorRepeatable(ex);
  void* workspace = nullptr;
  if (ws > 0) aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  aclnnLayerNormBackward(workspace, ws, ex, Stream());  // warm-up (faults the workspace in)
  aclrtSynchronizeStream(Stream());
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    aclnnLayerNormBackward(workspace, ws, ex, Stream());
    aclrtSynchronizeStream(Stream());
    state.SetIterationTime(Seconds(t0, std::chrono::steady_clock::now()));
  }
  state.counters["bytes"] = Bytes(s, dtype);
  aclDestroyAclOpExecutor(ex);
  if (workspace != nullptr) aclrtFree(workspace);
  aclDestroyIntArray(na);
  aclDestroyBoolArray(ma);
}

// c = a + b over the dy, x and dx buffers: two reads and one write of the same working set, with
// ordinary stores or with non-temporal ones; the floor is the faster of the two.
void StreamFloor(benchmark::State& state, int shape_index, aclDataType dtype, bool nt) {
  Buffers& bf = BuffersFor(shape_index, dtype);
  const int64_t count = static_cast<int64_t>(bf.data_bytes / sizeof(float));
  const float* a = static_cast<const float*>(bf.dy);
  const float* b = static_cast<const float*>(bf.x);
  float* c = static_cast<float*>(bf.dx);
  constexpr int64_t kBlock = 1 << 16;
  const int64_t tasks = (count + kBlock - 1) / kBlock;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    openaclnn::cpu::ParallelFor(tasks, [&](int64_t t) {
      const int64_t end = std::min(count, (t + 1) * kBlock);
      int64_t i = t * kBlock;
      if (nt) {
        for (; i + 4 <= end; i += 4) {
          _mm_stream_ps(c + i, _mm_add_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
        }
        _mm_sfence();
      }
      for (; i < end; ++i) c[i] = a[i] + b[i];
    });
    state.SetIterationTime(Seconds(t0, std::chrono::steady_clock::now()));
  }
  state.counters["bytes"] = 3.0 * static_cast<double>(bf.data_bytes);
}

void BM_StreamFloor(benchmark::State& state, int shape_index, aclDataType dtype) {
  StreamFloor(state, shape_index, dtype, false);
}
void BM_StreamFloorNt(benchmark::State& state, int shape_index, aclDataType dtype) {
  StreamFloor(state, shape_index, dtype, true);
}

void BM_OneDnn(benchmark::State& state, int shape_index, aclDataType dtype) {
  Buffers& bf = BuffersFor(shape_index, dtype);
  const Shape& s = kShapes[shape_index];
  using dnnl::memory;
  try {
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream strm(eng);
    const memory::data_type dt =
        dtype == ACL_BF16 ? memory::data_type::bf16 : memory::data_type::f32;
    const memory::desc data_md({s.M(), s.N()}, dt, memory::format_tag::ab);
    const memory::desc stat_md({s.M()}, memory::data_type::f32, memory::format_tag::a);
    const memory::desc param_md({s.N()}, memory::data_type::f32, memory::format_tag::a);
    const auto flags = dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift;
    const float eps = 1e-5f;
    dnnl::layer_normalization_forward::primitive_desc fwd_pd(
        {dnnl::prop_kind::forward_training, data_md, stat_md, eps, flags}, eng);
    dnnl::layer_normalization_backward::primitive_desc bwd_pd(
        {dnnl::prop_kind::backward, data_md, data_md, stat_md, eps, flags}, eng, fwd_pd);
    dnnl::layer_normalization_backward prim(bwd_pd);
    memory src(data_md, eng, bf.x), diff_dst(data_md, eng, bf.dy), diff_src(data_md, eng, bf.dx);
    memory mean(stat_md, eng, bf.mean), var(stat_md, eng, bf.var);
    memory scale(param_md, eng, bf.w), shift(param_md, eng, bf.b);
    memory diff_scale(param_md, eng, bf.gw), diff_shift(param_md, eng, bf.gb);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src},
                                            {DNNL_ARG_DIFF_DST, diff_dst},
                                            {DNNL_ARG_MEAN, mean},
                                            {DNNL_ARG_VARIANCE, var},
                                            {DNNL_ARG_SCALE, scale},
                                            {DNNL_ARG_SHIFT, shift},
                                            {DNNL_ARG_DIFF_SRC, diff_src},
                                            {DNNL_ARG_DIFF_SCALE, diff_scale},
                                            {DNNL_ARG_DIFF_SHIFT, diff_shift}};
    const size_t scratch = bwd_pd.scratchpad_desc().get_size();
    if (scratch > 0) state.counters["scratch"] = static_cast<double>(scratch);
    prim.execute(strm, args);
    strm.wait();
    for (auto _ : state) {
      const auto t0 = std::chrono::steady_clock::now();
      prim.execute(strm, args);
      strm.wait();
      state.SetIterationTime(Seconds(t0, std::chrono::steady_clock::now()));
    }
  } catch (const dnnl::error& e) {
    state.SkipWithError(e.what());
  }
}

// Phase 1 alone: a contiguous [4, 512, 768] FLOAT problem, all outputs.
void BM_Phase1(benchmark::State& state) {
  const std::vector<int64_t> dims = {4, 512, 768}, stat = {4, 512, 1}, norm = {768};
  std::vector<aclTensor*> ts;
  void* dummy = nullptr;
  aclrtMalloc(&dummy, 4 * 512 * 768 * 4, ACL_MEM_MALLOC_HUGE_FIRST);
  for (const auto* d : {&dims, &dims, &stat, &stat, &norm, &norm, &dims, &norm, &norm}) {
    ts.push_back(Buffers::Make(*d, ACL_FLOAT, dummy));
  }
  aclIntArray* na = aclCreateIntArray(norm.data(), 1);
  const bool mask[3] = {true, true, true};
  aclBoolArray* ma = aclCreateBoolArray(mask, 3);
  for (auto _ : state) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    const auto t0 = std::chrono::steady_clock::now();
    aclnnLayerNormBackwardGetWorkspaceSize(ts[0], ts[1], na, ts[2], ts[3], ts[4], ts[5], ma, ts[6],
                                           ts[7], ts[8], &ws, &ex);
    state.SetIterationTime(Seconds(t0, std::chrono::steady_clock::now()));
    aclSetAclOpExecutorRepeatable(ex);
    aclDestroyAclOpExecutor(ex);
  }
  for (aclTensor* t : ts) aclDestroyTensor(t);
  aclDestroyIntArray(na);
  aclDestroyBoolArray(ma);
  aclrtFree(dummy);
}

// Collects the median of every benchmark for the table; with rounds (names "key#round"), the
// median over the rounds of each key.
class TableReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name != "median") continue;
      const double seconds =
          r.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(r.time_unit);
      const std::string& name = r.run_name.function_name;
      rounds_[name.substr(0, name.find('#'))].push_back(seconds);
    }
  }
  std::map<std::string, double> Medians() const {
    std::map<std::string, double> medians;
    for (const auto& [key, values] : rounds_) {
      std::vector<double> sorted = values;
      std::sort(sorted.begin(), sorted.end());
      const size_t mid = sorted.size() / 2;
      medians[key] = sorted.size() % 2 == 1 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
    }
    return medians;
  }

 private:
  std::map<std::string, std::vector<double>> rounds_;
};

std::string Key(const char* impl, int shape, aclDataType dt) {
  return std::string(impl) + "/" + std::to_string(shape) + "/" + (dt == ACL_BF16 ? "bf16" : "f32");
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int rounds = 1;
  std::string torch_path;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      quick = true;
    } else if (a.rfind("--rounds=", 0) == 0) {
      rounds = std::max(1, std::atoi(a.c_str() + 9));
    } else if (a.rfind("--torch_results=", 0) == 0) {
      torch_path = a.substr(16);
    } else {
      args.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(args.size());
  Stream();
  std::vector<int> shapes;
  if (quick) {
    shapes.assign(std::begin(kQuickShapes), std::end(kQuickShapes));
  } else {
    for (int i = 0; i < static_cast<int>(kShapes.size()); ++i) shapes.push_back(i);
  }
  const int reps = quick ? 3 : 7;
  const double min_time = quick ? 0.05 : 0.2;
  for (int round = 0; round < rounds; ++round) {
    for (int si : shapes) {
      for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
        for (const char* impl : {"openaclnn", "floor", "floor_nt", "onednn"}) {
          auto fn = std::string(impl) == "openaclnn"  ? BM_OpenAclnn
                    : std::string(impl) == "floor"    ? BM_StreamFloor
                    : std::string(impl) == "floor_nt" ? BM_StreamFloorNt
                                                      : BM_OneDnn;
          const std::string name =
              Key(impl, si, dt) + (rounds > 1 ? "#" + std::to_string(round) : "");
          benchmark::RegisterBenchmark(name.c_str(), fn, si, dt)
              ->UseManualTime()
              ->Repetitions(reps)
              ->MinTime(min_time)
              ->ReportAggregatesOnly(true)
              ->Unit(benchmark::kMillisecond);
        }
      }
    }
  }
  benchmark::RegisterBenchmark("phase1/contiguous_3d", BM_Phase1)
      ->UseManualTime()
      ->Repetitions(reps)
      ->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&n, args.data());
  TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  g_buffers.reset();

  openaclnn::bench::TorchColumn torch(torch_path);
  const std::map<std::string, double> med = reporter.Medians();
  std::printf(
      "\nopenaclnn LayerNorm backward, %d threads, ISA %s, %d round(s); oneDNN %d.%d; "
      "PyTorch: %s\n\n",
      openaclnn::cpu::NumThreads(), openaclnn::cpu::ActiveIsa().c_str(), rounds,
      dnnl::version()->major, dnnl::version()->minor, torch.Describe());
  openaclnn::bench::PeerColumn dnnl(med);
  double min_floor = 1e9;
  bool small_heading = false;
  std::printf(
      "| shape (M, N) | dtype | openaclnn ms | GB/s | floor GB/s | of floor | oneDNN ms | "
      "oneDNN / ours | PyTorch ms | PyTorch / ours |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int si : shapes) {
    const bool summarised = si < kIssueShapes;
    if (!summarised && !small_heading) {
      small_heading = true;
      std::printf(
          "\nSmall problems (outside the summary below):\n\n"
          "| shape (M, N) | dtype | openaclnn ms | GB/s | floor GB/s | of floor | oneDNN ms | "
          "oneDNN / ours | PyTorch ms | PyTorch / ours |\n");
      std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    }
    for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
      const auto ours = med.find(Key("openaclnn", si, dt));
      if (ours == med.end()) continue;
      const Shape& s = kShapes[si];
      const double bytes = Bytes(s, dt);
      const double gbs = bytes / ours->second / 1e9;
      double floor_gbs = 0;
      for (const char* kind : {"floor", "floor_nt"}) {
        const auto fl = med.find(Key(kind, si, dt));
        if (fl == med.end()) continue;
        floor_gbs =
            std::max(floor_gbs, 3.0 * s.M() * s.N() * openaclnn::DTypeSize(dt) / fl->second / 1e9);
      }
      char floor_cell[64] = "-", of_floor[64] = "-";
      if (floor_gbs > 0) {
        std::snprintf(floor_cell, sizeof(floor_cell), "%.1f", floor_gbs);
        std::snprintf(of_floor, sizeof(of_floor), "%.0f %%", 100.0 * gbs / floor_gbs);
        if (summarised) min_floor = std::min(min_floor, gbs / floor_gbs);
      }
      // Only issue 3's shapes count in the geometric means.
      const auto dnnl_cells = dnnl.Cells(Key("onednn", si, dt), ours->second, summarised);
      const auto torch_cells = torch.Cells(
          std::to_string(si) + "/" + (dt == ACL_BF16 ? "bf16" : "f32"), ours->second, summarised);
      // Small problems take microseconds: one more decimal of milliseconds.
      std::printf("| %s | %s | %.*f | %.1f | %s | %s | %s | %s | %s | %s |\n", s.Label().c_str(),
                  dt == ACL_BF16 ? "BF16" : "FLOAT", summarised ? 3 : 4, ours->second * 1e3, gbs,
                  floor_cell, of_floor, dnnl_cells.ms.c_str(), dnnl_cells.ratio.c_str(),
                  torch_cells.ms.c_str(), torch_cells.ratio.c_str());
    }
  }
  std::printf("\nissue 3's shapes:\n");
  if (dnnl.booked() > 0) {
    std::printf("geometric mean speed-up over oneDNN: %.2fx\n", dnnl.GeometricMean());
  }
  if (torch.booked() > 0) {
    std::printf("geometric mean speed-up over PyTorch: %.2fx\n", torch.GeometricMean());
  }
  if (min_floor < 1e9) std::printf("lowest fraction of the floor: %.0f %%\n", 100 * min_floor);
  const auto p1 = med.find("phase1/contiguous_3d");
  if (p1 != med.end()) std::printf("phase 1, contiguous 3-D problem: %.2f us\n", p1->second * 1e6);
  return 0;
}

#include "kernels/cpu/gemm.h"

#include <dlfcn.h>
#include <dnnl.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "dnnl.hpp"
#include "kernels/cpu/aligned_vector.h"
#include "kernels/cpu/pointwise_kernels.h"
#include "kernels/cpu/tile_gemm.h"
#include "kernels/cpu/tiling.h"

namespace openaclnn::cpu {
namespace {

// Debian's oneDNN 2.6 runs its GEMM on OpenMP with omp_get_max_threads() threads of the calling
// thread. Our pool threads are not OpenMP threads, so each would start its own team and the two
// levels would oversubscribe the cores; the team size would also change how oneDNN splits the
// reduction, and with it the rounding. Each call therefore sets the calling thread's OpenMP
// thread count to 1 and restores it afterwards. The OpenMP runtime is the one oneDNN loaded, found
// at run time so the library needs no OpenMP link of its own; with a oneDNN built on another
// runtime (sequential, TBB, threadpool) the functions are absent and nothing is changed.
struct OpenMpControl {
  int (*get_max_threads)() = nullptr;
  void (*set_num_threads)(int) = nullptr;
};

const OpenMpControl& GetOpenMpControl() {
  static const OpenMpControl control = [] {
    OpenMpControl c;
    void* get = dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    void* set = dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    if (get != nullptr && set != nullptr) {
      c.get_max_threads = reinterpret_cast<int (*)()>(get);
      c.set_num_threads = reinterpret_cast<void (*)(int)>(set);
    }
    return c;
  }();
  return control;
}

class SingleThreadScope {
 public:
  SingleThreadScope() {
    const OpenMpControl& omp = GetOpenMpControl();
    if (omp.get_max_threads == nullptr) return;
    previous_ = omp.get_max_threads();
    if (previous_ != 1) omp.set_num_threads(1);
  }
  ~SingleThreadScope() {
    if (previous_ > 1) GetOpenMpControl().set_num_threads(previous_);
  }
  SingleThreadScope(const SingleThreadScope&) = delete;
  SingleThreadScope& operator=(const SingleThreadScope&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace

Status SgemmRowMajor(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                     const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                     int64_t ldc) {
  if (m <= 0 || n <= 0) return Status::Ok();
  if (k <= 0) {
    // BLAS leaves beta * C; do it here rather than rely on the provider's k == 0 handling.
    for (int64_t i = 0; i < m; ++i) {
      float* row = c + i * ldc;
      if (beta == 0.0f) {
        std::fill(row, row + n, 0.0f);
      } else if (beta != 1.0f) {
        for (int64_t j = 0; j < n; ++j) row[j] *= beta;
      }
    }
    return Status::Ok();
  }
  // oneDNN requires leading dimensions of at least the stored row length, even for a matrix of
  // one row, whose row stride is never used.
  if ((trans_a ? k : m) == 1) lda = std::max<int64_t>(lda, trans_a ? m : k);
  if ((trans_b ? n : k) == 1) ldb = std::max<int64_t>(ldb, trans_b ? k : n);
  if (m == 1) ldc = std::max<int64_t>(ldc, n);
  SingleThreadScope single_thread;
  const dnnl_status_t status = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha,
                                          a, lda, b, ldb, beta, c, ldc);
  if (status != dnnl_success) {
    return ErrorStatus(ACLNN_ERR_INNER, "dnnl_sgemm(m=%lld, n=%lld, k=%lld) failed with status %d",
                       static_cast<long long>(m), static_cast<long long>(n),
                       static_cast<long long>(k), static_cast<int>(status));
  }
  return Status::Ok();
}

namespace {

// A matmul primitive for one shape and output form, with the scratchpad size it needs
// (scratchpads are per call, so one primitive runs concurrently on several threads).
struct Matmul {
  dnnl::matmul primitive;
  dnnl::memory::desc a, b, c, bias;
  size_t scratchpad_bytes = 0;
  bool brgemm = false;  // runs on oneDNN's brgemm kernels
  bool amx = false;     // ... on the AMX ones
};

struct MatmulKey {
  GemmElement ab_type;  // A's and B's
  bool trans_a, trans_b;
  int64_t m, n, k, lda, ldb, ldc;
  bool accumulate;
  GemmElement c_type;
  int bias;                // -1 none, else the GemmElement of the bias row
  bool b_blocked = false;  // B in the blocked form of PackBlockedB (trans_b and ldb unused)
  bool operator<(const MatmulKey& o) const {
    return std::tie(ab_type, trans_a, trans_b, m, n, k, lda, ldb, ldc, accumulate, c_type, bias,
                    b_blocked) < std::tie(o.ab_type, o.trans_a, o.trans_b, o.m, o.n, o.k, o.lda,
                                          o.ldb, o.ldc, o.accumulate, o.c_type, o.bias,
                                          o.b_blocked);
  }
  bool operator==(const MatmulKey& o) const { return !(*this < o) && !(o < *this); }
};

dnnl::engine& CpuEngine() {
  static dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

dnnl::memory::data_type DnnlType(GemmElement e) {
  return e == GemmElement::kBf16 ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f32;
}

std::shared_ptr<const Matmul> MakeMatmul(const MatmulKey& key) {
  using dnnl::memory;
  auto made = std::make_shared<Matmul>();
  // Row-major op(A) m x k: element (i, p) at i * lda + p, or at p * lda + i when transposed.
  made->a = memory::desc({key.m, key.k}, DnnlType(key.ab_type),
                         key.trans_a ? memory::dims{1, key.lda} : memory::dims{key.lda, 1});
  made->b = key.b_blocked
                ? memory::desc({key.k, key.n}, DnnlType(key.ab_type),
                               key.ab_type == GemmElement::kBf16 ? memory::format_tag::BA16a64b2a
                                                                 : memory::format_tag::BA16a64b)
                : memory::desc({key.k, key.n}, DnnlType(key.ab_type),
                               key.trans_b ? memory::dims{1, key.ldb} : memory::dims{key.ldb, 1});
  made->c = memory::desc({key.m, key.n}, DnnlType(key.c_type), memory::dims{key.ldc, 1});
  if (key.bias >= 0) {
    made->bias = memory::desc({1, key.n}, DnnlType(static_cast<GemmElement>(key.bias)),
                              memory::dims{key.n, 1});
  }
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (key.accumulate) {
    dnnl::post_ops ops;
    ops.append_sum(1.0f);
    attr.set_post_ops(ops);
  }
  const dnnl::matmul::desc desc = key.bias >= 0
                                      ? dnnl::matmul::desc(made->a, made->b, made->bias, made->c)
                                      : dnnl::matmul::desc(made->a, made->b, made->c);
  dnnl::matmul::primitive_desc pd(desc, attr, CpuEngine());
  made->brgemm = std::strncmp(pd.impl_info_str(), "brg:", 4) == 0;
  made->amx = std::strncmp(pd.impl_info_str(), "brg:avx512_core_amx", 19) == 0;
  made->primitive = dnnl::matmul(pd);
  made->scratchpad_bytes = pd.scratchpad_desc().get_size();
  return made;
}

// Primitives by shape. A plan's tiles have a handful of shapes, and a problem is usually run many
// times, so creation (hundreds of microseconds) is paid once per shape; the map is bounded. Each
// thread remembers its last few primitives, so the shared map's lock is not taken per call.
std::shared_ptr<const Matmul> MatmulFor(const MatmulKey& key) {
  constexpr int kRecent = 4;
  thread_local std::pair<MatmulKey, std::shared_ptr<const Matmul>> recent[kRecent];
  thread_local int next_slot = 0;
  for (const auto& r : recent) {
    if (r.second && r.first == key) return r.second;
  }
  static std::mutex mutex;
  static std::map<MatmulKey, std::shared_ptr<const Matmul>> cache;
  std::shared_ptr<const Matmul> found;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end()) found = it->second;
  }
  if (!found) {
    found = MakeMatmul(key);
    std::lock_guard<std::mutex> lock(mutex);
    if (cache.size() >= 256) cache.clear();
    cache.emplace(key, found);
  }
  recent[next_slot] = {key, found};
  next_slot = (next_slot + 1) % kRecent;
  return found;
}

// Memory objects of the calling thread, re-pointed at each call's data: creating them costs about
// as much as running a 64 x 64 x 64 product.
struct ThreadMemories {
  const Matmul* owner = nullptr;
  std::shared_ptr<const Matmul> keep;  // keeps `owner` alive while its descs are in use
  dnnl::memory a, b, c, bias, scratchpad;
  AlignedVector<unsigned char> scratchpad_bytes;
  std::unique_ptr<dnnl::stream> stream;
};

Status RunMatmul(const MatmulKey& key, const void* a, const void* b, void* c, const void* bias) {
  SingleThreadScope single_thread;
  try {
    auto mm = MatmulFor(key);
    thread_local ThreadMemories t;
    if (!t.stream) t.stream = std::make_unique<dnnl::stream>(CpuEngine());
    if (t.owner != mm.get()) {
      t.a = dnnl::memory(mm->a, CpuEngine(), DNNL_MEMORY_NONE);
      t.b = dnnl::memory(mm->b, CpuEngine(), DNNL_MEMORY_NONE);
      t.c = dnnl::memory(mm->c, CpuEngine(), DNNL_MEMORY_NONE);
      t.bias =
          key.bias >= 0 ? dnnl::memory(mm->bias, CpuEngine(), DNNL_MEMORY_NONE) : dnnl::memory();
      if (t.scratchpad_bytes.size() < mm->scratchpad_bytes) {
        t.scratchpad_bytes.resize(mm->scratchpad_bytes);
      }
      t.scratchpad =
          mm->scratchpad_bytes > 0
              ? dnnl::memory(dnnl::memory::desc({static_cast<int64_t>(mm->scratchpad_bytes)},
                                                dnnl::memory::data_type::u8, dnnl::memory::dims{1}),
                             CpuEngine(), t.scratchpad_bytes.data())
              : dnnl::memory();
      t.owner = mm.get();
      t.keep = mm;
    }
    t.a.set_data_handle(const_cast<void*>(a));
    t.b.set_data_handle(const_cast<void*>(b));
    t.c.set_data_handle(c);
    // The C interface with the arguments on the stack: the C++ one builds a hash map (four heap
    // allocations) per call, which a 64 x 64 x 64 product notices.
    dnnl_exec_arg_t args[5] = {
        {DNNL_ARG_SRC, t.a.get()}, {DNNL_ARG_WEIGHTS, t.b.get()}, {DNNL_ARG_DST, t.c.get()}};
    int count = 3;
    if (key.bias >= 0) {
      t.bias.set_data_handle(const_cast<void*>(bias));
      args[count++] = {DNNL_ARG_BIAS, t.bias.get()};
    }
    if (mm->scratchpad_bytes > 0) args[count++] = {DNNL_ARG_SCRATCHPAD, t.scratchpad.get()};
    dnnl::error::wrap_c_api(
        dnnl_primitive_execute(mm->primitive.get(), t.stream->get(), count, args),
        "dnnl_primitive_execute");
    t.stream->wait();
  } catch (const dnnl::error& e) {
    return ErrorStatus(ACLNN_ERR_INNER, "oneDNN %s matmul (m=%lld, n=%lld, k=%lld) failed: %s",
                       key.ab_type == GemmElement::kBf16 ? "bf16" : "f32",
                       static_cast<long long>(key.m), static_cast<long long>(key.n),
                       static_cast<long long>(key.k), e.what());
  }
  return Status::Ok();
}

}  // namespace

namespace {

// Whether oneDNN's effective ISA includes every feature of `wanted` (the ISA values are masks).
bool EffectiveIsaIncludes(dnnl_cpu_isa_t wanted) {
  const unsigned isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
  const unsigned mask = static_cast<unsigned>(wanted);
  return (isa & mask) == mask;
}

}  // namespace

bool HasFastBf16Gemm() {
  static const bool fast = EffectiveIsaIncludes(dnnl_cpu_isa_avx512_core_bf16);
  return fast;
}

bool HasBrgemmFloat() {
  static const bool has = EffectiveIsaIncludes(dnnl_cpu_isa_avx512_core);
  return has;
}

Status Bf16GemmRowMajor(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                        const uint16_t* a, int64_t lda, const uint16_t* b, int64_t ldb,
                        bool accumulate, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return Status::Ok();
  if (k <= 0) {
    if (!accumulate) {
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    }
    return Status::Ok();
  }
  // Strides of a single row or column are never used; keep them valid for oneDNN.
  if (m == 1) ldc = std::max<int64_t>(ldc, n);
  return RunMatmul({GemmElement::kBf16, trans_a, trans_b, m, n, k, lda, ldb, ldc, accumulate,
                    GemmElement::kFloat, -1},
                   a, b, c, nullptr);
}

Status MatmulRowMajorTo(GemmElement ab_type, bool trans_a, bool trans_b, int64_t m, int64_t n,
                        int64_t k, const void* a, int64_t lda, const void* b, int64_t ldb,
                        const GemmOutput& out) {
  if (m <= 0 || n <= 0) return Status::Ok();
  if (k <= 0) {
    return ErrorStatus(ACLNN_ERR_INNER, "MatmulRowMajorTo needs k >= 1, got %lld",
                       static_cast<long long>(k));
  }
  const int64_t ldc = m == 1 ? std::max<int64_t>(out.ldc, n) : out.ldc;
  const int bias = out.bias != nullptr ? static_cast<int>(out.bias_type) : -1;
  return RunMatmul(
      {ab_type, trans_a, trans_b, m, n, k, lda, ldb, ldc, out.accumulate, out.c_type, bias}, a, b,
      out.c, out.bias);
}

namespace {
template <typename T>
void ScatterRow(const ColumnPanels& panels, const T* src, int64_t stride, int64_t r, T* base) {
  for (int64_t j = 0, n = panels.Count(); j < n; ++j) {
    const T* from = src + j * panels.width * stride;
    T* to = base + panels.At(r, j);
    const int64_t w = panels.Width(j);
    if (stride == 1) {
      std::memcpy(to, from, sizeof(T) * static_cast<size_t>(w));
    } else {
      for (int64_t i = 0; i < w; ++i) to[i] = from[i * stride];
    }
  }
}
}  // namespace

void ScatterRowToPanels(const ColumnPanels& panels, GemmElement type, const void* src,
                        int64_t stride, int64_t r, void* base) {
  if (type == GemmElement::kBf16) {
    ScatterRow(panels, static_cast<const uint16_t*>(src), stride, r, static_cast<uint16_t*>(base));
  } else {
    ScatterRow(panels, static_cast<const float*>(src), stride, r, static_cast<float*>(base));
  }
}

bool HasAmxBf16() {
  static const bool has = EffectiveIsaIncludes(dnnl_cpu_isa_avx512_core_amx);
  return has;
}

int64_t BlockedBDepth(GemmElement type, int64_t k) {
  const int64_t step = type == GemmElement::kBf16 ? kBlockedBDepth : kBlockedBDepthFloat;
  return CeilDiv(k, step) * step;
}

int64_t BlockedBElements(GemmElement type, int64_t k, int64_t n) {
  return BlockedBDepth(type, k) * CeilDiv(n, kBlockedBCols) * kBlockedBCols;
}

void PackBlockedB(const KernelTarget& target, bool trans_b, int64_t k, int64_t n, const float* b,
                  int64_t ldb, int64_t block0, int64_t block1, float* blocked) {
  const int64_t depth = BlockedBDepth(GemmElement::kFloat, k);
  for (int64_t block = block0; block < block1; ++block) {
    float* const out = blocked + block * depth * kBlockedBCols;
    const int64_t j0 = block * kBlockedBCols;
    const int64_t width = std::min(kBlockedBCols, n - j0);
    // Row r of the block: kBlockedBCols elements at out + r * kBlockedBCols.
    if (width < kBlockedBCols) {
      std::fill(out, out + depth * kBlockedBCols, 0.0f);
    } else if (depth > k) {
      std::fill(out + k * kBlockedBCols, out + depth * kBlockedBCols, 0.0f);
    }
    if (trans_b) {
      // Column j of op(B) is row j of the stored matrix.
      TransposeTile(target, b + j0 * ldb, ldb, out, kBlockedBCols, k, width, sizeof(float), false,
                    nullptr, 0);
      continue;
    }
    for (int64_t r = 0; r < k; ++r) {
      std::memcpy(out + r * kBlockedBCols, b + r * ldb + j0,
                  sizeof(float) * static_cast<size_t>(width));
    }
  }
}

void PackBlockedB(const KernelTarget& target, bool trans_b, int64_t k, int64_t n, const uint16_t* b,
                  int64_t ldb, int64_t block0, int64_t block1, uint16_t* blocked) {
  const int64_t depth = BlockedBDepth(GemmElement::kBf16, k);
  const int64_t pairs = k / 2;  // row pairs with both rows inside B
  for (int64_t block = block0; block < block1; ++block) {
    uint16_t* const out = blocked + block * depth * kBlockedBCols;
    const int64_t j0 = block * kBlockedBCols;
    const int64_t width = std::min(kBlockedBCols, n - j0);
    // Row pair q of the block: 2 * kBlockedBCols elements at out + q * 2 * kBlockedBCols.
    if (width < kBlockedBCols || k % 2 != 0) {
      std::fill(out, out + depth * kBlockedBCols, uint16_t{0});
    } else if (depth > k) {
      std::fill(out + k * kBlockedBCols, out + depth * kBlockedBCols, uint16_t{0});
    }
    if (!trans_b) {
      if (PackRowPairs(b + j0, ldb, k, width, depth, kBlockedBCols, out)) continue;
      for (int64_t q = 0; q < pairs; ++q) {
        const uint16_t* even = b + 2 * q * ldb + j0;
        const uint16_t* odd = even + ldb;
        uint16_t* row = out + q * 2 * kBlockedBCols;
        for (int64_t j = 0; j < width; ++j) {
          row[2 * j] = even[j];
          row[2 * j + 1] = odd[j];
        }
      }
      if (k % 2 != 0) {
        const uint16_t* last = b + (k - 1) * ldb + j0;
        uint16_t* row = out + pairs * 2 * kBlockedBCols;
        for (int64_t j = 0; j < width; ++j) row[2 * j] = last[j];
      }
      continue;
    }
    // Transposed: column j of op(B) is row j of the stored matrix, its pairs adjacent, so the
    // block is a transpose of 32-bit pairs (in registers where they are 4-byte aligned).
    if (pairs > 0 && ldb % 2 == 0 && reinterpret_cast<uintptr_t>(b) % 4 == 0) {
      TransposeTile(target, b + j0 * ldb, ldb / 2, out, kBlockedBCols, pairs, width, 4, false,
                    nullptr, 0);
      if (k % 2 != 0) {
        for (int64_t j = 0; j < width; ++j) {
          out[pairs * 2 * kBlockedBCols + 2 * j] = b[(j0 + j) * ldb + k - 1];
        }
      }
      continue;
    }
    for (int64_t j = 0; j < width; ++j) {
      const uint16_t* column = b + (j0 + j) * ldb;
      for (int64_t q = 0; q < pairs; ++q) {
        out[q * 2 * kBlockedBCols + 2 * j] = column[2 * q];
        out[q * 2 * kBlockedBCols + 2 * j + 1] = column[2 * q + 1];
      }
      if (k % 2 != 0) out[pairs * 2 * kBlockedBCols + 2 * j] = column[k - 1];
    }
  }
}

namespace {

MatmulKey BlockedBKey(GemmElement ab_type, bool trans_a, int64_t m, int64_t n, int64_t k,
                      int64_t lda, const GemmOutput& out) {
  MatmulKey key{ab_type,
                trans_a,
                false,
                m,
                n,
                k,
                lda,
                0,
                m == 1 ? std::max<int64_t>(out.ldc, n) : out.ldc,
                out.accumulate,
                out.c_type,
                out.bias != nullptr ? static_cast<int>(out.bias_type) : -1};
  key.b_blocked = true;
  return key;
}

}  // namespace

bool BlockedBRuns(GemmElement ab_type, bool trans_a, int64_t m, int64_t n, int64_t k, int64_t lda,
                  const GemmOutput& out) {
  if (m <= 0 || n <= 0 || k <= 0) return false;
  const bool bf16 = ab_type == GemmElement::kBf16;
  if (bf16 ? !HasAmxBf16() : !HasBrgemmFloat()) return false;
  try {
    const auto mm = MatmulFor(BlockedBKey(ab_type, trans_a, m, n, k, lda, out));
    return bf16 ? mm->amx : mm->brgemm;
  } catch (const dnnl::error&) {
    return false;
  }
}

// BFLOAT16 products with reductions longer than this run on BlockedGemmBf16 rather than oneDNN
// 2.6's brgemm kernels, which read all of A's rows and B's column block over the whole reduction
// from L2 and beyond. bench_matmul BF16, Intel Xeon with AMX, 2 threads, three runs of each in
// alternation (2026-12-07): MLP down 2048 x 1024 x 4096 9.78-10.82 -> 8.28-8.83 ms; at k = 2048
// (2048 x 1024 x 2048 4.54-4.78 -> 4.38-4.78 ms, 1024 x 256 x 2048 0.57-0.61 -> 0.61-0.65 ms)
// about even, and at k = 1024 oneDNN ahead (1024 x 256 x 1024 0.245-0.261 against 0.292-0.303
// ms; 2048 x 1024 x 1024 1.90-2.03 against 2.29-2.51 ms). A transposed A (x^T of a weight
// gradient, which gemm_plan.cpp no longer copies for these tiles) goes there at any depth.
constexpr int64_t kLongReduction = 2048;

Status MatmulBlockedBTo(GemmElement ab_type, bool trans_a, int64_t m, int64_t n, int64_t k,
                        const void* a, int64_t lda, const void* blocked_b, const GemmOutput& out) {
  if (m <= 0 || n <= 0) return Status::Ok();
  if (k <= 0) {
    return ErrorStatus(ACLNN_ERR_INNER, "MatmulBlockedBTo needs k >= 1, got %lld",
                       static_cast<long long>(k));
  }
  if (ab_type == GemmElement::kBf16 && (trans_a || k > kLongReduction) && TileGemmRuns()) {
    BlockedGemmBf16(m, n, k, static_cast<const uint16_t*>(a), lda, trans_a,
                    static_cast<const uint16_t*>(blocked_b), out);
    return Status::Ok();
  }
  return RunMatmul(BlockedBKey(ab_type, trans_a, m, n, k, lda, out), a, blocked_b, out.c, out.bias);
}

const char* GemmProviderName() {
  static const std::string name = [] {
    const dnnl_version_t* v = dnnl_version();
    char buf[64];
    std::snprintf(buf, sizeof(buf), "oneDNN %d.%d.%d sgemm", v->major, v->minor, v->patch);
    return std::string(buf);
  }();
  return name.c_str();
}

}  // namespace openaclnn::cpu

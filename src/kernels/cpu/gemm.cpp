#include "kernels/cpu/gemm.h"

#include <dlfcn.h>
#include <dnnl.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "dnnl.hpp"

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

// A matmul primitive for one shape, with the scratchpad size it needs (scratchpads are per call,
// so one primitive runs concurrently on several threads).
struct Bf16Matmul {
  dnnl::matmul primitive;
  dnnl::memory::desc a, b, c;
  size_t scratchpad_bytes = 0;
};

using Bf16Key = std::tuple<bool, bool, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, bool>;

dnnl::engine& CpuEngine() {
  static dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

// Primitives by shape. A plan's tiles have a handful of shapes, and a problem is usually run many
// times, so creation (hundreds of microseconds) is paid once per shape; the map is bounded.
std::shared_ptr<const Bf16Matmul> Bf16MatmulFor(const Bf16Key& key) {
  static std::mutex mutex;
  static std::map<Bf16Key, std::shared_ptr<const Bf16Matmul>> cache;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  const auto [trans_a, trans_b, m, n, k, lda, ldb, ldc, accumulate] = key;
  using dnnl::memory;
  auto made = std::make_shared<Bf16Matmul>();
  // Row-major op(A) m x k: element (i, p) at i * lda + p, or at p * lda + i when transposed.
  made->a = memory::desc({m, k}, memory::data_type::bf16,
                         trans_a ? memory::dims{1, lda} : memory::dims{lda, 1});
  made->b = memory::desc({k, n}, memory::data_type::bf16,
                         trans_b ? memory::dims{1, ldb} : memory::dims{ldb, 1});
  made->c = memory::desc({m, n}, memory::data_type::f32, memory::dims{ldc, 1});
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (accumulate) {
    dnnl::post_ops ops;
    ops.append_sum(1.0f);
    attr.set_post_ops(ops);
  }
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(made->a, made->b, made->c), attr, CpuEngine());
  made->primitive = dnnl::matmul(pd);
  made->scratchpad_bytes = pd.scratchpad_desc().get_size();
  std::lock_guard<std::mutex> lock(mutex);
  if (cache.size() >= 256) cache.clear();
  cache.emplace(key, made);
  return made;
}

}  // namespace

bool HasFastBf16Gemm() {
  static const bool fast = [] {
    const unsigned isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
    const unsigned bf16 = static_cast<unsigned>(dnnl_cpu_isa_avx512_core_bf16);
    return (isa & bf16) == bf16;
  }();
  return fast;
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
  SingleThreadScope single_thread;
  try {
    const auto mm = Bf16MatmulFor({trans_a, trans_b, m, n, k, lda, ldb, ldc, accumulate});
    thread_local std::unique_ptr<dnnl::stream> stream;
    thread_local std::vector<unsigned char> scratchpad;
    if (!stream) stream = std::make_unique<dnnl::stream>(CpuEngine());
    if (scratchpad.size() < mm->scratchpad_bytes) scratchpad.resize(mm->scratchpad_bytes);
    dnnl::memory am(mm->a, CpuEngine(), const_cast<uint16_t*>(a));
    dnnl::memory bm(mm->b, CpuEngine(), const_cast<uint16_t*>(b));
    dnnl::memory cm(mm->c, CpuEngine(), c);
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}};
    if (mm->scratchpad_bytes > 0) {
      args.emplace(
          DNNL_ARG_SCRATCHPAD,
          dnnl::memory(dnnl::memory::desc({static_cast<int64_t>(mm->scratchpad_bytes)},
                                          dnnl::memory::data_type::u8, dnnl::memory::dims{1}),
                       CpuEngine(), scratchpad.data()));
    }
    mm->primitive.execute(*stream, args);
    stream->wait();
  } catch (const dnnl::error& e) {
    return ErrorStatus(ACLNN_ERR_INNER, "oneDNN bf16 matmul (m=%lld, n=%lld, k=%lld) failed: %s",
                       static_cast<long long>(m), static_cast<long long>(n),
                       static_cast<long long>(k), e.what());
  }
  return Status::Ok();
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

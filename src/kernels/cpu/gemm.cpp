#include "kernels/cpu/gemm.h"

#include <dlfcn.h>
#include <dnnl.h>

#include <algorithm>
#include <cstdio>
#include <string>

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

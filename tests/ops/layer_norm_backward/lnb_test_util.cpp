#include "ops/layer_norm_backward/lnb_test_util.h"

#include "ops/layer_norm_backward/reference.h"

namespace openaclnn::lnb_test {

aclrtStream TestStream() {
  static aclrtStream stream = [] {
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream s = nullptr;
    aclrtCreateStream(&s);
    return s;
  }();
  return stream;
}

aclnnStatus RunLayerNormBackward(const aclTensor* dy, const aclTensor* x,
                                 const std::vector<int64_t>& norm, const aclTensor* mean,
                                 const aclTensor* rstd, const aclTensor* w, const aclTensor* b,
                                 const bool mask[3], aclTensor* dx, aclTensor* gw, aclTensor* gb,
                                 uint64_t* workspace_size) {
  aclrtStream stream = TestStream();
  aclIntArray* norm_array = aclCreateIntArray(norm.data(), norm.size());
  aclBoolArray* mask_array = aclCreateBoolArray(mask, 3);
  uint64_t ws = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnLayerNormBackwardGetWorkspaceSize(
      dy, x, norm_array, mean, rstd, w, b, mask_array, dx, gw, gb, &ws, &executor);
  if (status == ACLNN_SUCCESS) {
    if (workspace_size != nullptr) *workspace_size = ws;
    void* workspace = nullptr;
    if (ws > 0) aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
    status = aclnnLayerNormBackward(workspace, ws, executor, stream);
    if (status == ACLNN_SUCCESS) status = aclrtSynchronizeStream(stream);
    if (workspace != nullptr) aclrtFree(workspace);
  }
  aclDestroyIntArray(norm_array);
  aclDestroyBoolArray(mask_array);
  return status;
}

void GoldenLayerNormBackward(int64_t m, int64_t n, const bool mask[3],
                             const std::vector<double>& dy, const std::vector<double>& x,
                             const std::vector<double>& mean, const std::vector<double>& rstd,
                             const std::vector<double>* w, std::vector<double>* dx,
                             std::vector<double>* gw, std::vector<double>* gb) {
  dx->assign(static_cast<size_t>(m * n), 0.0);
  gw->assign(static_cast<size_t>(n), 0.0);
  gb->assign(static_cast<size_t>(n), 0.0);
  std::vector<double> acc_w(n), acc_b(n);
  layer_norm_backward::ReferenceLayerNormBackward(
      m, n, mask, [&](int64_t r, int64_t c) { return dy[r * n + c]; },
      [&](int64_t r, int64_t c) { return x[r * n + c]; }, [&](int64_t r) { return mean[r]; },
      [&](int64_t r) { return rstd[r]; }, [&](int64_t c) { return w == nullptr ? 1.0 : (*w)[c]; },
      [&](int64_t r, int64_t c, double v) { (*dx)[r * n + c] = v; },
      [&](int64_t c, double v) { (*gw)[c] = v; }, [&](int64_t c, double v) { (*gb)[c] = v; },
      acc_w.data(), acc_b.data());
}

}  // namespace openaclnn::lnb_test

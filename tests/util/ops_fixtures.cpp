#include "util/ops_fixtures.h"

#include <cmath>

namespace openaclnn::test {
namespace {

std::vector<float> Pattern(int64_t n, int seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    v[static_cast<size_t>(i)] = static_cast<float>(((i * 37 + seed * 11) % 29) - 14) / 8.0f;
  }
  return v;
}

}  // namespace

aclnnStatus RunTwoPhase(aclnnStatus phase1_status, uint64_t workspace_size, aclOpExecutor* executor,
                        aclrtStream stream,
                        aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream)) {
  if (phase1_status != 0) return phase1_status;
  void* workspace = nullptr;
  if (workspace_size > 0) aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
  aclnnStatus status = phase2(workspace, workspace_size, executor, stream);
  if (status == 0) status = aclrtSynchronizeStream(stream);
  if (workspace != nullptr) aclrtFree(workspace);
  return status;
}

LayerNormCase::LayerNormCase(std::vector<int64_t> lead, std::vector<int64_t> norm_dims,
                             aclDataType dtype, const bool mask_in[3], OutputLayout layout,
                             aclDataType out_dtype)
    : norm(std::move(norm_dims)) {
  for (int i = 0; i < 3; ++i) mask[i] = mask_in[i];
  shape = lead;
  shape.insert(shape.end(), norm.begin(), norm.end());
  stat_shape = lead;
  stat_shape.insert(stat_shape.end(), norm.size(), 1);
  int64_t m = 1, n = 1;
  for (int64_t d : lead) m *= d;
  for (int64_t d : norm) n *= d;
  dy = std::make_unique<DeviceTensor>(shape, dtype);
  x = std::make_unique<DeviceTensor>(shape, dtype);
  mean = std::make_unique<DeviceTensor>(stat_shape, ACL_FLOAT);
  rstd = std::make_unique<DeviceTensor>(stat_shape, ACL_FLOAT);
  weight = std::make_unique<DeviceTensor>(norm, ACL_FLOAT);
  gx = std::make_unique<DeviceTensor>(shape, out_dtype, layout.gap, layout.offset, layout.tail);
  gw = std::make_unique<DeviceTensor>(norm, out_dtype, layout.gap, layout.offset, layout.tail);
  gb = std::make_unique<DeviceTensor>(norm, out_dtype, layout.gap, layout.offset, layout.tail);
  dy->Fill(Pattern(dy->numel(), 1));
  x->Fill(Pattern(x->numel(), 2));
  weight->Fill(Pattern(n, 3));
  for (int64_t r = 0; r < m; ++r) {
    double sum = 0, sq = 0;
    for (int64_t c = 0; c < n; ++c) sum += x->Get(r * n + c);
    const double mu = sum / static_cast<double>(n);
    for (int64_t c = 0; c < n; ++c) sq += (x->Get(r * n + c) - mu) * (x->Get(r * n + c) - mu);
    mean->Set(r, static_cast<float>(mu));
    rstd->Set(r, static_cast<float>(1.0 / std::sqrt(sq / static_cast<double>(n) + 1e-5)));
  }
}

aclnnStatus LayerNormCase::Run(aclrtStream stream, bool pass_unmasked_outputs) {
  aclIntArray* norm_array = aclCreateIntArray(norm.data(), norm.size());
  aclBoolArray* mask_array = aclCreateBoolArray(mask, 3);
  auto out = [&](const std::unique_ptr<DeviceTensor>& t, bool wanted) {
    return wanted || pass_unmasked_outputs ? t->get() : nullptr;
  };
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus phase1 = aclnnLayerNormBackwardGetWorkspaceSize(
      dy->get(), x->get(), norm_array, mean->get(), rstd->get(), weight->get(), nullptr, mask_array,
      out(gx, mask[0]), out(gw, mask[1]), out(gb, mask[2]), &workspace, &executor);
  const aclnnStatus status =
      RunTwoPhase(phase1, workspace, executor, stream, aclnnLayerNormBackward);
  aclDestroyIntArray(norm_array);
  aclDestroyBoolArray(mask_array);
  return status;
}

ConvTbcCase::ConvTbcCase(int64_t t_in, int64_t batch, int64_t c_in, int64_t c_out, int64_t k,
                         int64_t pad_in, aclDataType dtype, OutputLayout layout)
    : pad(pad_in) {
  const int64_t t_out = t_in + 2 * pad + 1 - k;
  dy = std::make_unique<DeviceTensor>(std::vector<int64_t>{t_out, batch, c_out}, dtype);
  x = std::make_unique<DeviceTensor>(std::vector<int64_t>{t_in, batch, c_in}, dtype);
  w = std::make_unique<DeviceTensor>(std::vector<int64_t>{k, c_in, c_out}, dtype);
  bias = std::make_unique<DeviceTensor>(std::vector<int64_t>{c_out}, dtype);
  gx = std::make_unique<DeviceTensor>(std::vector<int64_t>{t_in, batch, c_in}, dtype, layout.gap,
                                      layout.offset, layout.tail);
  gw = std::make_unique<DeviceTensor>(std::vector<int64_t>{k, c_in, c_out}, dtype, layout.gap,
                                      layout.offset, layout.tail);
  gb = std::make_unique<DeviceTensor>(std::vector<int64_t>{c_out}, dtype, layout.gap, layout.offset,
                                      layout.tail);
  dy->Fill(Pattern(dy->numel(), 4));
  x->Fill(Pattern(x->numel(), 5));
  w->Fill(Pattern(w->numel(), 6));
  bias->Fill({0.0f});
}

aclnnStatus ConvTbcCase::Run(aclrtStream stream) {
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus phase1 =
      aclnnConvTbcBackwardGetWorkspaceSize(dy->get(), x->get(), w->get(), bias->get(), pad, 0,
                                           gx->get(), gw->get(), gb->get(), &workspace, &executor);
  return RunTwoPhase(phase1, workspace, executor, stream, aclnnConvTbcBackward);
}

}  // namespace openaclnn::test

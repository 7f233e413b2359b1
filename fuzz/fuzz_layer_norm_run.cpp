// The LayerNorm forward entry points end to end on small problems with fuzzed dtypes (input,
// weight/bias, out, mean and rstd each), weight and bias present or not, mean/rstd passed or null,
// implMode, and layouts: out, mean and rstd must match a float64 golden on every element (mixed
// tolerance), and no byte outside an output view may change.

#include <cmath>

#include "aclnnop/aclnn_layer_norm.h"
#include "fuzz_layout.h"
#include "util/precision.h"

using namespace openaclnn;
using namespace openaclnn::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  FuzzRuntime::Get();
  Arena arena;
  std::vector<int64_t> lead, norm;
  for (int i = fdp.ConsumeIntegralInRange(0, 2); i > 0; --i)
    lead.push_back(fdp.ConsumeIntegralInRange(0, 3));
  for (int i = fdp.ConsumeIntegralInRange(1, 2); i > 0; --i)
    norm.push_back(fdp.ConsumeIntegralInRange(1, 5));
  std::vector<int64_t> shape = lead;
  shape.insert(shape.end(), norm.begin(), norm.end());
  std::vector<int64_t> stat_shape = lead;
  stat_shape.insert(stat_shape.end(), norm.size(), 1);
  int64_t m_rows = 1, n_cols = 1;
  for (int64_t d : lead) m_rows *= d;
  for (int64_t d : norm) n_cols *= d;

  const aclDataType dtype = ConsumeFloatDtype(fdp);
  // weight and bias: FLOAT or the input dtype, the same for both (E2).
  const aclDataType param_dtype = fdp.ConsumeBool() ? ACL_FLOAT : dtype;
  const bool has_weight = fdp.ConsumeBool(), has_bias = fdp.ConsumeBool();
  const bool want_mean = fdp.ConsumeBool(), want_rstd = fdp.ConsumeBool();
  StridedTensor x(fdp, arena, shape, dtype);
  StridedTensor weight(fdp, arena, norm, param_dtype);
  StridedTensor bias(fdp, arena, norm, param_dtype);
  StridedTensor out(fdp, arena, shape, ConsumeFloatDtype(fdp));
  StridedTensor mean(fdp, arena, stat_shape, ConsumeFloatDtype(fdp));
  StridedTensor rstd(fdp, arena, stat_shape, ConsumeFloatDtype(fdp));
  // Rows alternate around their mean so the standard deviation stays near 1 (the tolerance rule is
  // for well-posed problems); every value is exact in every dtype.
  for (int64_t i = 0; i < x.numel(); ++i) {
    x.Set(i, static_cast<float>(fdp.ConsumeIntegralInRange(-4, 4)) / 8 +
                 ((i % n_cols) % 2 ? 1.f : -1.f));
  }
  for (int64_t n = 0; n < n_cols; ++n) {
    weight.Set(n, static_cast<float>(fdp.ConsumeIntegralInRange(1, 4)) / 2);
    bias.Set(n, static_cast<float>(fdp.ConsumeIntegralInRange(-4, 4)) / 8);
  }
  const double eps = 1e-5;

  const aclIntArray* normalized =
      arena.Keep(aclCreateIntArray(norm.data(), static_cast<uint64_t>(norm.size())));
  const aclTensor* w_arg = has_weight ? weight.tensor() : nullptr;
  const aclTensor* b_arg = has_bias ? bias.tensor() : nullptr;
  aclTensor* mean_arg = want_mean ? mean.tensor() : nullptr;
  aclTensor* rstd_arg = want_rstd ? rstd.tensor() : nullptr;
  // implMode 2 needs every input in FLOAT16 (E3).
  const bool all_half =
      dtype == ACL_FLOAT16 && (param_dtype == ACL_FLOAT16 || (!has_weight && !has_bias));
  const int32_t impl_mode = fdp.ConsumeIntegralInRange(0, all_half ? 2 : 1);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = 0;
  const int entry = fdp.ConsumeIntegralInRange(0, 2);
  if (entry == 0) {
    status = aclnnLayerNormGetWorkspaceSize(x.tensor(), normalized, w_arg, b_arg, eps, out.tensor(),
                                            mean_arg, rstd_arg, &workspace_size, &executor);
  } else if (entry == 1) {
    status = aclnnLayerNormWithImplModeGetWorkspaceSize(x.tensor(), normalized, w_arg, b_arg, eps,
                                                        out.tensor(), mean_arg, rstd_arg, impl_mode,
                                                        &workspace_size, &executor);
  } else {
    status =
        aclnnFastLayerNormGetWorkspaceSize(x.tensor(), normalized, w_arg, b_arg, eps, out.tensor(),
                                           mean_arg, rstd_arg, &workspace_size, &executor);
  }
  FUZZ_CHECK(status == 0, "phase 1 refused a valid problem (entry %d, implMode %d): %d %s", entry,
             impl_mode, status, aclGetRecentErrMsg());
  status = entry == 0   ? RunPhase2AndSync(aclnnLayerNorm, workspace_size, executor)
           : entry == 1 ? RunPhase2AndSync(aclnnLayerNormWithImplMode, workspace_size, executor)
                        : RunPhase2AndSync(aclnnFastLayerNorm, workspace_size, executor);
  FUZZ_CHECK(status == 0, "phase 2 failed: %d", status);

  // Two-pass mean and biased variance; eps narrowed to float as CANN does.
  std::vector<double> g_out(static_cast<size_t>(x.numel())), g_mean(m_rows), g_rstd(m_rows);
  for (int64_t m = 0; m < m_rows; ++m) {
    double sum = 0, sq = 0;
    for (int64_t n = 0; n < n_cols; ++n) sum += x.Get(m * n_cols + n);
    const double mu = sum / static_cast<double>(n_cols);
    for (int64_t n = 0; n < n_cols; ++n) sq += std::pow(x.Get(m * n_cols + n) - mu, 2);
    const double rs = 1.0 / std::sqrt(sq / static_cast<double>(n_cols) +
                                      static_cast<double>(static_cast<float>(eps)));
    g_mean[m] = mu;
    g_rstd[m] = rs;
    for (int64_t n = 0; n < n_cols; ++n) {
      const double wv = has_weight ? weight.Get(n) : 1.0, bv = has_bias ? bias.Get(n) : 0.0;
      g_out[m * n_cols + n] = (x.Get(m * n_cols + n) - mu) * rs * wv + bv;
    }
  }
  CheckAgainstGolden(out, g_out, "out");
  if (want_mean) CheckAgainstGolden(mean, g_mean, "mean");
  if (want_rstd) CheckAgainstGolden(rstd, g_rstd, "rstd");
  return 0;
}

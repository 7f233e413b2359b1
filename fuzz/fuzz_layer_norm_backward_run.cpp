// aclnnLayerNormBackward end to end on small problems with fuzzed dtypes, masks, weights and
// layouts: the results must match the float64 reference on every element (mixed tolerance), and
// no byte outside an output view may change.

#include <cmath>

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "fuzz_layout.h"
#include "ops/layer_norm_backward/reference.h"
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
  const int weight_kind = fdp.ConsumeIntegralInRange(0, 2);  // none, FLOAT, input dtype
  bool mask[3] = {fdp.ConsumeBool(), fdp.ConsumeBool(), fdp.ConsumeBool()};
  StridedTensor dy(fdp, arena, shape, dtype), x(fdp, arena, shape, dtype);
  StridedTensor mean(fdp, arena, stat_shape, ConsumeFloatDtype(fdp));
  StridedTensor rstd(fdp, arena, stat_shape, mean.dtype());
  StridedTensor weight(fdp, arena, norm, weight_kind == 1 ? ACL_FLOAT : dtype);
  StridedTensor gx(fdp, arena, shape, ConsumeFloatDtype(fdp));
  StridedTensor gw(fdp, arena, norm, ConsumeFloatDtype(fdp));
  StridedTensor gb(fdp, arena, norm, ConsumeFloatDtype(fdp));

  // Well-conditioned values on a grid exact in every dtype: rows alternate around their mean so
  // the standard deviation stays near 1 (the tolerance rule is for well-posed problems).
  for (int64_t i = 0; i < dy.numel(); ++i) {
    dy.Set(i, static_cast<float>(fdp.ConsumeIntegralInRange(-8, 8)) / 8);
    x.Set(i, static_cast<float>(fdp.ConsumeIntegralInRange(-4, 4)) / 8 +
                 ((i % n_cols) % 2 ? 1.f : -1.f));
  }
  for (int64_t n = 0; n < n_cols; ++n) {
    weight.Set(n, static_cast<float>(fdp.ConsumeIntegralInRange(1, 4)) / 2);
  }
  for (int64_t m = 0; m < m_rows; ++m) {
    double sum = 0, sq = 0;
    for (int64_t n = 0; n < n_cols; ++n) sum += x.Get(m * n_cols + n);
    const double mu = sum / static_cast<double>(n_cols);
    for (int64_t n = 0; n < n_cols; ++n) sq += std::pow(x.Get(m * n_cols + n) - mu, 2);
    mean.Set(m, static_cast<float>(mu));
    rstd.Set(m, static_cast<float>(1.0 / std::sqrt(sq / static_cast<double>(n_cols) + 1e-5)));
  }

  const int64_t norm_values_size = static_cast<int64_t>(norm.size());
  aclIntArray* normalized = arena.Keep(aclCreateIntArray(norm.data(), norm_values_size));
  aclBoolArray* output_mask = arena.Keep(aclCreateBoolArray(mask, 3));
  // Unmasked outputs are passed null or real (and then must stay untouched).
  const bool pass_unmasked = fdp.ConsumeBool();
  auto out = [&](const StridedTensor& t, bool wanted) -> aclTensor* {
    return wanted || pass_unmasked ? t.tensor() : nullptr;
  };
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnLayerNormBackwardGetWorkspaceSize(
      dy.tensor(), x.tensor(), normalized, mean.tensor(), rstd.tensor(),
      weight_kind == 0 ? nullptr : weight.tensor(), nullptr, output_mask, out(gx, mask[0]),
      out(gw, mask[1]), out(gb, mask[2]), &workspace_size, &executor);
  FUZZ_CHECK(status == 0, "phase 1 refused a valid problem: %d %s", status, aclGetRecentErrMsg());
  status = RunPhase2AndSync(aclnnLayerNormBackward, workspace_size, executor);
  FUZZ_CHECK(status == 0, "phase 2 failed: %d", status);

  std::vector<double> golden_dx(static_cast<size_t>(dy.numel())), golden_gw(n_cols),
      golden_gb(n_cols);
  std::vector<double> acc_w(n_cols), acc_b(n_cols);
  layer_norm_backward::ReferenceLayerNormBackward(
      m_rows, n_cols, mask, [&](int64_t m, int64_t n) { return dy.Get(m * n_cols + n); },
      [&](int64_t m, int64_t n) { return x.Get(m * n_cols + n); },
      [&](int64_t m) { return mean.Get(m); }, [&](int64_t m) { return rstd.Get(m); },
      [&](int64_t n) { return weight_kind == 0 ? 1.0 : weight.Get(n); },
      [&](int64_t m, int64_t n, double v) { golden_dx[m * n_cols + n] = v; },
      [&](int64_t n, double v) { golden_gw[n] = v; },
      [&](int64_t n, double v) { golden_gb[n] = v; }, acc_w.data(), acc_b.data());

  if (mask[0]) CheckAgainstGolden(gx, golden_dx, "gradInput");
  if (mask[1]) CheckAgainstGolden(gw, golden_gw, "gradWeight");
  if (mask[2]) CheckAgainstGolden(gb, golden_gb, "gradBias");
  if (!mask[0]) FUZZ_CHECK(gx.Untouched(), "unmasked gradInput was written");
  if (!mask[1]) FUZZ_CHECK(gw.Untouched(), "unmasked gradWeight was written");
  if (!mask[2]) FUZZ_CHECK(gb.Untouched(), "unmasked gradBias was written");
  return 0;
}

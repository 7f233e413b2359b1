// aclnnRmsNorm and aclnnRmsNormGrad end to end on small problems with fuzzed shapes (x of rank 1
// to 4, dims 0 to 6 outside gamma's and 1 to 6 inside), gamma's rank, FLOAT/FLOAT16/BFLOAT16 x with
// gamma of x's dtype or FLOAT, rstd in both of CANN's spellings for the backward, and layouts of
// every tensor: each output must match a float64 golden computed here from the stored inputs
// (mixed tolerance of the output's dtype), and no byte outside an output view may change.

#include <cmath>
#include <vector>

#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "fuzz_layout.h"

using namespace openaclnn;
using namespace openaclnn::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  FuzzRuntime::Get();
  Arena arena;
  const bool backward = fdp.ConsumeBool();
  const int rank = fdp.ConsumeIntegralInRange(1, 4);
  const int begin = fdp.ConsumeIntegralInRange(0, rank - 1);  // gamma = x's dims [begin, rank)
  std::vector<int64_t> shape, gamma_shape, rstd_shape, rstd_short;
  int64_t rows = 1, cols = 1;
  for (int d = 0; d < rank; ++d) {
    const int64_t extent = fdp.ConsumeIntegralInRange(d < begin ? 0 : 1, 6);
    shape.push_back(extent);
    if (d < begin) {
      rows *= extent;
      rstd_shape.push_back(extent);
      rstd_short.push_back(extent);
    } else {
      cols *= extent;
      gamma_shape.push_back(extent);
      rstd_shape.push_back(1);
    }
  }
  // The backward takes rstd as the forward wrote it (norm dims of 1) or as x's leading dims.
  if (backward && fdp.ConsumeBool()) rstd_shape = rstd_short;
  const aclDataType dtype = ConsumeFloatDtype(fdp);
  const aclDataType gamma_dtype = fdp.ConsumeBool() ? ACL_FLOAT : dtype;
  static const double kEpsilons[] = {1e-6, 1e-5, 0.5};
  const double eps = kEpsilons[fdp.ConsumeIntegralInRange(0, 2)];

  StridedTensor x(fdp, arena, shape, dtype);
  StridedTensor gamma(fdp, arena, gamma_shape, gamma_dtype);
  StridedTensor dy(fdp, arena, shape, dtype);
  StridedTensor rstd(fdp, arena, rstd_shape, ACL_FLOAT);
  StridedTensor out(fdp, arena, shape, dtype);               // yOut or dxOut
  StridedTensor dgamma(fdp, arena, gamma_shape, ACL_FLOAT);  // backward only
  for (int64_t k = 0; k < x.numel(); ++k) {
    x.Set(k, static_cast<float>(fdp.ConsumeIntegralInRange(-16, 16)) / 8);
    if (backward) dy.Set(k, static_cast<float>(fdp.ConsumeIntegralInRange(-16, 16)) / 8);
  }
  for (int64_t k = 0; k < gamma.numel(); ++k) {
    gamma.Set(k, static_cast<float>(fdp.ConsumeIntegralInRange(-16, 16)) / 8);
  }
  for (int64_t k = 0; backward && k < rstd.numel(); ++k) {
    rstd.Set(k, static_cast<float>(fdp.ConsumeIntegralInRange(2, 12)) / 8);
  }

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status =
      backward ? aclnnRmsNormGradGetWorkspaceSize(dy.tensor(), x.tensor(), rstd.tensor(),
                                                  gamma.tensor(), out.tensor(), dgamma.tensor(),
                                                  &workspace_size, &executor)
               : aclnnRmsNormGetWorkspaceSize(x.tensor(), gamma.tensor(), eps, out.tensor(),
                                              rstd.tensor(), &workspace_size, &executor);
  FUZZ_CHECK(status == 0, "phase 1 refused a valid problem: %d %s", status, aclGetRecentErrMsg());
  status = backward ? RunPhase2AndSync(aclnnRmsNormGrad, workspace_size, executor)
                    : RunPhase2AndSync(aclnnRmsNorm, workspace_size, executor);
  FUZZ_CHECK(status == 0, "phase 2 failed: %d", status);

  std::vector<double> golden(static_cast<size_t>(x.numel()), 0.0);
  std::vector<double> golden_rstd(static_cast<size_t>(rows), 0.0);
  std::vector<double> golden_dgamma(static_cast<size_t>(cols), 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    if (!backward) {
      double squares = 0;
      for (int64_t c = 0; c < cols; ++c) squares += x.Get(r * cols + c) * x.Get(r * cols + c);
      const double rs = 1 / std::sqrt(squares / static_cast<double>(cols) + eps);
      golden_rstd[static_cast<size_t>(r)] = rs;
      for (int64_t c = 0; c < cols; ++c) {
        golden[static_cast<size_t>(r * cols + c)] = x.Get(r * cols + c) * rs * gamma.Get(c);
      }
      continue;
    }
    const double rs = rstd.Get(r);
    double mean = 0;  // mean over the row of dy * gamma * x
    for (int64_t c = 0; c < cols; ++c) {
      mean += dy.Get(r * cols + c) * gamma.Get(c) * x.Get(r * cols + c);
    }
    mean /= static_cast<double>(cols);
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t k = r * cols + c;
      golden[static_cast<size_t>(k)] = rs * (dy.Get(k) * gamma.Get(c) - x.Get(k) * rs * rs * mean);
      golden_dgamma[static_cast<size_t>(c)] += dy.Get(k) * x.Get(k) * rs;
    }
  }
  CheckAgainstGolden(out, golden, backward ? "dxOut" : "yOut");
  if (backward) {
    // An empty x leaves dgamma zero (there are no rows to sum).
    CheckAgainstGolden(dgamma, golden_dgamma, "dgammaOut");
  } else {
    CheckAgainstGolden(rstd, golden_rstd, "rstdOut");
  }
  return 0;
}

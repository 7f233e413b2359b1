// aclnnConvTbc (forward) end to end on small problems with fuzzed dtypes, cubeMathType, pad and
// layouts, empty inputs and K = 0 included. Inputs are multiples of 1/8 in [-1, 1], exact in every
// dtype and in HF32, and the sums of at most 20 products stay exact in FLOAT16, so the float64
// golden below sees exactly what the library sees; no byte outside the output view may change.

#include "aclnnop/aclnn_convolution.h"
#include "fuzz_layout.h"
#include "util/precision.h"

using namespace openaclnn;
using namespace openaclnn::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  FuzzRuntime::Get();
  Arena arena;
  const int64_t t_in = fdp.ConsumeIntegralInRange(0, 6);
  const int64_t batch = fdp.ConsumeIntegralInRange(1, 3);
  const int64_t c_in = fdp.ConsumeIntegralInRange(1, 5);
  const int64_t c_out = fdp.ConsumeIntegralInRange(1, 5);
  const int64_t taps = fdp.ConsumeIntegralInRange(0, 4);
  const int64_t pad = fdp.ConsumeIntegralInRange(0, 4);
  const int64_t t_out = t_in + 2 * pad + 1 - taps;
  if (t_out < 0) return 0;
  const int8_t cube_math = fdp.ConsumeIntegralInRange<int8_t>(0, 4);
  const aclDataType dtype = ConsumeFloatDtype(fdp);  // self, weight and out share it (E5)
  StridedTensor x(fdp, arena, {t_in, batch, c_in}, dtype);
  StridedTensor w(fdp, arena, {taps, c_in, c_out}, dtype);
  StridedTensor bias(fdp, arena, {c_out}, ConsumeFloatDtype(fdp));
  StridedTensor y(fdp, arena, {t_out, batch, c_out}, dtype);
  for (int64_t i = 0; i < x.numel(); ++i) x.Set(i, fdp.ConsumeIntegralInRange(-8, 8) / 8.f);
  for (int64_t i = 0; i < w.numel(); ++i) w.Set(i, fdp.ConsumeIntegralInRange(-8, 8) / 8.f);
  for (int64_t i = 0; i < c_out; ++i) bias.Set(i, fdp.ConsumeIntegralInRange(-8, 8) / 8.f);

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status =
      aclnnConvTbcGetWorkspaceSize(x.tensor(), w.tensor(), bias.tensor(), pad, y.tensor(),
                                   cube_math, &workspace_size, &executor);
  FUZZ_CHECK(status == 0, "phase 1 refused a valid problem: %d %s", status, aclGetRecentErrMsg());
  status = RunPhase2AndSync(aclnnConvTbc, workspace_size, executor);
  FUZZ_CHECK(status == 0, "phase 2 failed: %d", status);

  // y[t, b, o] = bias[o] + sum over taps k and channels c of x[t + k - pad, b, c] * w[k, c, o].
  std::vector<double> golden(static_cast<size_t>(y.numel()));
  for (int64_t t = 0; t < t_out; ++t) {
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t o = 0; o < c_out; ++o) {
        double acc = bias.Get(o);
        for (int64_t k = 0; k < taps; ++k) {
          const int64_t ti = t + k - pad;
          if (ti < 0 || ti >= t_in) continue;
          for (int64_t c = 0; c < c_in; ++c) {
            acc += x.Get((ti * batch + b) * c_in + c) * w.Get((k * c_in + c) * c_out + o);
          }
        }
        golden[static_cast<size_t>((t * batch + b) * c_out + o)] = acc;
      }
    }
  }
  CheckAgainstGolden(y, golden, "out");
  return 0;
}

// aclnnConvTbcBackward end to end on small problems with fuzzed dtypes, cubeMathType, pad and
// layouts. Inputs are small multiples of 1/8, exact in every dtype and in HF32, so the float64
// reference sees exactly what the library sees; no byte outside an output view may change.

#include "aclnnop/aclnn_convolution_backward.h"
#include "fuzz_layout.h"
#include "ops/conv_tbc_backward/reference.h"
#include "util/precision.h"

using namespace openaclnn;
using namespace openaclnn::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  FuzzRuntime::Get();
  Arena arena;
  conv_tbc::ConvShape s;
  s.t_in = fdp.ConsumeIntegralInRange(0, 6);
  s.batch = fdp.ConsumeIntegralInRange(1, 3);
  s.c_in = fdp.ConsumeIntegralInRange(1, 5);
  s.c_out = fdp.ConsumeIntegralInRange(1, 5);
  s.taps = fdp.ConsumeIntegralInRange(1, 4);
  s.pad = fdp.ConsumeIntegralInRange(0, 4);
  if (s.t_out() < 0) return 0;
  const int8_t cube_math = fdp.ConsumeIntegralInRange<int8_t>(0, 3);
  StridedTensor dy(fdp, arena, {s.t_out(), s.batch, s.c_out}, ConsumeFloatDtype(fdp));
  StridedTensor x(fdp, arena, {s.t_in, s.batch, s.c_in}, ConsumeFloatDtype(fdp));
  StridedTensor w(fdp, arena, {s.taps, s.c_in, s.c_out}, ConsumeFloatDtype(fdp));
  StridedTensor bias(fdp, arena, {s.c_out}, ConsumeFloatDtype(fdp));
  StridedTensor gx(fdp, arena, {s.t_in, s.batch, s.c_in}, ConsumeFloatDtype(fdp));
  StridedTensor gw(fdp, arena, {s.taps, s.c_in, s.c_out}, ConsumeFloatDtype(fdp));
  StridedTensor gb(fdp, arena, {s.c_out}, ConsumeFloatDtype(fdp));
  std::vector<double> vdy(dy.numel()), vx(x.numel()), vw(w.numel());
  for (int64_t i = 0; i < dy.numel(); ++i) dy.Set(i, fdp.ConsumeIntegralInRange(-8, 8) / 8.f);
  for (int64_t i = 0; i < x.numel(); ++i) x.Set(i, fdp.ConsumeIntegralInRange(-8, 8) / 8.f);
  for (int64_t i = 0; i < w.numel(); ++i) w.Set(i, fdp.ConsumeIntegralInRange(-8, 8) / 8.f);
  for (int64_t i = 0; i < dy.numel(); ++i) vdy[i] = dy.Get(i);
  for (int64_t i = 0; i < x.numel(); ++i) vx[i] = x.Get(i);
  for (int64_t i = 0; i < w.numel(); ++i) vw[i] = w.Get(i);

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnConvTbcBackwardGetWorkspaceSize(
      dy.tensor(), x.tensor(), w.tensor(), bias.tensor(), s.pad, cube_math, gx.tensor(),
      gw.tensor(), gb.tensor(), &workspace_size, &executor);
  FUZZ_CHECK(status == 0, "phase 1 refused a valid problem: %d %s", status, aclGetRecentErrMsg());
  status = RunPhase2AndSync(aclnnConvTbcBackward, workspace_size, executor);
  FUZZ_CHECK(status == 0, "phase 2 failed: %d", status);

  std::vector<double> ggx(x.numel()), ggw(w.numel()), ggb(s.c_out);
  conv_tbc::ConvTbcBackwardF64(s, vdy.data(), vx.data(), vw.data(), ggx.data(), ggw.data(),
                               ggb.data());
  if (cube_math == 2) {  // results pass through FLOAT16 (decision D7); gradBias does not
    for (double& v : ggx) v = RoundThroughHalf(static_cast<float>(v));
    for (double& v : ggw) v = RoundThroughHalf(static_cast<float>(v));
  }
  CheckAgainstGolden(gx, ggx, "gradInput");
  CheckAgainstGolden(gw, ggw, "gradWeight");
  CheckAgainstGolden(gb, ggb, "gradBias");
  return 0;
}

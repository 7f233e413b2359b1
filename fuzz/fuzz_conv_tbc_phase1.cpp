// Phase 1 of aclnnConvTbc (forward) with arbitrary arguments: never a crash or sanitizer report,
// only the statuses the spec allows, a message with every failure.

#include "aclnnop/aclnn_convolution.h"
#include "fuzz_tensors.h"

using namespace openaclnn::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  FuzzRuntime::Get();
  Arena arena;
  const bool hostile = fdp.ConsumeIntegralInRange(0, 3) == 0;
  const int64_t t_in = fdp.ConsumeIntegralInRange(0, 6);
  const int64_t batch = fdp.ConsumeIntegralInRange(0, 3);
  const int64_t c_in = fdp.ConsumeIntegralInRange(0, 4);
  const int64_t c_out = fdp.ConsumeIntegralInRange(0, 4);
  const int64_t taps = fdp.ConsumeIntegralInRange(0, 4);
  int64_t pad = fdp.ConsumeIntegralInRange(0, 5);
  if (fdp.ConsumeIntegralInRange(0, 15) == 0) pad = ConsumeHostileInt(fdp);
  const int64_t t_out = t_in + 2 * (pad > 100 || pad < 0 ? 0 : pad) + 1 - taps;
  const aclDataType dtype = ConsumeDtype(fdp);

  auto tensor = [&](const std::vector<int64_t>& dims, aclDataType dt) -> aclTensor* {
    if (hostile) return ConsumeHostileTensor(fdp, arena);
    if (fdp.ConsumeIntegralInRange(0, 31) == 0) return nullptr;
    const bool mixed = fdp.ConsumeIntegralInRange(0, 7) == 0;
    return MakeTensor(fdp, arena, MaybeDisturb(fdp, dims), mixed ? ConsumeDtype(fdp) : dt);
  };
  aclTensor* self = tensor({t_in, batch, c_in}, dtype);
  aclTensor* weight = tensor({taps, c_in, c_out}, dtype);
  aclTensor* bias = tensor({c_out}, fdp.ConsumeBool() ? ACL_FLOAT : dtype);
  aclTensor* output =
      fdp.ConsumeIntegralInRange(0, 15) == 0 ? self : tensor({t_out, batch, c_out}, dtype);
  const int8_t cube_math = fdp.ConsumeIntegralInRange(0, 7) == 0 ? fdp.ConsumeIntegral<int8_t>()
                                                                 : fdp.ConsumeIntegralInRange(0, 4);

  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const bool null_outs = fdp.ConsumeIntegralInRange(0, 63) == 0;
  const aclnnStatus status = aclnnConvTbcGetWorkspaceSize(
      self, weight, bias, pad, output, cube_math, null_outs ? nullptr : &workspace,
      null_outs ? nullptr : &executor);
  CheckPhase1(status, executor, "aclnnConvTbc");
  return 0;
}

// Phase 1 of the three LayerNorm forward entry points (aclnnLayerNorm, aclnnLayerNormWithImplMode,
// aclnnFastLayerNorm) with arbitrary arguments: never a crash or sanitizer report, only the
// statuses the spec allows, a message with every failure.

#include <limits>

#include "aclnnop/aclnn_layer_norm.h"
#include "fuzz_tensors.h"

using namespace openaclnn::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  FuzzRuntime::Get();
  Arena arena;
  const bool hostile = fdp.ConsumeIntegralInRange(0, 3) == 0;
  // A coherent problem: input (lead..., norm...), weight/bias of the normalised shape, out of the
  // input's shape, mean/rstd of shape (lead..., 1...).
  const int lead_rank = fdp.ConsumeIntegralInRange(0, 3);
  const int norm_rank = fdp.ConsumeIntegralInRange(1, 3);
  std::vector<int64_t> lead, norm;
  for (int i = 0; i < lead_rank; ++i) lead.push_back(fdp.ConsumeIntegralInRange(0, 4));
  for (int i = 0; i < norm_rank; ++i) norm.push_back(fdp.ConsumeIntegralInRange(0, 5));
  std::vector<int64_t> shape = lead;
  shape.insert(shape.end(), norm.begin(), norm.end());
  std::vector<int64_t> stat_shape = lead;
  stat_shape.insert(stat_shape.end(), norm.size(), 1);
  const aclDataType dtype = ConsumeDtype(fdp);

  auto tensor = [&](const std::vector<int64_t>& dims, aclDataType dt) -> aclTensor* {
    if (hostile) return ConsumeHostileTensor(fdp, arena);
    if (fdp.ConsumeIntegralInRange(0, 31) == 0) return nullptr;
    return MakeTensor(fdp, arena, MaybeDisturb(fdp, dims),
                      fdp.ConsumeIntegralInRange(0, 15) == 0 ? ConsumeDtype(fdp) : dt);
  };
  aclTensor* input = tensor(shape, dtype);
  const aclDataType param_dtype = fdp.ConsumeBool() ? ACL_FLOAT : dtype;
  aclTensor* weight = fdp.ConsumeBool() ? nullptr : tensor(norm, param_dtype);
  aclTensor* bias = fdp.ConsumeBool() ? nullptr : tensor(norm, param_dtype);
  aclTensor* out = fdp.ConsumeIntegralInRange(0, 15) == 0 ? input : tensor(shape, dtype);
  aclTensor* mean = fdp.ConsumeIntegralInRange(0, 3) == 0 ? nullptr : tensor(stat_shape, ACL_FLOAT);
  aclTensor* rstd = fdp.ConsumeIntegralInRange(0, 3) == 0 ? nullptr : tensor(stat_shape, ACL_FLOAT);

  std::vector<int64_t> norm_values = MaybeDisturb(fdp, norm);
  if (fdp.ConsumeIntegralInRange(0, 15) == 0) {
    norm_values.resize(static_cast<size_t>(fdp.ConsumeIntegralInRange(0, 10)), 2);
  }
  aclIntArray* normalized =
      fdp.ConsumeIntegralInRange(0, 31) == 0
          ? nullptr
          : arena.Keep(aclCreateIntArray(norm_values.data(), norm_values.size()));
  static const double kEps[] = {1e-5,
                                0.0,
                                -1.0,
                                1e300,
                                std::numeric_limits<double>::quiet_NaN(),
                                std::numeric_limits<double>::infinity()};
  const double eps = kEps[fdp.ConsumeIntegralInRange(0, 5)];
  const int32_t impl_mode = fdp.ConsumeIntegralInRange(0, 7) == 0
                                ? fdp.ConsumeIntegral<int32_t>()
                                : fdp.ConsumeIntegralInRange(0, 2);

  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const bool null_outs = fdp.ConsumeIntegralInRange(0, 63) == 0;
  uint64_t* ws = null_outs ? nullptr : &workspace;
  aclOpExecutor** ex = null_outs ? nullptr : &executor;
  aclnnStatus status = 0;
  switch (fdp.ConsumeIntegralInRange(0, 2)) {
    case 0:
      status = aclnnLayerNormGetWorkspaceSize(input, normalized, weight, bias, eps, out, mean, rstd,
                                              ws, ex);
      break;
    case 1:
      status = aclnnLayerNormWithImplModeGetWorkspaceSize(input, normalized, weight, bias, eps, out,
                                                          mean, rstd, impl_mode, ws, ex);
      break;
    default:
      status = aclnnFastLayerNormGetWorkspaceSize(input, normalized, weight, bias, eps, out, mean,
                                                  rstd, ws, ex);
      break;
  }
  CheckPhase1(status, executor, "aclnnLayerNorm");
  return 0;
}

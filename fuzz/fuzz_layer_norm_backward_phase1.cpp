// Phase 1 of aclnnLayerNormBackward with arbitrary arguments: never a crash or sanitizer report,
// only the statuses the spec allows, a message with every failure.

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "fuzz_tensors.h"

using namespace openaclnn::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  FuzzRuntime::Get();
  Arena arena;
  const bool hostile = fdp.ConsumeIntegralInRange(0, 3) == 0;
  // A coherent problem: input (lead..., norm...), mean/rstd with M elements, weight/bias of the
  // normalised shape, outputs of matching shapes.
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
  aclTensor* grad_out = tensor(shape, dtype);
  aclTensor* input = fdp.ConsumeIntegralInRange(0, 15) == 0 ? grad_out : tensor(shape, dtype);
  aclTensor* mean = tensor(stat_shape, ACL_FLOAT);
  aclTensor* rstd = tensor(stat_shape, ACL_FLOAT);
  aclTensor* weight =
      fdp.ConsumeBool() ? nullptr : tensor(norm, fdp.ConsumeBool() ? ACL_FLOAT : dtype);
  aclTensor* bias = fdp.ConsumeBool() ? nullptr : tensor(norm, ACL_FLOAT);
  bool mask[4] = {fdp.ConsumeBool(), fdp.ConsumeBool(), fdp.ConsumeBool(), fdp.ConsumeBool()};
  aclTensor* grad_input = (mask[0] || fdp.ConsumeBool()) ? tensor(shape, dtype) : nullptr;
  aclTensor* grad_weight = (mask[1] || fdp.ConsumeBool()) ? tensor(norm, ACL_FLOAT) : nullptr;
  aclTensor* grad_bias = (mask[2] || fdp.ConsumeBool()) ? tensor(norm, ACL_FLOAT) : nullptr;

  std::vector<int64_t> norm_values = MaybeDisturb(fdp, norm);
  if (fdp.ConsumeIntegralInRange(0, 15) == 0) {
    norm_values.resize(static_cast<size_t>(fdp.ConsumeIntegralInRange(0, 10)), 2);
  }
  aclIntArray* normalized =
      fdp.ConsumeIntegralInRange(0, 31) == 0
          ? nullptr
          : arena.Keep(aclCreateIntArray(norm_values.data(), norm_values.size()));
  const uint64_t mask_size =
      fdp.ConsumeIntegralInRange(0, 15) == 0 ? fdp.ConsumeIntegralInRange(0, 4) : 3;
  aclBoolArray* output_mask = fdp.ConsumeIntegralInRange(0, 31) == 0
                                  ? nullptr
                                  : arena.Keep(aclCreateBoolArray(mask, mask_size));

  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const bool null_outs = fdp.ConsumeIntegralInRange(0, 63) == 0;
  const aclnnStatus status = aclnnLayerNormBackwardGetWorkspaceSize(
      grad_out, input, normalized, mean, rstd, weight, bias, output_mask, grad_input, grad_weight,
      grad_bias, null_outs ? nullptr : &workspace, null_outs ? nullptr : &executor);
  CheckPhase1(status, executor, "aclnnLayerNormBackward");
  return 0;
}

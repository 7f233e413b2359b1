// aclnnLayerNormBackward: the two public entry points and the implementation list.
#include <string>

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "api/dtype.h"
#include "api/executor.h"
#include "ops/layer_norm_backward/checker.h"
#include "ops/layer_norm_backward/cpu/fast.h"
#if OPENACLNN_WITH_CUDA
#include "ops/layer_norm_backward/cuda/plan.h"
#endif
#include "ops/layer_norm_backward/problem.h"
#include "ops/layer_norm_backward/reference.h"

namespace openaclnn::layer_norm_backward {

std::string Problem::Describe() const {
  std::string s = "M=" + std::to_string(m) + " N=" + std::to_string(n) +
                  " input=" + DTypeName(input.dtype) +
                  " weight=" + (has_weight ? DTypeName(weight.dtype) : "none") +
                  " mean=" + DTypeName(mean.dtype) + " rstd=" + DTypeName(rstd.dtype) + " mask=[" +
                  (mask[0] ? "1," : "0,") + (mask[1] ? "1," : "0,") + (mask[2] ? "1]" : "0]") +
                  " out=" + (mask[0] ? DTypeName(grad_input.dtype) : "-") + "," +
                  (mask[1] ? DTypeName(grad_weight.dtype) : "-") + "," +
                  (mask[2] ? DTypeName(grad_bias.dtype) : "-");
  if (!input.IsContiguous() || !grad_out.IsContiguous() ||
      (mask[0] && !grad_input.IsContiguous())) {
    s += " strided";
  }
  return s;
}

namespace {

const Implementation<Problem> kImplementations[] = {
#if OPENACLNN_WITH_CUDA
    {"cuda_rows", DeviceKind::kCuda, cuda::CudaDeclines, cuda::MakeCudaPlan},
#endif
    {"cpu_fused_rows", DeviceKind::kCpu, cpu::FastDeclines, cpu::MakeFastPlan},
    {"reference", DeviceKind::kCpu, ReferenceDeclines, MakeReferencePlan},
};

// Nothing to compute: no output wanted, N == 0 (every output is empty), or M == 0 with only
// gradInput wanted (it is empty). M == 0 with a parameter gradient still writes zeros.
bool NothingToCompute(const Problem& p) {
  if (!p.mask[0] && !p.mask[1] && !p.mask[2]) return true;
  if (p.n == 0) return true;
  return p.m == 0 && !p.AnyParamGrad();
}

}  // namespace
}  // namespace openaclnn::layer_norm_backward

aclnnStatus aclnnLayerNormBackwardGetWorkspaceSize(
    const aclTensor* gradOut, const aclTensor* input, const aclIntArray* normalizedShape,
    const aclTensor* mean, const aclTensor* rstd, const aclTensor* weightOptional,
    const aclTensor* biasOptional, const aclBoolArray* outputMask, aclTensor* gradInputOut,
    aclTensor* gradWeightOut, aclTensor* gradBiasOut, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  namespace lnb = openaclnn::layer_norm_backward;
  return openaclnn::RunPhase1(
      "aclnnLayerNormBackward", workspaceSize, executor,
      {gradOut, input, mean, rstd, weightOptional, biasOptional},
      {gradInputOut, gradWeightOut, gradBiasOut},
      [&](openaclnn::PlanBuilder* builder) -> openaclnn::Status {
        lnb::Problem problem;
        OPENACLNN_RETURN_IF_ERROR(lnb::CheckArguments(
            gradOut, input, normalizedShape, mean, rstd, weightOptional, biasOptional, outputMask,
            gradInputOut, gradWeightOut, gradBiasOut, &problem));
        if (openaclnn::VerboseEnabled()) builder->problem = problem.Describe();
        builder->input_unused[lnb::kBias] = true;  // the bias is validated, never read
        for (lnb::OutputSlot slot : {lnb::kGradInput, lnb::kGradWeight, lnb::kGradBias}) {
          builder->output_unused[slot] = !problem.mask[slot];
        }
        if (lnb::NothingToCompute(problem)) return openaclnn::Status::Ok();
        return openaclnn::ChooseImplementation("layer_norm_backward", lnb::kImplementations,
                                               problem, builder);
      });
}

aclnnStatus aclnnLayerNormBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                   aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnLayerNormBackward", workspace, workspaceSize, executor, stream);
}

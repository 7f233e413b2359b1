// aclnnLayerNorm, aclnnLayerNormWithImplMode and aclnnFastLayerNorm: the public entry points and
// the implementation list.
//
// CANN's phase-2 functions of the three are the one common executor runner, so an executor from
// any of the three phase-1 functions runs under any of the three phase-2 functions. All six
// therefore use the one operator name "aclnnLayerNorm" (messages and the executor's tag).
#include <cstdio>
#include <string>

#include "aclnnop/aclnn_layer_norm.h"
#include "api/dtype.h"
#include "api/executor.h"
#include "ops/layer_norm/checker.h"
#include "ops/layer_norm/cpu/fast.h"
#include "ops/layer_norm/problem.h"
#include "ops/layer_norm/reference.h"

namespace openaclnn::layer_norm {

std::string Problem::Describe() const {
  char eps_text[32];
  std::snprintf(eps_text, sizeof(eps_text), "%g", static_cast<double>(eps));
  std::string s =
      "M=" + std::to_string(m) + " N=" + std::to_string(n) + " input=" + DTypeName(input.dtype) +
      " weight=" + (has_weight ? DTypeName(weight.dtype) : "none") +
      " bias=" + (has_bias ? DTypeName(bias.dtype) : "none") + " out=" + DTypeName(out.dtype) +
      " mean=" + (has_mean ? DTypeName(mean.dtype) : "-") +
      " rstd=" + (has_rstd ? DTypeName(rstd.dtype) : "-") + " eps=" + eps_text +
      " implMode=" + std::to_string(impl_mode);
  if (!input.IsContiguous() || !out.IsContiguous()) s += " strided";
  return s;
}

namespace {

constexpr const char* kOpName = "aclnnLayerNorm";

const Implementation<Problem> kImplementations[] = {
    {"cpu_fused_rows", DeviceKind::kCpu, cpu::FastDeclines, cpu::MakeFastPlan},
    {"reference", DeviceKind::kCpu, ReferenceDeclines, MakeReferencePlan},
};

aclnnStatus Phase1(const aclTensor* input, const aclIntArray* normalized_shape,
                   const aclTensor* weight, const aclTensor* bias, double eps, aclTensor* out,
                   aclTensor* mean, aclTensor* rstd, int32_t impl_mode, uint64_t* workspace_size,
                   aclOpExecutor** executor) {
  return RunPhase1(
      kOpName, workspace_size, executor, {input, weight, bias}, {out, mean, rstd},
      [&](PlanBuilder* builder) -> Status {
        Problem problem;
        OPENACLNN_RETURN_IF_ERROR(CheckArguments(input, normalized_shape, weight, bias, eps, out,
                                                 mean, rstd, impl_mode, &problem));
        if (VerboseEnabled()) builder->problem = problem.Describe();
        // M == 0: nothing to write (decision E4). N == 0 still writes the stats.
        if (problem.m == 0) return Status::Ok();
        if (problem.n == 0 && !problem.has_mean && !problem.has_rstd) {
          return Status::Ok();
        }
        return ChooseImplementation("layer_norm", kImplementations, problem, builder);
      });
}

}  // namespace
}  // namespace openaclnn::layer_norm

aclnnStatus aclnnLayerNormGetWorkspaceSize(
    const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* weightOptional,
    const aclTensor* biasOptional, double eps, aclTensor* out, aclTensor* meanOutOptional,
    aclTensor* rstdOutOptional, uint64_t* workspaceSize, aclOpExecutor** executor) {
  return openaclnn::layer_norm::Phase1(input, normalizedShape, weightOptional, biasOptional, eps,
                                       out, meanOutOptional, rstdOutOptional, 0, workspaceSize,
                                       executor);
}

aclnnStatus aclnnLayerNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                           aclrtStream stream) {
  return openaclnn::RunPhase2(openaclnn::layer_norm::kOpName, workspace, workspaceSize, executor,
                              stream);
}

aclnnStatus aclnnLayerNormWithImplModeGetWorkspaceSize(
    const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* weightOptional,
    const aclTensor* biasOptional, double eps, aclTensor* out, aclTensor* meanOutOptional,
    aclTensor* rstdOutOptional, int32_t implMode, uint64_t* workspaceSize,
    aclOpExecutor** executor) {
  return openaclnn::layer_norm::Phase1(input, normalizedShape, weightOptional, biasOptional, eps,
                                       out, meanOutOptional, rstdOutOptional, implMode,
                                       workspaceSize, executor);
}

aclnnStatus aclnnLayerNormWithImplMode(void* workspace, uint64_t workspaceSize,
                                       aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::RunPhase2(openaclnn::layer_norm::kOpName, workspace, workspaceSize, executor,
                              stream);
}

aclnnStatus aclnnFastLayerNormGetWorkspaceSize(
    const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* weightOptional,
    const aclTensor* biasOptional, double eps, aclTensor* out, aclTensor* meanOutOptional,
    aclTensor* rstdOutOptional, uint64_t* workspaceSize, aclOpExecutor** executor) {
  // Decision E3: the same semantics as aclnnLayerNorm (CANN's variant differs only in which
  // kernel it picks and in rejecting an out dtype other than the input's with 561103).
  return openaclnn::layer_norm::Phase1(input, normalizedShape, weightOptional, biasOptional, eps,
                                       out, meanOutOptional, rstdOutOptional, 0, workspaceSize,
                                       executor);
}

aclnnStatus aclnnFastLayerNorm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                               aclrtStream stream) {
  return openaclnn::RunPhase2(openaclnn::layer_norm::kOpName, workspace, workspaceSize, executor,
                              stream);
}

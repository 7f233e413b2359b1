// aclnnConvTbcBackwardGetWorkspaceSize / aclnnConvTbcBackward: guard, checker, plan.
#include "aclnnop/aclnn_convolution_backward.h"
#include "api/executor.h"
#include "ops/conv_tbc_backward/checker.h"
#include "ops/conv_tbc_backward/cpu/fast.h"
#include "ops/conv_tbc_backward/reference.h"
#if OPENACLNN_WITH_CUDA
#include "ops/conv_tbc_backward/cuda/plan.h"
#endif

namespace openaclnn::conv_tbc {
namespace {

// Ordered list: the first that accepts the problem runs; the reference is last.
const Implementation<Problem> kImplementations[] = {
#if OPENACLNN_WITH_CUDA
    {"cuda_cublas", DeviceKind::kCuda, cuda::CudaDeclines, cuda::MakeCudaPlan},
#endif
    {"cpu_gemm", DeviceKind::kCpu, FastDeclines, MakeFastPlan},
    {"reference", DeviceKind::kCpu, ReferenceDeclines, MakeReferencePlan},
};

}  // namespace
}  // namespace openaclnn::conv_tbc

aclnnStatus aclnnConvTbcBackwardGetWorkspaceSize(const aclTensor* self, const aclTensor* input,
                                                 const aclTensor* weight, const aclTensor* bias,
                                                 int64_t pad, int8_t cubeMathType,
                                                 aclTensor* gradInput, aclTensor* gradWeight,
                                                 aclTensor* gradBias, uint64_t* workspaceSize,
                                                 aclOpExecutor** executor) {
  using namespace openaclnn;
  return RunPhase1("aclnnConvTbcBackward", workspaceSize, executor, {self, input, weight, bias},
                   {gradInput, gradWeight, gradBias}, [&](PlanBuilder* builder) -> Status {
                     conv_tbc::Problem problem;
                     OPENACLNN_RETURN_IF_ERROR(
                         conv_tbc::CheckAndDescribe(self, input, weight, bias, pad, cubeMathType,
                                                    gradInput, gradWeight, gradBias, &problem));
                     builder->problem = problem.Describe();
                     builder->input_unused[conv_tbc::kBias] =
                         true;  // only bias's shape and dtype matter
                     return ChooseImplementation("conv_tbc_backward", conv_tbc::kImplementations,
                                                 problem, builder);
                   });
}

aclnnStatus aclnnConvTbcBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                 const aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnConvTbcBackward", workspace, workspaceSize, executor, stream);
}

// aclnnConvTbcGetWorkspaceSize / aclnnConvTbc: guard, checker, plan.
#include <string>

#include "aclnnop/aclnn_convolution.h"
#include "api/dtype.h"
#include "api/executor.h"
#include "ops/conv_tbc/checker.h"
#include "ops/conv_tbc/cpu/fast.h"
#include "ops/conv_tbc/reference.h"

namespace openaclnn::conv_tbc_forward {

std::string Problem::Describe() const {
  std::string s = "T_in=" + std::to_string(t_in) + " T_out=" + std::to_string(t_out) +
                  " B=" + std::to_string(batch) + " Cin=" + std::to_string(c_in) +
                  " Cout=" + std::to_string(c_out) + " K=" + std::to_string(taps) +
                  " pad=" + std::to_string(pad) + " dtype=" + DTypeName(self.dtype) +
                  " bias=" + DTypeName(bias.dtype) +
                  " cubeMathType=" + std::to_string(cube_math_type);
  if (!self.IsContiguous() || !weight.IsContiguous() || !out.IsContiguous()) s += " strided";
  return s;
}

namespace {

// Ordered list: the first that accepts the problem runs; the reference is last.
const Implementation<Problem> kImplementations[] = {
    {"cpu_gemm", DeviceKind::kCpu, cpu::FastDeclines, cpu::MakeFastPlan},
    {"reference", DeviceKind::kCpu, ReferenceDeclines, MakeReferencePlan},
};

}  // namespace
}  // namespace openaclnn::conv_tbc_forward

aclnnStatus aclnnConvTbcGetWorkspaceSize(const aclTensor* self, const aclTensor* weight,
                                         const aclTensor* bias, const int64_t pad,
                                         aclTensor* output, int8_t cubeMathType,
                                         uint64_t* workspaceSize, aclOpExecutor** executor) {
  namespace ct = openaclnn::conv_tbc_forward;
  return openaclnn::RunPhase1(
      "aclnnConvTbc", workspaceSize, executor, {self, weight, bias}, {output},
      [&](openaclnn::PlanBuilder* builder) -> openaclnn::Status {
        ct::Problem problem;
        OPENACLNN_RETURN_IF_ERROR(
            ct::CheckArguments(self, weight, bias, pad, output, cubeMathType, &problem));
        if (openaclnn::VerboseEnabled()) builder->problem = problem.Describe();
        // An empty output: nothing to write (decision E8).
        if (problem.t_out == 0 || problem.batch == 0 || problem.c_out == 0) {
          return openaclnn::Status::Ok();
        }
        return openaclnn::ChooseImplementation("conv_tbc", ct::kImplementations, problem, builder);
      });
}

aclnnStatus aclnnConvTbc(void* workspace, const uint64_t workspaceSize, aclOpExecutor* executor,
                         aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnConvTbc", workspace, workspaceSize, executor, stream);
}

// aclnnReduceSum: the public entry points and the implementation list.
#include <string>

#include "aclnnop/aclnn_reduce_sum.h"
#include "api/dtype.h"
#include "api/executor.h"
#include "ops/reduce_sum/checker.h"
#include "ops/reduce_sum/cpu/fast.h"
#include "ops/reduce_sum/problem.h"
#include "ops/reduce_sum/reference.h"

namespace openaclnn::reduce_sum {

std::string Problem::Describe() const {
  std::string dims;
  for (int d = 0; d < in.rank; ++d) {
    if ((mask >> d) & 1u) dims += (dims.empty() ? "" : ",") + std::to_string(d);
  }
  std::string s = std::string("self=") + DTypeName(in.dtype) + in.ShapeString() + " dims=[" + dims +
                  "] keepDims=" + (keep_dims ? "1" : "0") + " out=" + DTypeName(out.dtype) +
                  out.ShapeString();
  if (!in.IsContiguous() || !out.IsContiguous()) s += " strided";
  return s;
}

namespace {

constexpr const char* kOpName = "aclnnReduceSum";

const Implementation<Problem> kImplementations[] = {
    {"cpu_reduce_engine", DeviceKind::kCpu, cpu::FastDeclines, cpu::MakeFastPlan},
    {"reference", DeviceKind::kCpu, ReferenceDeclines, MakeReferencePlan},
};

}  // namespace
}  // namespace openaclnn::reduce_sum

aclnnStatus aclnnReduceSumGetWorkspaceSize(const aclTensor* self, const aclIntArray* dims,
                                           bool keepDims, aclDataType dtype, aclTensor* out,
                                           uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace openaclnn;
  return RunPhase1(
      reduce_sum::kOpName, workspaceSize, executor, {self}, {out},
      [&](PlanBuilder* builder) -> Status {
        reduce_sum::Problem problem;
        OPENACLNN_RETURN_IF_ERROR(
            reduce_sum::CheckArguments(self, dims, keepDims, dtype, out, &problem));
        // The verbose line also says how the engine classifies and splits the problem.
        if (VerboseEnabled()) {
          builder->problem = problem.Describe() + " (" + PlanReduce(problem).Describe() + ")";
        }
        // Nothing to write: an empty out.
        if (problem.out.Numel() == 0) return Status::Ok();
        return ChooseImplementation("reduce_sum", reduce_sum::kImplementations, problem, builder);
      });
}

aclnnStatus aclnnReduceSum(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                           aclrtStream stream) {
  return openaclnn::RunPhase2(openaclnn::reduce_sum::kOpName, workspace, workspaceSize, executor,
                              stream);
}

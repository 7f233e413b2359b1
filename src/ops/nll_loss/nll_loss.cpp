// aclnnNLLLoss and aclnnNLLLossBackward: the public entry points, the implementation list they
// share, and the target reading every implementation uses.
#include <string>

#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss_backward.h"
#include "api/dtype.h"
#include "api/elem_type.h"
#include "kernels/cpu/index_read.h"
#include "ops/nll_loss/problem.h"

namespace openaclnn::nll_loss {

std::string Problem::Describe() const {
  static const char* const kReductions[] = {"none", "mean", "sum"};
  std::string s;
  if (kind == Kind::kBackward) {
    s = std::string("gradOutput=") + DTypeName(grad_output.dtype) + grad_output.ShapeString() + " ";
  }
  s += std::string("self=") + DTypeName(self.dtype) + self.ShapeString() +
       " target=" + DTypeName(target.dtype) + target.ShapeString() +
       " weight=" + DTypeName(weight.dtype) + weight.ShapeString() +
       " reduction=" + kReductions[reduction] + " ignoreIndex=" + std::to_string(ignore_index) +
       " out=" + DTypeName(out.dtype) + out.ShapeString();
  if (!self.IsContiguous() || !out.IsContiguous() || !target.IsContiguous()) s += " strided";
  return s;
}

Status ReadTargets(const Problem& p, const void* target_base, int64_t* dst) {
  openaclnn::cpu::IndexCheck check;
  check.bound = p.c;
  check.has_allowed = true;
  check.allowed = p.ignore_index;
  const openaclnn::cpu::BadIndex bad =
      openaclnn::cpu::ReadIndices(p.target, p.target.First(target_base), check, dst);
  if (bad.position < 0) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                     "target element %lld is %lld, outside [0, %lld) (the classes of self) "
                     "and not ignoreIndex %lld",
                     static_cast<long long>(bad.position), static_cast<long long>(bad.value),
                     static_cast<long long>(p.c), static_cast<long long>(p.ignore_index));
}

namespace {

const Implementation<Problem> kImplementations[] = {
    {"cpu_rows", DeviceKind::kCpu, cpu::FastDeclines, cpu::MakeFastPlan},
    {"reference", DeviceKind::kCpu, ReferenceDeclines, MakeReferencePlan},
};

}  // namespace
}  // namespace openaclnn::nll_loss

aclnnStatus aclnnNLLLossGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                         const aclTensor* weight, int64_t reduction,
                                         int64_t ignoreIndex, aclTensor* out,
                                         aclTensor* totalWeightOut, uint64_t* workspaceSize,
                                         aclOpExecutor** executor) {
  using namespace openaclnn;
  using nll_loss::Kind;
  return RunPhase1(
      nll_loss::OpName(Kind::kForward), workspaceSize, executor, {self, target, weight},
      {out, totalWeightOut}, [&](PlanBuilder* builder) -> Status {
        nll_loss::Problem problem;
        OPENACLNN_RETURN_IF_ERROR(nll_loss::CheckForward(
            self, target, weight, reduction, ignoreIndex, out, totalWeightOut, &problem));
        if (VerboseEnabled()) builder->problem = problem.Describe();
        // Always a plan: an empty batch still writes the reduced out and
        // totalWeightOut.
        return ChooseImplementation("nll_loss", nll_loss::kImplementations, problem, builder);
      });
}

aclnnStatus aclnnNLLLoss(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                         aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnNLLLoss", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnNLLLossBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                                 const aclTensor* target, const aclTensor* weight,
                                                 int64_t reduction, int64_t ignoreIndex,
                                                 const aclTensor* totalWeight, aclTensor* out,
                                                 uint64_t* workspaceSize,
                                                 aclOpExecutor** executor) {
  using namespace openaclnn;
  using nll_loss::Kind;
  return RunPhase1(
      nll_loss::OpName(Kind::kBackward), workspaceSize, executor,
      {gradOutput, self, target, weight, totalWeight}, {out}, [&](PlanBuilder* builder) -> Status {
        nll_loss::Problem problem;
        OPENACLNN_RETURN_IF_ERROR(nll_loss::CheckBackward(
            gradOutput, self, target, weight, reduction, ignoreIndex, totalWeight, out, &problem));
        if (VerboseEnabled()) builder->problem = problem.Describe();
        // self's values are never read (its shape is out's); totalWeight only for mean.
        builder->input_unused[nll_loss::kBwdSelf] = true;
        builder->input_unused[nll_loss::kBwdTotal] = problem.reduction != nll_loss::kMean;
        // An empty out: nothing to write, the targets are not read.
        if (problem.out.Numel() == 0) return Status::Ok();
        return ChooseImplementation("nll_loss_backward", nll_loss::kImplementations, problem,
                                    builder);
      });
}

aclnnStatus aclnnNLLLossBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                 aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnNLLLossBackward", workspace, workspaceSize, executor, stream);
}

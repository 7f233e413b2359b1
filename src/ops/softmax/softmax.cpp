// aclnnSoftmax, aclnnLogSoftmax, aclnnSoftmaxBackward, aclnnLogSoftmaxBackward: the public entry
// points and the implementation list they share.
#include <string>

#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_logsoftmax_backward.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_backward.h"
#include "api/dtype.h"
#include "api/executor.h"
#include "ops/softmax/checker.h"
#include "ops/softmax/cpu/row_engine.h"
#include "ops/softmax/problem.h"
#include "ops/softmax/reference.h"

namespace openaclnn::softmax {

std::string Problem::Describe() const {
  std::string s;
  if (IsBackward(kind)) {
    s = std::string("gradOutput=") + DTypeName(x.dtype) + x.ShapeString() +
        " output=" + DTypeName(y.dtype) + y.ShapeString();
  } else {
    s = std::string("self=") + DTypeName(x.dtype) + x.ShapeString();
  }
  s += " dim=" + std::to_string(dim) + " out=" + DTypeName(out.dtype) + out.ShapeString();
  if (!x.IsContiguous() || !out.IsContiguous() || (IsBackward(kind) && !y.IsContiguous())) {
    s += " strided";
  }
  return s;
}

namespace {

const Implementation<Problem> kImplementations[] = {
    {"cpu_row_engine", DeviceKind::kCpu, cpu::FastDeclines, cpu::MakeFastPlan},
    {"reference", DeviceKind::kCpu, ReferenceDeclines, MakeReferencePlan},
};

// OPENACLNN_FORCE_IMPL keys, by kind.
const char* ForceKey(Kind kind) {
  switch (kind) {
    case Kind::kSoftmax:
      return "softmax";
    case Kind::kLogSoftmax:
      return "log_softmax";
    case Kind::kSoftmaxBackward:
      return "softmax_backward";
    case Kind::kLogSoftmaxBackward:
      return "log_softmax_backward";
  }
  return "softmax";
}

Status Choose(const Problem& problem, PlanBuilder* builder) {
  if (VerboseEnabled()) builder->problem = problem.Describe();
  // An empty tensor: nothing to read or write.
  if (problem.x.Numel() == 0) return Status::Ok();
  return ChooseImplementation(ForceKey(problem.kind), kImplementations, problem, builder);
}

aclnnStatus Forward(const char* op_name, Kind kind, const aclTensor* self, int64_t dim,
                    aclTensor* out, uint64_t* workspace_size, aclOpExecutor** executor) {
  return RunPhase1(op_name, workspace_size, executor, {self}, {out},
                   [&](PlanBuilder* builder) -> Status {
                     Problem problem;
                     OPENACLNN_RETURN_IF_ERROR(CheckForward(kind, self, dim, out, &problem));
                     return Choose(problem, builder);
                   });
}

aclnnStatus Backward(const char* op_name, Kind kind, const aclTensor* grad_output,
                     const aclTensor* output, int64_t dim, aclTensor* out, uint64_t* workspace_size,
                     aclOpExecutor** executor) {
  return RunPhase1(
      op_name, workspace_size, executor, {grad_output, output}, {out},
      [&](PlanBuilder* builder) -> Status {
        Problem problem;
        OPENACLNN_RETURN_IF_ERROR(CheckBackward(kind, grad_output, output, dim, out, &problem));
        return Choose(problem, builder);
      });
}

}  // namespace
}  // namespace openaclnn::softmax

using openaclnn::softmax::Kind;

aclnnStatus aclnnSoftmaxGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out,
                                         uint64_t* workspaceSize, aclOpExecutor** executor) {
  return openaclnn::softmax::Forward("aclnnSoftmax", Kind::kSoftmax, self, dim, out, workspaceSize,
                                     executor);
}

aclnnStatus aclnnSoftmax(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                         aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnSoftmax", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLogSoftmaxGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out,
                                            uint64_t* workspaceSize, aclOpExecutor** executor) {
  return openaclnn::softmax::Forward("aclnnLogSoftmax", Kind::kLogSoftmax, self, dim, out,
                                     workspaceSize, executor);
}

aclnnStatus aclnnLogSoftmax(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                            aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnLogSoftmax", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnSoftmaxBackwardGetWorkspaceSize(const aclTensor* gradOutput,
                                                 const aclTensor* output, int64_t dim,
                                                 aclTensor* out, uint64_t* workspaceSize,
                                                 aclOpExecutor** executor) {
  return openaclnn::softmax::Backward("aclnnSoftmaxBackward", Kind::kSoftmaxBackward, gradOutput,
                                      output, dim, out, workspaceSize, executor);
}

aclnnStatus aclnnSoftmaxBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                 aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnSoftmaxBackward", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnLogSoftmaxBackwardGetWorkspaceSize(const aclTensor* gradOutput,
                                                    const aclTensor* output, int64_t dim,
                                                    aclTensor* out, uint64_t* workspaceSize,
                                                    aclOpExecutor** executor) {
  return openaclnn::softmax::Backward("aclnnLogSoftmaxBackward", Kind::kLogSoftmaxBackward,
                                      gradOutput, output, dim, out, workspaceSize, executor);
}

aclnnStatus aclnnLogSoftmaxBackward(void* workspace, uint64_t workspaceSize,
                                    aclOpExecutor* executor, aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnLogSoftmaxBackward", workspace, workspaceSize, executor,
                              stream);
}

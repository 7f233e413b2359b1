// aclnnEmbedding and aclnnEmbeddingDenseBackward: the public entry points, the implementation
// list they share, and the index reading every implementation uses.
#include <string>

#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_embedding_dense_backward.h"
#include "api/dtype.h"
#include "api/elem_type.h"
#include "kernels/cpu/index_read.h"
#include "ops/embedding/problem.h"

namespace openaclnn::embedding {

std::string Problem::Describe() const {
  std::string s;
  if (kind == Kind::kForward) {
    s = std::string("weight=") + DTypeName(table.dtype) + table.ShapeString();
  } else {
    s = std::string("grad=") + DTypeName(table.dtype) + table.ShapeString() +
        " numWeights=" + std::to_string(num_weights) +
        " paddingIdx=" + std::to_string(padding_idx) +
        " scaleGradByFreq=" + (scale_grad_by_freq ? "true" : "false");
  }
  s += std::string(" indices=") + DTypeName(indices.dtype) + indices.ShapeString() +
       " out=" + DTypeName(out.dtype) + out.ShapeString();
  if (!table.IsContiguous() || !indices.IsContiguous() || !out.IsContiguous()) s += " strided";
  return s;
}

Status ReadIndices(const Problem& p, const void* indices_base, int64_t* dst) {
  openaclnn::cpu::IndexCheck check;
  check.bound = p.num_weights;
  const openaclnn::cpu::BadIndex bad =
      openaclnn::cpu::ReadIndices(p.indices, p.indices.First(indices_base), check, dst);
  if (bad.position < 0) return Status::Ok();
  const char* rows = p.kind == Kind::kForward ? "weight" : "out";
  if (IsFloating(ToElemType(p.indices.dtype))) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "indices element %lld is %g, outside [0, %lld) (the rows of %s)",
                       static_cast<long long>(bad.position), bad.value,
                       static_cast<long long>(p.num_weights), rows);
  }
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                     "indices element %lld is %lld, outside [0, %lld) (the rows of %s)",
                     static_cast<long long>(bad.position), static_cast<long long>(bad.value),
                     static_cast<long long>(p.num_weights), rows);
}

namespace {

constexpr const char* kForwardName = "aclnnEmbedding";
constexpr const char* kBackwardName = "aclnnEmbeddingDenseBackward";

const Implementation<Problem> kImplementations[] = {
    {"cpu_rows", DeviceKind::kCpu, cpu::FastDeclines, cpu::MakeFastPlan},
    {"reference", DeviceKind::kCpu, ReferenceDeclines, MakeReferencePlan},
};

Status Choose(const Problem& problem, PlanBuilder* builder) {
  if (VerboseEnabled()) builder->problem = problem.Describe();
  // Nothing to write: the indices are not read (CANN returns at once for empty tensors too).
  if (problem.out.Numel() == 0) return Status::Ok();
  return ChooseImplementation(
      problem.kind == Kind::kForward ? "embedding" : "embedding_dense_backward", kImplementations,
      problem, builder);
}

}  // namespace
}  // namespace openaclnn::embedding

aclnnStatus aclnnEmbeddingGetWorkspaceSize(const aclTensor* weight, const aclTensor* indices,
                                           const aclTensor* out, uint64_t* workspaceSize,
                                           aclOpExecutor** executor) {
  using namespace openaclnn;
  return RunPhase1(
      embedding::kForwardName, workspaceSize, executor, {weight, indices}, {out},
      [&](PlanBuilder* builder) -> Status {
        embedding::Problem problem;
        OPENACLNN_RETURN_IF_ERROR(embedding::CheckForward(weight, indices, out, &problem));
        return embedding::Choose(problem, builder);
      });
}

aclnnStatus aclnnEmbedding(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                           const aclrtStream stream) {
  return openaclnn::RunPhase2(openaclnn::embedding::kForwardName, workspace, workspaceSize,
                              executor, stream);
}

aclnnStatus aclnnEmbeddingDenseBackwardGetWorkspaceSize(
    const aclTensor* grad, const aclTensor* indices, uint64_t numWeights, uint64_t paddingIdx,
    bool scaleGradByFreq, const aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor) {
  using namespace openaclnn;
  return RunPhase1(embedding::kBackwardName, workspaceSize, executor, {grad, indices}, {out},
                   [&](PlanBuilder* builder) -> Status {
                     embedding::Problem problem;
                     OPENACLNN_RETURN_IF_ERROR(embedding::CheckDenseBackward(
                         grad, indices, numWeights, paddingIdx, scaleGradByFreq, out, &problem));
                     return embedding::Choose(problem, builder);
                   });
}

aclnnStatus aclnnEmbeddingDenseBackward(void* workspace, uint64_t workspaceSize,
                                        aclOpExecutor* executor, const aclrtStream stream) {
  return openaclnn::RunPhase2(openaclnn::embedding::kBackwardName, workspace, workspaceSize,
                              executor, stream);
}

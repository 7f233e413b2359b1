// aclnnGlu and aclnnGluBackward: checkers (CANN's order: nullptr 161001, then dtypes, rank, dim,
// the even split and the shapes, 161002) and the entry points. The halves a and b of self along
// dim are two views of self (b offset by half the dim's extent), and GluBackward's two results
// are the two halves of out; the plans are ops/gelu/activation.h's.
#include <cstdint>
#include <vector>

#include "aclnnop/aclnn_glu.h"
#include "aclnnop/aclnn_glu_backward.h"
#include "api/dtype.h"
#include "api/pointwise.h"
#include "ops/gelu/activation.h"
#include "runtime/meta.h"

namespace openaclnn::activation {
namespace {

constexpr const char* kGluTypes = "DOUBLE, FLOAT, FLOAT16, BFLOAT16";

Status CheckGluType(const aclTensor& t, const char* param) {
  if (t.dtype == ACL_DOUBLE || t.dtype == ACL_FLOAT || t.dtype == ACL_FLOAT16 ||
      t.dtype == ACL_BF16) {
    return Status::Ok();
  }
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dtype must be one of %s, got %s", param,
                     kGluTypes, DTypeName(t.dtype));
}

Status CheckRankAtMost(const aclTensor& t, const char* param) {
  const size_t rank = t.view_dims.size();
  if (rank <= static_cast<size_t>(kMaxRank)) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s rank must be at most %d, got %zu (shape %s)",
                     param, kMaxRank, rank, ShapeString(t).c_str());
}

// self's rank > 0, dim in [-rank, rank - 1], self's dim even; sets the wrapped dim and the halved
// shape.
Status CheckSplit(const aclTensor& self, int64_t dim, int* wrapped, std::vector<int64_t>* half) {
  const int64_t rank = static_cast<int64_t>(self.view_dims.size());
  if (rank == 0) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "self rank must be greater than 0, got 0");
  }
  OPENACLNN_RETURN_IF_ERROR(CheckRankAtMost(self, "self"));
  if (dim < -rank || dim >= rank) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "dim must be in [%lld, %lld], got %lld",
                       static_cast<long long>(-rank), static_cast<long long>(rank - 1),
                       static_cast<long long>(dim));
  }
  *wrapped = static_cast<int>(dim < 0 ? dim + rank : dim);
  const int64_t n = self.view_dims[*wrapped];
  if (n % 2 != 0) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "self size along dim %d must be even, got %lld (shape %s)", *wrapped,
                       static_cast<long long>(n), ShapeString(self).c_str());
  }
  *half = self.view_dims;
  (*half)[*wrapped] = n / 2;
  return Status::Ok();
}

Status CheckShape(const aclTensor& t, const char* param, const std::vector<int64_t>& expected,
                  const char* what) {
  if (t.view_dims == expected) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s shape must be %s (%s), got %s", param,
                     DimsString(expected).c_str(), what, ShapeString(t).c_str());
}

// The two halves of `desc` along `dim` as views over the halved iteration shape.
void Halves(const TensorDesc& desc, int binding, int dim, const Problem& p, View* first,
            View* second) {
  TensorDesc half = desc;
  half.dims[dim] = desc.dims[dim] / 2;
  *first = MakeView(half, binding, p.rank, p.dims);
  *second = *first;
  second->offset += half.dims[dim] * desc.strides[dim];
}

void SetShape(const std::vector<int64_t>& half, Problem* p) {
  p->rank = static_cast<int>(half.size());
  for (int d = 0; d < p->rank; ++d) p->dims[d] = half[d];
}

Status CheckGlu(const aclTensor* self, int64_t dim, const aclTensor* out, Problem* p) {
  if (self == nullptr) return NullptrError("self");
  if (out == nullptr) return NullptrError("out");
  OPENACLNN_RETURN_IF_ERROR(CheckGluType(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckGluType(*out, "out"));
  int wrapped = 0;
  std::vector<int64_t> half;
  OPENACLNN_RETURN_IF_ERROR(CheckSplit(*self, dim, &wrapped, &half));
  OPENACLNN_RETURN_IF_ERROR(CheckRankAtMost(*out, "out"));
  OPENACLNN_RETURN_IF_ERROR(CheckShape(*out, "out", half, "self's shape with dim halved"));
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckExtents({{self, "self"}, {out, "out"}}));
  TensorDesc sd, od;
  DescribeTensor(*self, &sd);
  DescribeTensor(*out, &od);
  p->op_key = "glu";
  p->kind = Kind::kGlu;
  SetShape(half, p);
  Halves(sd, 0, wrapped, *p, &p->in[0], &p->in[1]);
  p->out[0] = MakeView(od, 0, p->rank, p->dims);
  p->compute = self->dtype == ACL_DOUBLE ? ElemType::kFloat64 : ElemType::kFloat32;
  return Status::Ok();
}

Status CheckGluBackward(const aclTensor* grad, const aclTensor* self, int64_t dim,
                        const aclTensor* out, Problem* p) {
  if (grad == nullptr) return NullptrError("gradOut");
  if (self == nullptr) return NullptrError("self");
  if (out == nullptr) return NullptrError("out");
  OPENACLNN_RETURN_IF_ERROR(CheckGluType(*grad, "gradOut"));
  OPENACLNN_RETURN_IF_ERROR(CheckGluType(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckGluType(*out, "out"));
  if (grad->dtype != self->dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "gradOut dtype must equal self dtype %s, got %s",
                       DTypeName(self->dtype), DTypeName(grad->dtype));
  }
  if (out->dtype != self->dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "out dtype must equal self dtype %s, got %s",
                       DTypeName(self->dtype), DTypeName(out->dtype));
  }
  int wrapped = 0;
  std::vector<int64_t> half;
  OPENACLNN_RETURN_IF_ERROR(CheckSplit(*self, dim, &wrapped, &half));
  OPENACLNN_RETURN_IF_ERROR(CheckRankAtMost(*grad, "gradOut"));
  OPENACLNN_RETURN_IF_ERROR(CheckRankAtMost(*out, "out"));
  OPENACLNN_RETURN_IF_ERROR(CheckShape(*grad, "gradOut", half, "self's shape with dim halved"));
  OPENACLNN_RETURN_IF_ERROR(CheckShape(*out, "out", self->view_dims, "self's shape"));
  OPENACLNN_RETURN_IF_ERROR(
      pointwise::CheckExtents({{grad, "gradOut"}, {self, "self"}, {out, "out"}}));
  TensorDesc gd, sd, od;
  DescribeTensor(*grad, &gd);
  DescribeTensor(*self, &sd);
  DescribeTensor(*out, &od);
  p->op_key = "glu_backward";
  p->kind = Kind::kGluGrad;
  SetShape(half, p);
  p->in[0] = MakeView(gd, 0, p->rank, p->dims);
  Halves(sd, 1, wrapped, *p, &p->in[1], &p->in[2]);
  Halves(od, 0, wrapped, *p, &p->out[0], &p->out[1]);
  p->compute = self->dtype == ACL_DOUBLE ? ElemType::kFloat64 : ElemType::kFloat32;
  return Status::Ok();
}

template <class Check>
aclnnStatus Phase1(const char* op_name, uint64_t* workspace_size, aclOpExecutor** executor,
                   std::initializer_list<const aclTensor*> inputs,
                   std::initializer_list<const aclTensor*> outputs, Check&& check) {
  return RunPhase1(
      op_name, workspace_size, executor, inputs, outputs, [&](PlanBuilder* builder) -> Status {
        Problem problem;
        OPENACLNN_RETURN_IF_ERROR(check(&problem));
        if (VerboseEnabled()) builder->problem = problem.Describe();
        if (problem.Numel() == 0) return Status::Ok();  // nothing to write
        return ChooseImplementation(problem.op_key, kImplementations, problem, builder);
      });
}

}  // namespace
}  // namespace openaclnn::activation

namespace act = openaclnn::activation;

aclnnStatus aclnnGluGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* out,
                                     uint64_t* workspaceSize, aclOpExecutor** executor) {
  return act::Phase1("aclnnGlu", workspaceSize, executor, {self}, {out},
                     [&](act::Problem* p) { return act::CheckGlu(self, dim, out, p); });
}

aclnnStatus aclnnGlu(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                     aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnGlu", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnGluBackwardGetWorkspaceSize(const aclTensor* gradOut, const aclTensor* self,
                                             int64_t dim, const aclTensor* out,
                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  return act::Phase1(
      "aclnnGluBackward", workspaceSize, executor, {gradOut, self}, {out},
      [&](act::Problem* p) { return act::CheckGluBackward(gradOut, self, dim, out, p); });
}

aclnnStatus aclnnGluBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnGluBackward", workspace, workspaceSize, executor, stream);
}

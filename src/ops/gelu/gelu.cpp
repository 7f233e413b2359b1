// aclnnGelu, aclnnGeluV2, aclnnGeluBackward and aclnnGeluBackwardV2: checkers (CANN's order:
// nullptr 161001, then dtypes, dtype agreement, shapes, rank 161002) and the entry points. The
// plans are ops/gelu/activation.h's.
//
// Contract decisions (docs/ops/gelu.md): aclnnGelu computes CANN's documented tanh form;
// aclnnGeluBackward the erf form (the gradient formula on its page); aclnnGeluV2's approximate is
// 0 (erf) or 1 (tanh); aclnnGeluBackwardV2's is "none" or "tanh".
#include <cstring>
#include <vector>

#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_gelu_backward_v2.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "api/dtype.h"
#include "api/pointwise.h"
#include "ops/gelu/activation.h"
#include "runtime/meta.h"

namespace openaclnn::activation {
namespace {

constexpr const char* kFloatTypes = "FLOAT, FLOAT16, BFLOAT16";

bool IsFloatType(aclDataType t) { return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16; }

Status CheckFloatType(const aclTensor& t, const char* param) {
  if (IsFloatType(t.dtype)) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dtype must be one of %s, got %s", param,
                     kFloatTypes, DTypeName(t.dtype));
}

Status CheckRank(const aclTensor& t, const char* param) {
  const size_t rank = t.view_dims.size();
  if (rank <= static_cast<size_t>(kMaxRank)) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s rank must be at most %d, got %zu (shape %s)",
                     param, kMaxRank, rank, ShapeString(t).c_str());
}

// The forward forms: x and y of one float dtype and one shape.
Status CheckForward(const aclTensor* x, const char* x_name, const aclTensor* y, const char* y_name,
                    Kind kind, const char* key, Problem* p) {
  if (x == nullptr) return NullptrError(x_name);
  if (y == nullptr) return NullptrError(y_name);
  OPENACLNN_RETURN_IF_ERROR(CheckFloatType(*x, x_name));
  OPENACLNN_RETURN_IF_ERROR(CheckFloatType(*y, y_name));
  if (x->dtype != y->dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dtype must equal %s dtype %s, got %s", y_name,
                       x_name, DTypeName(x->dtype), DTypeName(y->dtype));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckRank(*x, x_name));
  OPENACLNN_RETURN_IF_ERROR(CheckRank(*y, y_name));
  if (x->view_dims != y->view_dims) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s shape must equal %s shape %s, got %s", y_name,
                       x_name, ShapeString(*x).c_str(), ShapeString(*y).c_str());
  }
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckExtents({{x, x_name}, {y, y_name}}));
  TensorDesc xd, yd;
  DescribeTensor(*x, &xd);
  DescribeTensor(*y, &yd);
  p->op_key = key;
  p->kind = kind;
  p->rank = yd.rank;
  for (int d = 0; d < yd.rank; ++d) p->dims[d] = yd.dims[d];
  p->in[0] = MakeView(xd, 0, p->rank, p->dims);
  p->out[0] = MakeView(yd, 0, p->rank, p->dims);
  return Status::Ok();
}

// The backward forms: gradOutput and self broadcast; gradInput has the broadcast shape.
// `exact_out`: gradInput's dtype must be the promoted one (V2's page); otherwise any of the
// float types, all of which the promoted type converts to (GeluBackward's page).
Status CheckBackward(const aclTensor* grad, const aclTensor* self, const char* approximate,
                     bool has_approximate, const aclTensor* grad_input, bool exact_out,
                     const char* key, Problem* p) {
  if (grad == nullptr) return NullptrError("gradOutput");
  if (self == nullptr) return NullptrError("self");
  if (has_approximate && approximate == nullptr) return NullptrError("approximate");
  if (grad_input == nullptr) return NullptrError("gradInput");
  OPENACLNN_RETURN_IF_ERROR(CheckFloatType(*grad, "gradOutput"));
  OPENACLNN_RETURN_IF_ERROR(CheckFloatType(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckFloatType(*grad_input, "gradInput"));
  Kind kind = Kind::kGeluGradErf;
  if (has_approximate) {
    if (std::strcmp(approximate, "tanh") == 0) {
      kind = Kind::kGeluGradTanh;
    } else if (std::strcmp(approximate, "none") != 0) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "approximate must be \"none\" or \"tanh\", got \"%.32s\"", approximate);
    }
  }
  const ElemType promoted =
      pointwise::PromoteTypes(ToElemType(grad->dtype), ToElemType(self->dtype));
  if (exact_out && ToAclDataType(promoted) != grad_input->dtype) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "gradInput dtype must be the promotion of gradOutput %s and self %s, "
                       "which is %s, got %s",
                       DTypeName(grad->dtype), DTypeName(self->dtype),
                       DTypeName(ToAclDataType(promoted)), DTypeName(grad_input->dtype));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckRank(*grad, "gradOutput"));
  OPENACLNN_RETURN_IF_ERROR(CheckRank(*self, "self"));
  OPENACLNN_RETURN_IF_ERROR(CheckRank(*grad_input, "gradInput"));
  std::vector<int64_t> shape;
  OPENACLNN_RETURN_IF_ERROR(pointwise::Broadcast(*grad, "gradOutput", *self, "self", &shape));
  OPENACLNN_RETURN_IF_ERROR(pointwise::CheckOutShape(*grad_input, "gradInput", shape));
  OPENACLNN_RETURN_IF_ERROR(
      pointwise::CheckExtents({{grad, "gradOutput"}, {self, "self"}, {grad_input, "gradInput"}}));
  TensorDesc gd, sd, od;
  DescribeTensor(*grad, &gd);
  DescribeTensor(*self, &sd);
  DescribeTensor(*grad_input, &od);
  p->op_key = key;
  p->kind = kind;
  p->rank = od.rank;
  for (int d = 0; d < od.rank; ++d) p->dims[d] = od.dims[d];
  p->in[0] = MakeView(gd, 0, p->rank, p->dims);
  p->in[1] = MakeView(sd, 1, p->rank, p->dims);
  p->out[0] = MakeView(od, 0, p->rank, p->dims);
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

aclnnStatus aclnnGeluGetWorkspaceSize(const aclTensor* self, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor) {
  return act::Phase1("aclnnGelu", workspaceSize, executor, {self}, {out}, [&](act::Problem* p) {
    return act::CheckForward(self, "self", out, "out", act::Kind::kGeluTanh, "gelu", p);
  });
}

aclnnStatus aclnnGelu(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                      aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnGelu", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnGeluV2GetWorkspaceSize(const aclTensor* x, int64_t approximate, aclTensor* y,
                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  return act::Phase1("aclnnGeluV2", workspaceSize, executor, {x}, {y}, [&](act::Problem* p) {
    if (x != nullptr && y != nullptr && approximate != 0 && approximate != 1) {
      return openaclnn::ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                                    "approximate must be 0 (none) or 1 (tanh), got %lld",
                                    static_cast<long long>(approximate));
    }
    return act::CheckForward(x, "x", y, "y",
                             approximate == 1 ? act::Kind::kGeluTanh : act::Kind::kGeluErf,
                             "gelu_v2", p);
  });
}

aclnnStatus aclnnGeluV2(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                        aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnGeluV2", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnGeluBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                              aclTensor* gradInput, uint64_t* workspaceSize,
                                              aclOpExecutor** executor) {
  return act::Phase1("aclnnGeluBackward", workspaceSize, executor, {gradOutput, self}, {gradInput},
                     [&](act::Problem* p) {
                       return act::CheckBackward(gradOutput, self, nullptr, false, gradInput, false,
                                                 "gelu_backward", p);
                     });
}

aclnnStatus aclnnGeluBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                              aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnGeluBackward", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnGeluBackwardV2GetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                                char* approximate, aclTensor* gradInput,
                                                uint64_t* workspaceSize, aclOpExecutor** executor) {
  return act::Phase1("aclnnGeluBackwardV2", workspaceSize, executor, {gradOutput, self},
                     {gradInput}, [&](act::Problem* p) {
                       return act::CheckBackward(gradOutput, self, approximate, true, gradInput,
                                                 true, "gelu_backward_v2", p);
                     });
}

aclnnStatus aclnnGeluBackwardV2(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnGeluBackwardV2", workspace, workspaceSize, executor, stream);
}

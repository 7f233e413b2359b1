#pragma once
// The activation problem shared by the GELU and GLU families (aclnnGelu, aclnnGeluV2,
// aclnnGeluBackward, aclnnGeluBackwardV2, aclnnGlu, aclnnGluBackward): every operator is an
// elementwise function of up to three input views and one or two output views that all share one
// iteration shape. GLU's two halves are two views of the same tensor (the second one offset by
// half of `dim`), GluBackward's two outputs are the two halves of `out`; GeluBackward's inputs are
// broadcast to the iteration shape with zero strides. The checkers build these views, so the
// plans below know nothing of halves or broadcasting.

#include <cstdint>
#include <memory>
#include <string>

#include "api/elem_type.h"
#include "api/executor.h"
#include "api/tensor_desc.h"

namespace openaclnn::activation {

// The constants of the GELU formulas (1/sqrt 2, 1/sqrt(2 pi), sqrt(2/pi), the tanh form's cubic).
constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kTanhCubic = 0.044715;

enum class Kind : uint8_t {
  kGeluErf,       // y = x/2 (1 + erf(x / sqrt 2))
  kGeluTanh,      // y = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  kGeluGradErf,   // dx = dy * d/dx GeluErf(x); inputs dy, x
  kGeluGradTanh,  // dx = dy * d/dx GeluTanh(x); inputs dy, x
  kGlu,           // y = a * sigmoid(b); inputs a, b
  kGluGrad,       // da = g * s, db = da * (a - a s) with s = sigmoid(b); inputs g, a, b
};
const char* KindName(Kind kind);
int InputCount(Kind kind);
int OutputCount(Kind kind);

// One operand: which API tensor it is bound to, its dtype and its strides over the iteration
// shape (0 for broadcast dims), offset in elements from the tensor's storage base.
struct View {
  int binding = 0;
  ElemType type = ElemType::kInvalid;
  int64_t offset = 0;
  int64_t strides[kMaxRank] = {};
};

struct Problem {
  const char* op_key = "";
  Kind kind = Kind::kGeluErf;
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  View in[3];
  View out[2];
  // kFloat32 (FLOAT, FLOAT16, BFLOAT16 inputs) or kFloat64 (GLU's DOUBLE).
  ElemType compute = ElemType::kFloat32;

  int64_t Numel() const;
  std::string Describe() const;
};

// A view of `desc` over the iteration shape `dims` (rank `rank`), numpy-broadcast from the right.
View MakeView(const TensorDesc& desc, int binding, int rank, const int64_t* dims);

std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace);
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace);
inline const char* NeverDeclines(const Problem&) { return nullptr; }

// The fp32 (float64 for DOUBLE) engine, then the float64 reference
// (OPENACLNN_FORCE_IMPL=<key>=reference with key gelu, gelu_v2, gelu_backward, gelu_backward_v2,
// glu or glu_backward).
inline const Implementation<Problem> kImplementations[] = {
    {"cpu_activation", DeviceKind::kCpu, NeverDeclines, MakeFastPlan},
    {"reference", DeviceKind::kCpu, NeverDeclines, MakeReferencePlan},
};

}  // namespace openaclnn::activation

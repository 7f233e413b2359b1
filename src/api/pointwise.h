#pragma once
// The pointwise engine (PyTorch's TensorIterator, for CANN's elementwise operators): an operator
// states its operands (up to two input tensors or one tensor and a scalar, one output), the
// engine computes the broadcast shape, CANN's promoted dtype, merges the dims that are contiguous
// in every operand, and runs the inner runs on the thread pool in fixed chunks: a Highway kernel
// for unit-stride (or broadcast) float runs, typed loops for the rest.
//
// Phase 1: the operator's checker validates in CANN's order with the dtype rules below, then fills
// a Problem; MakeFastPlan / MakeReferencePlan freeze it. Phase 2: Plan::Run.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"
#include "api/elem_type.h"
#include "api/executor.h"
#include "api/status.h"
#include "api/tensor_desc.h"

namespace openaclnn::pointwise {

// What an output element is made of. kCopy converts the one input to the output dtype (Copy and
// Cast); kFill writes the scalar everywhere (InplaceZero, InplaceOne, InplaceFillScalar).
enum class Op : uint8_t { kAdd, kSub, kMul, kDiv, kCopy, kFill };
const char* OpName(Op op);

// How the arithmetic is carried out for a compute dtype: FLOAT, FLOAT16 and BFLOAT16 in fp32
// (16-bit results rounded once), DOUBLE in double, integers in int64 wrapped to the compute
// type's width (two's complement, as the narrow type would give), BOOL in int64 with "nonzero".
enum class ComputeKind : uint8_t { kF32, kF64, kInt, kBool };
ComputeKind KindOf(ElemType compute);

// An aclScalar's dtype and value, read exactly (a value of any supported dtype as double and, for
// integers and BOOL, as int64).
struct ScalarValue {
  ElemType type = ElemType::kInvalid;
  double f = 0;
  int64_t i = 0;
};
// False when the scalar's dtype is one this library does not compute with (complex, UINT16, ...).
bool ReadScalar(const aclScalar& scalar, ScalarValue* value);
aclDataType ScalarDtype(const aclScalar& scalar);

// CANN's dtype rules (docs/ops/pointwise.md has the tables).
// The tensor-tensor promotion table; kInvalid where CANN has a cross (none among the supported
// types) or either type is unsupported.
ElemType PromoteTypes(ElemType a, ElemType b);
// The tensor-scalar table: a floating tensor keeps its dtype; an integer tensor becomes FLOAT with
// a floating scalar and keeps its dtype otherwise; a BOOL tensor takes the scalar's category.
ElemType PromoteTensorScalar(ElemType tensor, ElemType scalar);
// CANN's conversion table: integers and floats convert to each other; BOOL converts to every type,
// and nothing but BOOL converts to BOOL.
bool CanCast(ElemType from, ElemType to);
// The ten dtypes the arithmetic operators take: FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, UINT8,
// INT16, INT32, INT64, BOOL.
bool IsSupported(aclDataType dtype);
// "FLOAT, FLOAT16, ..." for messages.
const char* SupportedList();

// numpy broadcasting of two view shapes; false when a pair of dims differs and neither is 1.
bool BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                     std::vector<int64_t>* out);

// The frozen pointwise problem.
struct Problem {
  const char* op_key = "";  // OPENACLNN_FORCE_IMPL key: "add", "copy", ...
  Op op = Op::kCopy;
  int num_inputs = 0;  // tensor inputs: 2 (Add), 1 (Adds, Copy, Cast), 0 (fills)
  TensorDesc out;      // the output view; its shape is the broadcast shape
  TensorDesc in[2];    // input views as given (their own shapes)
  ElemType out_type = ElemType::kInvalid;
  ElemType in_type[2] = {ElemType::kInvalid, ElemType::kInvalid};
  ElemType compute = ElemType::kInvalid;
  // The scalar operand (Adds' other, the fill value) and alpha, converted once to the compute
  // type's precision (fp32 for the three float types, wrapped for integers): `f` holds it for the
  // float kinds, `i` for the integer kinds.
  bool has_scalar = false;
  ElemType scalar_type = ElemType::kInvalid;  // the scalar's own dtype (fills convert from it)
  double scalar_f = 0;
  int64_t scalar_i = 0;
  double alpha_f = 1;
  int64_t alpha_i = 1;
  // Inputs whose bytes overlap the output's without being the same view: phase 2 copies them to
  // the workspace first, so every output element is computed from the original inputs.
  bool stage[2] = {false, false};

  std::string Describe() const;
};

// Fills the problem's dtypes and views from the API tensors (after the checker accepted them):
// `compute` and the scalar values are set by the caller. Sets `stage` from the phase-1 addresses.
void DescribeOperands(const aclTensor* out, const aclTensor* in0, const aclTensor* in1,
                      Problem* problem);
// Converts a scalar to the compute type's precision (see Problem).
void SetScalar(const ScalarValue& value, ElemType compute, double* f, int64_t* i);

// Bindings: inputs in API order (the tensor inputs only), output 0 is the output view (for the
// Inplace forms the API's selfRef, bound as an input and an output).
std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace);
inline const char* NeverDeclines(const Problem&) { return nullptr; }

// The arithmetic of one operator as the float64 reference applies it: float compute types on
// float64 values, integer and BOOL compute types on 64-bit words (two's complement: the result
// wrapped to the compute type is the narrow type's own). Both null for the conversion-only
// operators (Copy, Cast, the fills). Each operator's reference.cpp supplies its own.
struct ReferenceArithmetic {
  double (*on_doubles)(double x, double y, double alpha) = nullptr;
  uint64_t (*on_words)(uint64_t x, uint64_t y, uint64_t alpha) = nullptr;
};
// The generic float64 reference: every output element in row-major order, its operands converted
// to the compute type's precision, `arithmetic` in float64 (or on words), rounded once.
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace,
                                        const ReferenceArithmetic& arithmetic);

// Phase 1 of every pointwise operator: runs `check` (the operator's checker, which fills a
// Problem), skips empty outputs, and picks from the operator's implementation list (the engine,
// then its float64 reference). `inputs` / `outputs` are the API's tensor parameters in order.
template <size_t kCount, class Check>
aclnnStatus PointwisePhase1(const char* op_name,
                            const Implementation<Problem> (&implementations)[kCount],
                            uint64_t* workspace_size, aclOpExecutor** executor,
                            std::initializer_list<const aclTensor*> inputs,
                            std::initializer_list<const aclTensor*> outputs, Check&& check) {
  return RunPhase1(op_name, workspace_size, executor, inputs, outputs,
                   [&](PlanBuilder* builder) -> Status {
                     Problem problem;
                     OPENACLNN_RETURN_IF_ERROR(check(&problem));
                     if (VerboseEnabled()) builder->problem = problem.Describe();
                     if (problem.out.Numel() == 0) return Status::Ok();  // nothing to write
                     return ChooseImplementation(problem.op_key, implementations, problem, builder);
                   });
}

// Shared checks, each returning 161002 with a message naming `param`.
Status CheckSupported(const aclTensor& t, const char* param);
Status CheckMaxRank(const aclTensor& t, const char* param);
// out's shape must equal `expected` (the broadcast shape, or self's).
Status CheckOutShape(const aclTensor& out, const char* param, const std::vector<int64_t>& expected);
Status CheckCast(ElemType compute, const aclTensor& out, const char* param);
// CANN's alpha rule: a BOOL compute type takes an integer or BOOL alpha; others any convertible.
Status CheckAlpha(const ScalarValue& alpha, ElemType compute);
Status ReadScalarChecked(const aclScalar& scalar, const char* param, ScalarValue* value);
// Broadcast of two tensors' view shapes, 161002 naming both when impossible.
Status Broadcast(const aclTensor& a, const char* a_name, const aclTensor& b, const char* b_name,
                 std::vector<int64_t>* shape);

// The dtype and shape checks of the binary operators after their nullptr checks, in CANN's order
// (Add, Sub, Mul: dtypes, promotion, alpha, output cast, ranks, broadcast, output shape; Div:
// ranks and broadcast first). On success fills `problem` (views, dtypes, scalars, extents checked).
struct BinaryArgs {
  Op op = Op::kAdd;
  const char* op_key = "";
  const aclTensor* self = nullptr;
  const char* self_name = "self";
  const aclTensor* other = nullptr;         // the tensor form
  const aclScalar* other_scalar = nullptr;  // the scalar form (Adds, Muls, ...)
  const char* other_name = "other";
  const aclScalar* alpha = nullptr;  // Add and Sub only
  const aclTensor* out = nullptr;
  const char* out_name = "out";
  bool shape_first = false;   // Div checks ranks and broadcast before dtypes
  bool float_result = false;  // Div: an integer or BOOL promotion computes in FLOAT, and out must
                              // be a floating type
};
Status CheckBinary(const BinaryArgs& args, Problem* problem);

// Every tensor's bytes inside its memory block (161002 naming it).
Status CheckExtents(std::initializer_list<std::pair<const aclTensor*, const char*>> tensors);

}  // namespace openaclnn::pointwise

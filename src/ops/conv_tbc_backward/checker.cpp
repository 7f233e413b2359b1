#include "ops/conv_tbc_backward/checker.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "api/dtype.h"
#include "api/tensor_desc.h"
#include "runtime/meta.h"
#include "runtime/sysparam.h"

namespace openaclnn::conv_tbc {
namespace {

struct Named {
  const aclTensor* tensor;
  const char* name;
};

// Check 3: dtypes. bias has its own list on every product; on A2/A3 it is the same set.
Status CheckDtype(const Named& t) {
  if (IsComputeFloat(t.tensor->dtype)) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                     "%s dtype %s is not supported: expected FLOAT, FLOAT16 or BF16", t.name,
                     DTypeName(t.tensor->dtype));
}

// Check 4: storage formats (labels only; they do not change how strides are read).
Status CheckFormat(const Named& t, bool nd_only) {
  const aclFormat f = t.tensor->format;
  if (f == ACL_FORMAT_ND || (!nd_only && f == ACL_FORMAT_NCL)) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s format %s (%d) is not supported: expected %s",
                     t.name, FormatName(f), static_cast<int>(f), nd_only ? "ND" : "ND or NCL");
}

Status CheckRank(const Named& t, size_t rank) {
  if (t.tensor->view_dims.size() == rank) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s rank %zu must be %zu (shape %s)", t.name,
                     t.tensor->view_dims.size(), rank, ShapeString(*t.tensor).c_str());
}

Status CheckDimEqual(const Named& a, int dim_a, const Named& b, int dim_b) {
  const int64_t va = a.tensor->view_dims[dim_a];
  const int64_t vb = b.tensor->view_dims[dim_b];
  if (va == vb) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dim %d (%lld) must equal %s dim %d (%lld)",
                     a.name, dim_a, static_cast<long long>(va), b.name, dim_b,
                     static_cast<long long>(vb));
}

Status CheckSameShape(const Named& out, const Named& in) {
  if (out.tensor->view_dims == in.tensor->view_dims) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s shape %s must equal %s shape %s", out.name,
                     ShapeString(*out.tensor).c_str(), in.name, ShapeString(*in.tensor).c_str());
}

}  // namespace

Status CheckAndDescribe(const aclTensor* self, const aclTensor* input, const aclTensor* weight,
                        const aclTensor* bias, int64_t pad, int8_t cube_math_type,
                        const aclTensor* grad_input, const aclTensor* grad_weight,
                        const aclTensor* grad_bias, Problem* problem) {
  // 2. Null checks, in API order.
  const std::pair<const aclTensor*, const char*> params[] = {
      {self, "self"},         {input, "input"},          {weight, "weight"},
      {bias, "bias"},         {grad_input, "gradInput"}, {grad_weight, "gradWeight"},
      {grad_bias, "gradBias"}};
  for (const auto& p : params) {
    if (p.first == nullptr) return NullptrError(p.second);
  }
  const Named s{self, "self"}, x{input, "input"}, w{weight, "weight"}, b{bias, "bias"};
  const Named gx{grad_input, "gradInput"}, gw{grad_weight, "gradWeight"};
  const Named gb{grad_bias, "gradBias"};

  // 3. dtypes.
  for (const Named& t : {s, x, w, b, gx, gw, gb}) OPENACLNN_RETURN_IF_ERROR(CheckDtype(t));
  // 4. Formats: bias and gradBias ND only.
  for (const Named& t : {s, x, w, gx, gw}) OPENACLNN_RETURN_IF_ERROR(CheckFormat(t, false));
  for (const Named& t : {b, gb}) OPENACLNN_RETURN_IF_ERROR(CheckFormat(t, true));
  // 5. CANN rejects an empty self here; this project accepts it (decision D3).

  // 6. Ranks, then the shape relations, in CANN's order.
  for (const Named& t : {s, x, w}) OPENACLNN_RETURN_IF_ERROR(CheckRank(t, 3));
  OPENACLNN_RETURN_IF_ERROR(CheckRank(b, 1));
  for (const Named& t : {gx, gw}) OPENACLNN_RETURN_IF_ERROR(CheckRank(t, 3));
  OPENACLNN_RETURN_IF_ERROR(CheckRank(gb, 1));
  OPENACLNN_RETURN_IF_ERROR(CheckDimEqual(x, 2, w, 1));
  OPENACLNN_RETURN_IF_ERROR(CheckDimEqual(b, 0, w, 2));
  if (pad < 0) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "pad must be >= 0, got %lld",
                       static_cast<long long>(pad));
  }
  const int64_t t_in = input->view_dims[0];
  const int64_t taps = weight->view_dims[0];
  int64_t t_out = 0;
  if (__builtin_mul_overflow(pad, 2, &t_out) || __builtin_add_overflow(t_out, t_in, &t_out) ||
      __builtin_add_overflow(t_out, 1, &t_out) || __builtin_sub_overflow(t_out, taps, &t_out)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "pad (%lld) is too large: T_out = T_in + 2*pad + 1 - K overflows int64",
                       static_cast<long long>(pad));
  }
  if (t_out < 0) {
    return ErrorStatus(
        ACLNN_ERR_PARAM_INVALID,
        "T_out = T_in + 2*pad + 1 - K = %lld + 2*%lld + 1 - %lld = %lld must be >= 0 "
        "(input dim 0, pad, weight dim 0)",
        static_cast<long long>(t_in), static_cast<long long>(pad), static_cast<long long>(taps),
        static_cast<long long>(t_out));
  }
  const std::vector<int64_t> expected_self = {t_out, input->view_dims[1], weight->view_dims[2]};
  if (self->view_dims != expected_self) {
    aclTensor shape_only;
    shape_only.view_dims = expected_self;
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "self shape %s must equal (T_out, input dim 1, weight dim 2) = %s",
                       ShapeString(*self).c_str(), ShapeString(shape_only).c_str());
  }
  OPENACLNN_RETURN_IF_ERROR(CheckSameShape(gx, x));
  OPENACLNN_RETURN_IF_ERROR(CheckSameShape(gw, w));
  OPENACLNN_RETURN_IF_ERROR(CheckSameShape(gb, b));

  // 7. cubeMathType (on A2/A3 every promoted type is handled).
  if (cube_math_type < 0 || cube_math_type > 3) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "cubeMathType must be 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), 2 "
                       "(USE_FP16) or 3 (USE_HF32), got %d",
                       static_cast<int>(cube_math_type));
  }
  // 8. The 950-only output dtype checks do not apply to this product profile (decision D2).

  // Beyond CANN: every tensor read or written must lie inside its storage. bias is never read.
  for (const Named& t : {s, x, w, gx, gw, gb}) {
    OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*t.tensor, t.name));
  }

  Problem& p = *problem;
  p.t_in = t_in;
  p.t_out = t_out;
  p.batch = input->view_dims[1];
  p.c_in = input->view_dims[2];
  p.c_out = weight->view_dims[2];
  p.taps = taps;
  p.pad = pad;
  p.cube_math_type = cube_math_type;
  p.promoted = PromoteFloatTypes(PromoteFloatTypes(self->dtype, input->dtype), weight->dtype);
  p.rounding = cpu::RoundingFor(cube_math_type, p.promoted);
  p.round_result_to_half = cube_math_type == 2;
  p.deterministic = DeterministicMode() != 0;
  DescribeTensor(*self, &p.self);
  DescribeTensor(*input, &p.input);
  DescribeTensor(*weight, &p.weight);
  DescribeTensor(*grad_input, &p.grad_input);
  DescribeTensor(*grad_weight, &p.grad_weight);
  DescribeTensor(*grad_bias, &p.grad_bias);
  return Status::Ok();
}

std::string Problem::Describe() const {
  char buf[512];
  std::snprintf(
      buf, sizeof(buf),
      "T_in=%lld T_out=%lld B=%lld Cin=%lld Cout=%lld K=%lld pad=%lld self=%s input=%s "
      "weight=%s gradInput=%s gradWeight=%s gradBias=%s cubeMathType=%d compute=%s%s%s",
      static_cast<long long>(t_in), static_cast<long long>(t_out), static_cast<long long>(batch),
      static_cast<long long>(c_in), static_cast<long long>(c_out), static_cast<long long>(taps),
      static_cast<long long>(pad), DTypeName(self.dtype), DTypeName(input.dtype),
      DTypeName(weight.dtype), DTypeName(grad_input.dtype), DTypeName(grad_weight.dtype),
      DTypeName(grad_bias.dtype), static_cast<int>(cube_math_type),
      rounding == InputRounding::kHf32   ? "HF32"
      : rounding == InputRounding::kHalf ? "FLOAT16"
                                         : DTypeName(promoted),
      self.IsContiguous() && input.IsContiguous() && weight.IsContiguous() ? "" : " strided-inputs",
      deterministic ? " deterministic" : "");
  return buf;
}

bool MayOverlap(const TensorDesc& desc) { return !CertainlyDisjoint(desc); }

}  // namespace openaclnn::conv_tbc

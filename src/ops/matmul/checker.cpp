#include "ops/matmul/checker.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "api/byte_span.h"
#include "api/dtype.h"
#include "api/pointwise.h"
#include "api/tensor_desc.h"
#include "runtime/meta.h"

namespace openaclnn::matmul {
namespace {

struct Named {
  const aclTensor* tensor;
  const char* name;
  int rank() const { return static_cast<int>(tensor->view_dims.size()); }
  int64_t dim(int i) const { return tensor->view_dims[i < 0 ? rank() + i : i]; }
};

// What distinguishes the five operators once their parameters are named.
struct Spec {
  const char* api;
  Named a, b;
  Named bias;  // tensor == nullptr without one
  Named out;   // the bias itself for the inplace forms
  const aclScalar* beta = nullptr;
  const aclScalar* alpha = nullptr;
  int min_rank = 1, max_rank = 6;  // of a and b
  int a_slot = 0, b_slot = 1, bias_slot = -1;
  bool inplace = false;
};

Status CheckDtype(const Named& t) {
  if (IsComputeFloat(t.tensor->dtype)) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                     "%s dtype %s is not supported: expected FLOAT, FLOAT16 or BFLOAT16", t.name,
                     DTypeName(t.tensor->dtype));
}

// Plain formats are labels of an ND layout; the private (fractal, C0-blocked) ones are not.
Status CheckFormat(const Named& t) {
  switch (t.tensor->format) {
    case ACL_FORMAT_ND:
    case ACL_FORMAT_NCHW:
    case ACL_FORMAT_NHWC:
    case ACL_FORMAT_HWCN:
    case ACL_FORMAT_NDHWC:
    case ACL_FORMAT_NCDHW:
    case ACL_FORMAT_NC:
    case ACL_FORMAT_NCL:
      return Status::Ok();
    default:
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "%s format %s (%d) is not supported: expected ND (or another plain "
                         "format such as NCHW or NCL)",
                         t.name, FormatName(t.tensor->format), static_cast<int>(t.tensor->format));
  }
}

Status CheckRank(const Named& t, int min_rank, int max_rank) {
  if (t.rank() >= min_rank && t.rank() <= max_rank) return Status::Ok();
  if (min_rank == max_rank) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s must be %d-D, got %d-D (shape %s)", t.name,
                       min_rank, t.rank(), ShapeString(*t.tensor).c_str());
  }
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s must be %d-D to %d-D, got %d-D (shape %s)",
                     t.name, min_rank, max_rank, t.rank(), ShapeString(*t.tensor).c_str());
}

Status ReadScalarAsFloat(const aclScalar& scalar, const char* name, float* value) {
  pointwise::ScalarValue v;
  OPENACLNN_RETURN_IF_ERROR(pointwise::ReadScalarChecked(scalar, name, &v));
  *value = static_cast<float>(v.f);
  return Status::Ok();
}

// Fills the strides of a matrix operand from the view dims [batch..., rows?, cols?] of `t`:
// `row_dim`/`col_dim` are the view dims holding the matrix rows/cols (-1 when the operand has
// none, a 1-D operand), `batch_end` the number of leading batch dims. Batch dims are aligned
// right with the problem's `batch_dims`.
void FillOperand(const aclTensor& t, int row_dim, int col_dim, int batch_end,
                 const std::vector<int64_t>& batch_dims, int64_t rows, int64_t cols,
                 MatrixOperand* op) {
  DescribeTensor(t, &op->desc);
  op->rows = rows;
  op->cols = cols;
  op->row_stride = row_dim >= 0 && t.view_dims[row_dim] > 1 ? t.strides[row_dim] : 0;
  op->col_stride = col_dim >= 0 && t.view_dims[col_dim] > 1 ? t.strides[col_dim] : 0;
  const int pr = static_cast<int>(batch_dims.size());
  for (int d = 0; d < pr; ++d) {
    const int td = d - (pr - batch_end);
    const bool present = td >= 0 && t.view_dims[td] != 1;
    op->batch_strides[d] = present ? t.strides[td] : 0;
    op->batch_dims[d] = present ? batch_dims[d] : 1;
  }
}

InputRounding MatmulRounding(int8_t cube_math_type, aclDataType promoted) {
  // USE_FP16 is not applied to BFLOAT16 operands (CANN logs a warning and keeps BF16).
  if (cube_math_type == 2 && promoted == ACL_BF16) return InputRounding::kNone;
  return cpu::RoundingFor(cube_math_type, promoted);
}

// Drops batch dims of extent 1, then folds trailing batch dims into m where B is shared by them
// and A's and C's rows continue across them at the same row stride (torch folds the same way).
void Normalise(Problem* p) {
  int r = 0;
  for (int d = 0; d < p->batch_rank; ++d) {
    if (p->batch_dims[d] == 1) continue;
    p->batch_dims[r] = p->batch_dims[d];
    for (MatrixOperand* op : {&p->a, &p->b, &p->c, &p->bias}) {
      op->batch_dims[r] = op->batch_dims[d];
      op->batch_strides[r] = op->batch_strides[d];
    }
    ++r;
  }
  p->batch_rank = r;
  while (!p->has_bias && p->batch_rank > 0 && p->m > 0) {
    const int d = p->batch_rank - 1;
    const int64_t extent = p->batch_dims[d];
    if (p->b.batch_dims[d] != 1 || p->a.batch_dims[d] != extent) break;
    const int64_t a_rs = p->m == 1 ? p->a.batch_strides[d] : p->a.row_stride;
    const int64_t c_rs = p->m == 1 ? p->c.batch_strides[d] : p->c.row_stride;
    if (p->a.batch_strides[d] != p->m * a_rs || p->c.batch_strides[d] != p->m * c_rs) break;
    p->a.row_stride = a_rs;
    p->c.row_stride = c_rs;
    p->m *= extent;
    p->a.rows = p->c.rows = p->m;
    --p->batch_rank;
  }
  p->batch = 1;
  for (int d = 0; d < p->batch_rank; ++d) p->batch *= p->batch_dims[d];
}

Status Build(const Spec& s, int8_t cube_math_type, Problem* problem) {
  // dtypes, then the promotion of the two matrix operands.
  for (const Named* t : {&s.a, &s.b, &s.bias, &s.out}) {
    if (t->tensor != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckDtype(*t));
  }
  const aclDataType da = s.a.tensor->dtype, db = s.b.tensor->dtype;
  if (da != db && (da == ACL_BF16 || db == ACL_BF16)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "%s dtype %s and %s dtype %s cannot be promoted: BFLOAT16 combines only "
                       "with BFLOAT16",
                       s.a.name, DTypeName(da), s.b.name, DTypeName(db));
  }
  float beta = 0.0f, alpha = 1.0f;
  if (s.beta != nullptr) OPENACLNN_RETURN_IF_ERROR(ReadScalarAsFloat(*s.beta, "beta", &beta));
  if (s.alpha != nullptr) OPENACLNN_RETURN_IF_ERROR(ReadScalarAsFloat(*s.alpha, "alpha", &alpha));
  for (const Named* t : {&s.a, &s.b, &s.bias, &s.out}) {
    if (t->tensor != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckFormat(*t));
  }

  // Ranks and the reduce dim.
  OPENACLNN_RETURN_IF_ERROR(CheckRank(s.a, s.min_rank, s.max_rank));
  OPENACLNN_RETURN_IF_ERROR(CheckRank(s.b, s.min_rank, s.max_rank));
  const int ra = s.a.rank(), rb = s.b.rank();
  const int64_t k = s.a.dim(-1);
  const int kb_dim = rb == 1 ? 0 : rb - 2;
  if (s.b.dim(kb_dim) != k) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "%s dim %d (%lld) must equal %s dim %d (%lld): the reduce dims differ "
                       "(%s shape %s, %s shape %s)",
                       s.a.name, ra - 1, static_cast<long long>(k), s.b.name, kb_dim,
                       static_cast<long long>(s.b.dim(kb_dim)), s.a.name,
                       ShapeString(*s.a.tensor).c_str(), s.b.name,
                       ShapeString(*s.b.tensor).c_str());
  }
  const int64_t m = ra == 1 ? 1 : s.a.dim(-2);
  const int64_t n = rb == 1 ? 1 : s.b.dim(-1);

  // Batch dims, broadcast right-aligned.
  const int ba = std::max(ra - 2, 0), bb = std::max(rb - 2, 0);
  const int pr = std::max(ba, bb);
  std::vector<int64_t> batch(pr);
  for (int d = 0; d < pr; ++d) {
    const int ia = d - (pr - ba), ib = d - (pr - bb);
    const int64_t ea = ia >= 0 ? s.a.tensor->view_dims[ia] : 1;
    const int64_t eb = ib >= 0 ? s.b.tensor->view_dims[ib] : 1;
    if (ea != eb && ea != 1 && eb != 1) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                         "%s shape %s and %s shape %s: batch dims cannot broadcast (%lld vs %lld)",
                         s.a.name, ShapeString(*s.a.tensor).c_str(), s.b.name,
                         ShapeString(*s.b.tensor).c_str(), static_cast<long long>(ea),
                         static_cast<long long>(eb));
    }
    batch[d] = ea == 1 ? eb : ea;
  }
  // The inplace Baddbmm writes selfRef, whose batch is the product's: batch1 and batch2 may not
  // broadcast there (CANN rejects it).
  if (s.inplace && pr > 0 && s.a.dim(0) != s.b.dim(0)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "%s shape %s and %s shape %s: %s needs equal batch dims (%lld vs %lld), "
                       "got a broadcast",
                       s.a.name, ShapeString(*s.a.tensor).c_str(), s.b.name,
                       ShapeString(*s.b.tensor).c_str(), s.api, static_cast<long long>(s.a.dim(0)),
                       static_cast<long long>(s.b.dim(0)));
  }
  std::vector<int64_t> expected = batch;
  if (ra > 1) expected.push_back(m);
  if (rb > 1) expected.push_back(n);

  // self (the addend): broadcastable to the product's shape, or equal to it when it is also the
  // output.
  if (s.bias.tensor != nullptr) {
    const aclTensor& t = *s.bias.tensor;
    bool ok = t.view_dims.size() <= expected.size();
    for (size_t i = 0; ok && i < t.view_dims.size(); ++i) {
      const int64_t e = expected[expected.size() - t.view_dims.size() + i];
      ok = t.view_dims[i] == e || (!s.inplace && t.view_dims[i] == 1);
    }
    if (s.inplace && t.view_dims.size() != expected.size()) ok = false;
    if (!ok) {
      return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s shape %s %s %s @ %s shape %s", s.bias.name,
                         ShapeString(t).c_str(),
                         s.inplace ? "must equal the product" : "cannot broadcast to the product",
                         s.a.name, s.b.name, DimsString(expected).c_str());
    }
  }
  if (!s.inplace && s.out.tensor->view_dims != expected) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s shape %s must equal %s @ %s shape %s",
                       s.out.name, ShapeString(*s.out.tensor).c_str(), s.a.name, s.b.name,
                       DimsString(expected).c_str());
  }
  if (cube_math_type < 0 || cube_math_type > 4) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "cubeMathType must be 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), 2 "
                       "(USE_FP16), 3 (USE_HF32) or 4 (USE_FP32_ADD), got %d",
                       static_cast<int>(cube_math_type));
  }
  for (const Named* t : {&s.a, &s.b, &s.bias, &s.out}) {
    if (t->tensor != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*t->tensor, t->name));
  }

  Problem& p = *problem;
  p = Problem();
  p.api = s.api;
  p.batch_rank = pr;
  for (int d = 0; d < pr; ++d) p.batch_dims[d] = batch[d];
  p.m = m;
  p.n = n;
  p.k = k;
  FillOperand(*s.a.tensor, ra == 1 ? -1 : ra - 2, ra - 1, ba, batch, m, k, &p.a);
  FillOperand(*s.b.tensor, rb == 1 ? 0 : rb - 2, rb == 1 ? -1 : rb - 1, bb, batch, k, n, &p.b);
  const int ro = static_cast<int>(expected.size());
  FillOperand(*s.out.tensor, ra > 1 ? (rb > 1 ? ro - 2 : ro - 1) : -1, rb > 1 ? ro - 1 : -1, pr,
              batch, m, n, &p.c);
  p.a_slot = s.a_slot;
  p.b_slot = s.b_slot;
  p.alpha = alpha;
  p.beta = beta;
  // beta == 0 ignores self entirely (NaN and infinity included), as PyTorch does.
  p.has_bias = s.bias.tensor != nullptr && beta != 0.0f;
  if (p.has_bias) {
    const aclTensor& t = *s.bias.tensor;
    const int rt = static_cast<int>(t.view_dims.size());
    // Right-aligned with [batch..., m, n]; dims of 1 (and missing dims) broadcast.
    const int row_dim = rt >= 2 ? rt - 2 : -1, col_dim = rt >= 1 ? rt - 1 : -1;
    FillOperand(t, row_dim, col_dim, std::max(rt - 2, 0), batch, m, n, &p.bias);
    p.bias_slot = s.bias_slot;
  }
  p.cube_math_type = cube_math_type;
  p.promoted = PromoteFloatTypes(da, db);
  // A dot product of two 1-D operands ignores cubeMathType (CANN's page says so).
  p.rounding =
      ra == 1 && rb == 1 ? InputRounding::kNone : MatmulRounding(cube_math_type, p.promoted);
  p.round_result_to_half = p.rounding == InputRounding::kHalf;
  p.defer_stores = !CertainlyDisjoint(p.c.desc);
  // An input sharing bytes with out must be read whole before out is written; self as the very
  // view of out (the inplace forms) is read tile by tile before the tile is written, which is safe.
  for (const MatrixOperand* op : {&p.a, &p.b, &p.bias}) {
    const aclTensor* t = op == &p.a ? s.a.tensor : op == &p.b ? s.b.tensor : s.bias.tensor;
    if (op == &p.bias && !p.has_bias) continue;
    const void* out_data = s.out.tensor->data;
    if (op == &p.bias && t->data == out_data && SameView(op->desc, p.c.desc)) continue;
    if (SpansOverlap(op->desc, t->data, p.c.desc, out_data)) p.defer_stores = true;
  }
  Normalise(&p);
  return Status::Ok();
}

Status CheckNulls(std::initializer_list<std::pair<const void*, const char*>> params) {
  for (const auto& p : params) {
    if (p.first == nullptr) return NullptrError(p.second);
  }
  return Status::Ok();
}

Status CheckPlainProduct(const char* api, const aclTensor* self, const aclTensor* mat2,
                         const aclTensor* out, int8_t cube_math_type, int min_rank, int max_rank,
                         Problem* problem) {
  OPENACLNN_RETURN_IF_ERROR(CheckNulls({{self, "self"}, {mat2, "mat2"}, {out, "out"}}));
  Spec s;
  s.api = api;
  s.a = {self, "self"};
  s.b = {mat2, "mat2"};
  s.bias = {nullptr, "self"};
  s.out = {out, "out"};
  s.min_rank = min_rank;
  s.max_rank = max_rank;
  return Build(s, cube_math_type, problem);
}

Status CheckAddProduct(const char* api, const char* self_name, const char* a_name,
                       const char* b_name, const aclTensor* self, const aclTensor* a,
                       const aclTensor* b, const aclScalar* beta, const aclScalar* alpha,
                       const aclTensor* out, int8_t cube_math_type, bool inplace, int rank,
                       Problem* problem) {
  if (inplace) {
    OPENACLNN_RETURN_IF_ERROR(CheckNulls(
        {{self, self_name}, {a, a_name}, {b, b_name}, {beta, "beta"}, {alpha, "alpha"}}));
  } else {
    OPENACLNN_RETURN_IF_ERROR(CheckNulls({{self, self_name},
                                          {a, a_name},
                                          {b, b_name},
                                          {beta, "beta"},
                                          {alpha, "alpha"},
                                          {out, "out"}}));
  }
  Spec s;
  s.api = api;
  s.a = {a, a_name};
  s.b = {b, b_name};
  s.bias = {self, self_name};
  s.out = inplace ? Named{self, self_name} : Named{out, "out"};
  s.beta = beta;
  s.alpha = alpha;
  s.min_rank = s.max_rank = rank;
  s.a_slot = 1;
  s.b_slot = 2;
  s.bias_slot = 0;
  s.inplace = inplace;
  return Build(s, cube_math_type, problem);
}

}  // namespace

int64_t MatrixOperand::BatchCount(int batch_rank) const {
  int64_t count = 1;
  for (int d = 0; d < batch_rank; ++d) count *= batch_dims[d];
  return count;
}

int64_t MatrixOperand::OwnBatch(int batch_rank, const int64_t* problem_batch_dims,
                                int64_t index) const {
  int64_t own = 0, scale = 1;
  for (int d = batch_rank - 1; d >= 0; --d) {
    const int64_t i = index % problem_batch_dims[d];
    index /= problem_batch_dims[d];
    if (batch_dims[d] != 1) own += i * scale;
    scale *= batch_dims[d];
  }
  return own;
}

int64_t MatrixOperand::BatchOffset(int batch_rank, const int64_t* problem_batch_dims,
                                   int64_t index) const {
  int64_t offset = 0;
  for (int d = batch_rank - 1; d >= 0; --d) {
    offset += (index % problem_batch_dims[d]) * batch_strides[d];
    index /= problem_batch_dims[d];
  }
  return offset;
}

Status CheckMatmul(const aclTensor* self, const aclTensor* mat2, const aclTensor* out,
                   int8_t cube_math_type, Problem* problem) {
  return CheckPlainProduct("aclnnMatmul", self, mat2, out, cube_math_type, 1, 6, problem);
}

Status CheckMm(const aclTensor* self, const aclTensor* mat2, const aclTensor* out,
               int8_t cube_math_type, Problem* problem) {
  return CheckPlainProduct("aclnnMm", self, mat2, out, cube_math_type, 2, 2, problem);
}

Status CheckBatchMatMul(const aclTensor* self, const aclTensor* mat2, const aclTensor* out,
                        int8_t cube_math_type, Problem* problem) {
  return CheckPlainProduct("aclnnBatchMatMul", self, mat2, out, cube_math_type, 3, 3, problem);
}

Status CheckAddmm(const aclTensor* self, const aclTensor* mat1, const aclTensor* mat2,
                  const aclScalar* beta, const aclScalar* alpha, const aclTensor* out,
                  int8_t cube_math_type, bool inplace, Problem* problem) {
  return CheckAddProduct(inplace ? "aclnnInplaceAddmm" : "aclnnAddmm", inplace ? "selfRef" : "self",
                         "mat1", "mat2", self, mat1, mat2, beta, alpha, out, cube_math_type,
                         inplace, 2, problem);
}

Status CheckBaddbmm(const aclTensor* self, const aclTensor* batch1, const aclTensor* batch2,
                    const aclScalar* beta, const aclScalar* alpha, const aclTensor* out,
                    int8_t cube_math_type, bool inplace, Problem* problem) {
  return CheckAddProduct(inplace ? "aclnnInplaceBaddbmm" : "aclnnBaddbmm",
                         inplace ? "selfRef" : "self", "batch1", "batch2", self, batch1, batch2,
                         beta, alpha, out, cube_math_type, inplace, 3, problem);
}

std::string Problem::Describe() const {
  std::string batch_str = "[";
  for (int d = 0; d < batch_rank; ++d) {
    batch_str += (d ? ", " : "") + std::to_string(batch_dims[d]);
  }
  batch_str += "]";
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "%s batch=%s m=%lld n=%lld k=%lld A=%s B=%s C=%s%s%s alpha=%g beta=%g "
                "cubeMathType=%d compute=%s%s",
                api, batch_str.c_str(), static_cast<long long>(m), static_cast<long long>(n),
                static_cast<long long>(k), DTypeName(a.desc.dtype), DTypeName(b.desc.dtype),
                DTypeName(c.desc.dtype), has_bias ? " self=" : "",
                has_bias ? DTypeName(bias.desc.dtype) : "", static_cast<double>(alpha),
                static_cast<double>(beta), static_cast<int>(cube_math_type),
                rounding == InputRounding::kHf32   ? "HF32"
                : rounding == InputRounding::kHalf ? "FLOAT16"
                                                   : DTypeName(promoted),
                a.desc.IsContiguous() && b.desc.IsContiguous() ? "" : " strided-inputs");
  return buf;
}

}  // namespace openaclnn::matmul

#pragma once
// A validated call of the matmul family (Matmul, Mm, BatchMatMul, Addmm, Baddbmm and the inplace
// forms), normalised to one problem: a batch of products
//   C[b] = alpha * A[b] @ B[b] (+ beta * Bias[b])
// over up to kMaxBatchDims broadcast batch dims, with every operand read through its own strides.

#include <array>
#include <cstdint>
#include <string>

#include "acl/acl_base.h"
#include "api/tensor_desc.h"
#include "kernels/cpu/gemm_rows.h"

namespace openaclnn::matmul {

using cpu::InputRounding;

constexpr int kMaxBatchDims = 6;

// One matrix operand (A: m x k, B: k x n, Bias and C: m x n) as strides over the problem's dims.
struct MatrixOperand {
  TensorDesc desc;         // the user's view: dtype, storage extent, first element
  int64_t rows = 0;        // matrix dims as this operand sees them (Bias: m and n even when
  int64_t cols = 0;        //   broadcast, the strides are then 0)
  int64_t row_stride = 0;  // elements between matrix rows; 0 when broadcast or a single row
  int64_t col_stride = 0;  // elements between matrix columns; 0 when broadcast or a single column
  // Per problem batch dim: the stride (0 when broadcast) and the extent this operand has there
  // (the problem's extent, or 1 when broadcast).
  std::array<int64_t, kMaxBatchDims> batch_strides{};
  std::array<int64_t, kMaxBatchDims> batch_dims{};

  // Number of distinct matrices the operand holds (product of batch_dims).
  int64_t BatchCount(int batch_rank) const;
  // The operand's own batch index (row-major over batch_dims) of problem batch `index`.
  int64_t OwnBatch(int batch_rank, const int64_t* problem_batch_dims, int64_t index) const;
  // Element offset of matrix `index` (problem batch) from the first element.
  int64_t BatchOffset(int batch_rank, const int64_t* problem_batch_dims, int64_t index) const;
};

// Input slots in Bindings follow each API's parameter order.
struct Problem {
  const char* api = "";  // "aclnnMatmul", ... for messages and the verbose line
  int batch_rank = 0;    // batch dims left after dropping 1s and folding into m
  std::array<int64_t, kMaxBatchDims> batch_dims{};
  int64_t batch = 1;  // product of batch_dims
  int64_t m = 0, n = 0, k = 0;
  MatrixOperand a, b, c, bias;
  int a_slot = 0, b_slot = 1, bias_slot = -1;  // input slots; C is output slot 0
  bool has_bias = false;  // beta != 0 and a self tensor: C = alpha * A @ B + beta * Bias
  float alpha = 1.0f, beta = 0.0f;
  int8_t cube_math_type = 0;
  aclDataType promoted = ACL_FLOAT;  // promote(A, B), the compute dtype
  InputRounding rounding = InputRounding::kNone;
  bool round_result_to_half = false;  // cubeMathType 2: result rounded to FLOAT16, then cast
  // Out is written only after every product is computed, in row-major order: C's view may map two
  // indices to one address, or an input shares bytes with out (other than selfRef as out itself).
  bool defer_stores = false;

  std::string Describe() const;
};

}  // namespace openaclnn::matmul

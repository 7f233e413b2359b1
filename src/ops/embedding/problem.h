#pragma once
// The normalised problems of aclnnEmbedding (a row gather from a 2-D table) and
// aclnnEmbeddingDenseBackward (the table's gradient: grad rows summed per index), their checkers,
// float64 references and CPU implementations, and the index reading both share.

#include <cstdint>
#include <memory>
#include <string>

#include "aclnn/acl_meta.h"
#include "api/executor.h"
#include "api/status.h"
#include "api/tensor_desc.h"

namespace openaclnn::embedding {

enum class Kind { kForward, kDenseBackward };

// Bindings. Forward: inputs {weight, indices}; backward: inputs {grad, indices}; output {out}.
enum BindingIndex { kWeight = 0, kGrad = 0, kIndices = 1, kOut = 0 };

struct Problem {
  Kind kind = Kind::kForward;
  TensorDesc table;    // forward: weight [num_weights, dim]; backward: grad [..., dim]
  TensorDesc indices;  // any rank; num_indices elements, read in row-major order
  TensorDesc out;      // forward: indices' shape + [dim]; backward: [num_weights, dim]
  int64_t num_indices = 0;
  int64_t num_weights = 0;
  int64_t dim = 0;
  int64_t padding_idx = -1;  // backward: the row left zero; -1 when none
  bool scale_grad_by_freq = false;
  // "aclnnEmbedding weight=FLOAT[10, 3] indices=INT64[4] out=FLOAT[4, 3]"
  std::string Describe() const;
};

Status CheckForward(const aclTensor* weight, const aclTensor* indices, const aclTensor* out,
                    Problem* problem);
Status CheckDenseBackward(const aclTensor* grad, const aclTensor* indices, uint64_t num_weights,
                          uint64_t padding_idx, bool scale_grad_by_freq, const aclTensor* out,
                          Problem* problem);

// Reads the problem's indices in row-major order into dst[0, num_indices), each as an int64:
// integers as they are, BOOL as 0/1, floating values truncated toward zero. Any value outside
// [0, num_weights) (NaN and infinities included) fails with 161002 naming the element and its
// value (the stream adds the operator's name), before anything is written to an output.
Status ReadIndices(const Problem& p, const void* indices_base, int64_t* dst);

// Storage offset, in elements from the view's first element, of row `row` of `desc` seen as
// [rows, desc.dims[rank - 1]] (the leading dims flattened in row-major order).
inline int64_t RowOffset(const TensorDesc& desc, int64_t row) {
  return ElementOffset(desc.rank - 1, desc.dims.data(), desc.strides.data(), row);
}

const char* ReferenceDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace);

namespace cpu {
const char* FastDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace);
}  // namespace cpu

}  // namespace openaclnn::embedding

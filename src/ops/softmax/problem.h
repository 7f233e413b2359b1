#pragma once
// The normalised problem of the four softmax operators (aclnnSoftmax, aclnnLogSoftmax and their
// backward functions), built by phase 1 from the API arguments, and the row view every
// implementation walks: the tensors seen as rows along `dim`, one row per index of the other dims.

#include <cstdint>
#include <cstring>
#include <string>

#include "api/dtype.h"
#include "api/tensor_desc.h"

namespace openaclnn::softmax {

enum class Kind { kSoftmax, kLogSoftmax, kSoftmaxBackward, kLogSoftmaxBackward };

inline bool IsBackward(Kind k) {
  return k == Kind::kSoftmaxBackward || k == Kind::kLogSoftmaxBackward;
}
inline bool IsLog(Kind k) { return k == Kind::kLogSoftmax || k == Kind::kLogSoftmaxBackward; }

// Bindings. Forward: inputs {self}, outputs {out}. Backward: inputs {gradOutput, output}.
enum BindingIndex { kSelf = 0, kGradOutput = 0, kOutput = 1, kOut = 0 };

struct Problem {
  Kind kind = Kind::kSoftmax;
  TensorDesc x;  // self (forward) or gradOutput (backward)
  TensorDesc y;  // output (backward only)
  TensorDesc out;
  int dim = 0;  // normalised to [0, rank); 0 for a 0-d tensor
  // "aclnnSoftmax self=FLOAT[4, 8] dim=1 out=FLOAT[4, 8]"
  std::string Describe() const;
};

// The tensors as `rows` rows of `n` elements: row r has its first element at RowStart(set, r) and
// consecutive elements `step[set]` apart. Sets: 0 x, 1 y, 2 out.
struct RowView {
  int outer_rank = 0;
  int64_t outer_dims[kMaxRank] = {};
  int64_t outer_strides[3][kMaxRank] = {};
  int64_t step[3] = {0, 0, 0};
  int64_t n = 1;
  int64_t rows = 1;

  explicit RowView(const Problem& p) {
    const TensorDesc* sets[3] = {&p.x, &p.y, &p.out};
    const bool backward = IsBackward(p.kind);
    for (int d = 0; d < p.x.rank; ++d) {
      if (d == p.dim) {
        n = p.x.dims[d];
        for (int s = 0; s < 3; ++s) step[s] = (s == 1 && !backward) ? 0 : sets[s]->strides[d];
        continue;
      }
      outer_dims[outer_rank] = p.x.dims[d];
      for (int s = 0; s < 3; ++s) {
        outer_strides[s][outer_rank] = (s == 1 && !backward) ? 0 : sets[s]->strides[d];
      }
      rows *= p.x.dims[d];
      ++outer_rank;
    }
  }

  // Offsets (in elements, from each view's first element) of row r's first element.
  void RowStart(int64_t r, int64_t offsets[3]) const {
    offsets[0] = offsets[1] = offsets[2] = 0;
    for (int d = outer_rank - 1; d >= 0; --d) {
      const int64_t i = r % outer_dims[d];
      r /= outer_dims[d];
      for (int s = 0; s < 3; ++s) offsets[s] += i * outer_strides[s][d];
    }
  }
};

// One element of a FLOAT, FLOAT16, BFLOAT16 or DOUBLE buffer, read exactly into a double.
inline double LoadElement(const void* base, aclDataType dtype, int64_t i) {
  if (dtype == ACL_DOUBLE) return static_cast<const double*>(base)[i];
  return static_cast<double>(LoadAsFloat(base, dtype, i));
}

}  // namespace openaclnn::softmax

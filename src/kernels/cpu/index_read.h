#pragma once
// Index tensors (embedding indices, NLL loss targets) read into int64 and range-checked once, in
// fixed chunks on the thread pool, before an operator writes anything.

#include <cstdint>

#include "api/tensor_desc.h"

namespace openaclnn::cpu {

struct IndexCheck {
  int64_t bound = 0;         // valid indices lie in [0, bound)
  bool has_allowed = false;  // `allowed` is accepted too (NLL loss's ignoreIndex) ...
  int64_t allowed = 0;       // ... and stored as -1
};

// The first offending element, when there is one.
struct BadIndex {
  int64_t position = -1;  // row-major element number; -1: every index is valid
  double value = 0;       // its value (integers exactly up to 2^53)
};

// Reads the `desc.Numel()` elements of the view starting at `first` in row-major order into dst:
// integers as they are, BOOL as 0/1, floating values truncated toward zero (NaN and infinities
// are invalid). The work is split in fixed chunks of the problem (never of the thread count) and
// the reported element is the lowest invalid position, so the outcome is the same for any thread
// count. Supports INT64, INT32, INT16, INT8, UINT8, BOOL, FLOAT, FLOAT16, BFLOAT16 and DOUBLE.
// With dst null the elements are only checked.
BadIndex ReadIndices(const TensorDesc& desc, const void* first, const IndexCheck& check,
                     int64_t* dst);

}  // namespace openaclnn::cpu

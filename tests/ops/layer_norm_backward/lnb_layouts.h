#pragma once
// The views the LayerNorm backward suites (CPU and CUDA) lay their tensors out in, as
// test::TensorLayouts for a tensor whose dims [0, begin) are the leading dims and whose dims
// [begin, rank) form the normalised row. Header-only: tests/cuda includes it too.

#include <cstdint>
#include <vector>

#include "util/device_tensor.h"

namespace openaclnn::lnb_test {

enum class Layout {
  kContiguous,
  kTransposedLead,  // leading dims stored in reverse order, each row contiguous
  kPaddedRows,      // rows contiguous, row pitch N + 3 (misaligned rows)
  kPaddedAligned,   // rows contiguous, row pitch N + 8 (16-byte aligned rows when N % 8 == 0)
  kOffset,          // contiguous from element offset 7 (misaligned)
  kStrided,         // every element 2 apart from offset 1: rows are not contiguous
};

inline const char* LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kContiguous:
      return "contiguous";
    case Layout::kTransposedLead:
      return "transposed-lead";
    case Layout::kPaddedRows:
      return "padded3";
    case Layout::kPaddedAligned:
      return "padded8";
    case Layout::kOffset:
      return "offset";
    case Layout::kStrided:
      return "strided";
  }
  return "?";
}

// `layout` for a tensor of `shape` whose row starts at dim `begin`. A padded layout also leaves
// one pitch of spare elements after the last row.
inline test::TensorLayout RowLayout(Layout layout, const std::vector<int64_t>& shape, int begin) {
  using test::TensorLayout;
  const int rank = static_cast<int>(shape.size());
  const int row_dims = rank - begin;
  switch (layout) {
    case Layout::kContiguous:
      break;
    case Layout::kTransposedLead: {
      std::vector<int> order;
      for (int d = begin - 1; d >= 0; --d) order.push_back(d);
      for (int d = begin; d < rank; ++d) order.push_back(d);
      return TensorLayout::Permuted(order).Named(LayoutName(layout));
    }
    case Layout::kPaddedRows:
      return TensorLayout::PaddedRows(row_dims, 3).WithTail(3).Named(LayoutName(layout));
    case Layout::kPaddedAligned:
      return TensorLayout::PaddedRows(row_dims, 8).WithTail(8).Named(LayoutName(layout));
    case Layout::kOffset:
      return TensorLayout::Offset(7);
    case Layout::kStrided:
      return TensorLayout::Strided(2, 1);
  }
  return TensorLayout::Contiguous();
}

}  // namespace openaclnn::lnb_test

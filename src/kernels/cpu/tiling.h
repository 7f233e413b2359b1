#pragma once
// How the GEMM-based CPU plans cut their outputs into tasks. A TileGrid is addressed by a flat task
// index, so a plan holds a few integers however many tiles a (possibly huge) problem has.

#include <algorithm>
#include <cstdint>

namespace openaclnn::cpu {

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Splits n into about equal blocks of at most `max_block`, rounded up to multiples of 16.
inline int64_t BlockSize(int64_t n, int64_t max_block) {
  if (n <= max_block) return std::max<int64_t>(n, 1);
  const int64_t blocks = CeilDiv(n, max_block);
  return CeilDiv(CeilDiv(n, blocks), 16) * 16;
}

// Tile sizes for `layers` products of m x n outputs, each k deep: at most max_rows x max_cols
// (BlockSize), then the longer side halved (never below 64) while there are fewer than eight tiles
// and a halved tile would still hold at least 2^21 multiply-adds. A weight gradient such as
// x^T dy with a 256 x 256 output and a long reduction is then eight tasks rather than one that a
// single thread runs while the others wait. The sizes depend on the problem alone, never on the
// thread count, so the results do not either.
struct TileSteps {
  int64_t rows, cols;
};
inline TileSteps GemmTileSteps(int64_t layers, int64_t m, int64_t n, int64_t k, int64_t max_rows,
                               int64_t max_cols) {
  constexpr int64_t kMinTasks = 8;
  constexpr int64_t kMinSide = 64;
  constexpr int64_t kMinMacs = int64_t{1} << 21;
  TileSteps t{BlockSize(m, max_rows), BlockSize(n, max_cols)};
  if (layers <= 0 || m <= 0 || n <= 0) return t;
  auto halved = [](int64_t side) { return CeilDiv(CeilDiv(side, 2), 16) * 16; };
  while (layers * CeilDiv(m, t.rows) * CeilDiv(n, t.cols) < kMinTasks) {
    const bool rows_can = t.rows >= 2 * kMinSide, cols_can = t.cols >= 2 * kMinSide;
    if (!rows_can && !cols_can) break;
    TileSteps next = t;
    if (rows_can && (t.rows >= t.cols || !cols_can)) {
      next.rows = halved(t.rows);
    } else {
      next.cols = halved(t.cols);
    }
    if (next.rows * next.cols * std::max<int64_t>(k, 1) < kMinMacs) break;
    t = next;
  }
  return t;
}

// `layers` copies of a rows x cols matrix, each cut into row_step x col_step tiles (the last row
// and column of tiles may be smaller). Tiles are numbered layer by layer, row-major within a layer.
class TileGrid {
 public:
  struct Tile {
    int64_t layer;
    int64_t r0, r1;
    int64_t c0, c1;
  };

  TileGrid() = default;
  // The caller guarantees layers * rows * cols fits in int64 (each is a tensor's extent).
  TileGrid(int64_t layers, int64_t rows, int64_t cols, int64_t row_step, int64_t col_step)
      : rows_(rows), cols_(cols), row_step_(row_step), col_step_(col_step) {
    if (layers <= 0 || rows <= 0 || cols <= 0) return;
    row_tiles_ = CeilDiv(rows, row_step);
    col_tiles_ = CeilDiv(cols, col_step);
    count_ = layers * row_tiles_ * col_tiles_;
  }

  int64_t count() const { return count_; }

  Tile At(int64_t index) const {
    const int64_t per_layer = row_tiles_ * col_tiles_;
    const int64_t layer = index / per_layer, in_layer = index % per_layer;
    const int64_t r0 = (in_layer / col_tiles_) * row_step_;
    const int64_t c0 = (in_layer % col_tiles_) * col_step_;
    return {layer, r0, std::min(rows_, r0 + row_step_), c0, std::min(cols_, c0 + col_step_)};
  }

 private:
  int64_t rows_ = 0, cols_ = 0;
  int64_t row_step_ = 1, col_step_ = 1;
  int64_t row_tiles_ = 0, col_tiles_ = 0;
  int64_t count_ = 0;
};

}  // namespace openaclnn::cpu

#include "ops/matmul/cpu/gemm_plan.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <vector>

#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/aligned_vector.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/gemm_rows.h"
#include "kernels/cpu/gemv.h"
#include "kernels/cpu/pointwise_kernels.h"
#include "kernels/cpu/small_gemm.h"
#include "kernels/cpu/tile_gemm.h"
#include "kernels/cpu/tiling.h"

// C[b] = alpha * A[b] @ B[b] (+ beta * Bias[b]). The output of every batch is cut into fixed
// tiles (sizes from the problem alone); a tile is one task and one single-threaded GEMM call over
// the whole reduce dim, so no sum is split across tasks and the result does not depend on the
// thread count. A and B are read in place when their elements are the GEMM's dtype and one of
// their two matrix dims has unit stride (row-major, or column-major through the GEMM's transpose
// flag, as a weight.t() view is); other layouts, dtypes and the cubeMathType roundings go through
// packed workspace panels. C is written in place when it is a non-overlapping row-major FLOAT
// view; otherwise a tile lands in its task's fp32 scratch tile and is rounded once into out (an
// out whose elements alias gets a panel of all of C, stored serially at the end).
//
// Two GEMMs run the tiles: dnnl_sgemm (FLOAT) and oneDNN's matmul primitive, which adds Addmm's
// bias row and writes a FLOAT or BFLOAT16 out itself. The primitive takes every BFLOAT16 product
// on CPUs that multiply bfloat16 natively, and FLOAT products whose A is row-major dense (or a
// transposed x^T copied row-major, where that pays) and whose B is dense as well (a transposed
// weight.t(), or row-major up to kFullWidthCols columns) on AVX-512; for both, tiles are made dense
// (gemm.h): full-width row tiles, BFLOAT16 operands packed where they are not (attention's head
// views), and tiles narrower than out written through a dense scratch tile. A B that several row
// tiles share is laid out once per call in the blocked form oneDNN's brgemm kernels read (BlockB:
// BFLOAT16 on AMX, FLOAT on AVX-512), instead of by oneDNN in every tile. On AMX, BFLOAT16 tiles
// with such a B and a reduction longer than 2048 or a transposed A (read in place) run on the
// library's own tile-unit kernel instead (cpu::BlockedGemmBf16, through MatmulBlockedBTo).

namespace openaclnn::matmul {
namespace {

using cpu::CeilDiv;

// The GEMM's element type for an output or bias dtype (BFLOAT16, else FLOAT).
cpu::GemmElement GemmElementOf(aclDataType dtype) {
  return dtype == ACL_BF16 ? cpu::GemmElement::kBf16 : cpu::GemmElement::kFloat;
}

// Single-threaded oneDNN keeps 90-95 % of a core's peak from about 256 x 512 tiles (measured for
// ConvTbcBackward); 512 x 512 tiles pack less per product and ran the transformer shapes of
// bench_matmul (2048 x 1024..4096 x 1024..4096, 256 x 32000 x 1024) at 82-90 % of the FMA peak
// against 79-84 % with 256 rows (Zen 4, two interleaved runs, 2026-12-06), and still give a few
// dozen tasks on those shapes. Smaller products are cut finer by GemmTileSteps as before.
constexpr int64_t kTileRows = 512;
constexpr int64_t kTileCols = 512;
// The bfloat16 GEMM's per-call costs (its operands are re-laid out for the BF16 units) weigh more
// than sgemm's: 512 x 512 tiles cut the BF16 times of bench_matmul's transformer shapes by a third
// against 256 x 512 on the 2-core machine (QKV 25 -> 16 ms, MLP down 37 -> 25 ms).
constexpr int64_t kBf16TileRows = 512;
constexpr int64_t kBf16TileCols = 512;
// BF16 products of up to cpu::kFullWidthCols columns run in full-width row tiles of at most
// kBf16TileRows * kBf16TileCols elements (rows halved, not below kMinFullWidthRows, towards eight
// tasks), and a transposed A (x^T of a weight gradient) cut into row tiles is copied row-major
// first, so that oneDNN takes its brgemm kernels (gemm.h; not where own_trans_a_ reads it in
// place). Measured with bench_matmul, BF16, Zen 4, 2 threads, the binaries before and after in
// alternation (2026-12-06 14:20-14:27): 1024 x 1024 x 256 x W1 + b1 1.43-1.47 -> 1.30-1.35 ms,
// dy W2^T 1.56-2.69 -> 1.26-1.41 ms; 2048 x 1024 x 4096 44.4-46.8 -> 41.3-41.6 ms; every block
// row at or above PyTorch in both runs after (1.03x and up) against 0.54-0.98x for three of them
// before; the training example's BF16 step unchanged within its noise.
// FLOAT products go the same way where the primitive reads their operands in place (see the top
// of this file): bench_matmul, Zen 4, 2 threads, five runs of each binary in alternation
// (2026-12-06 17:19-17:38), medians before -> after: x W1 + b1 1024 x 1024 x 256 2.85 -> 2.65 ms,
// attention output 2048 x 1024 x 1024 22.1 -> 20.6 ms, MLP down 2048 x 1024 x 4096 91.5 -> 83.2
// ms; with the transposed weights of more than 1024 columns too (four runs each): QKV 72.7 ->
// 66.8 ms, MLP up 92.7 -> 88.2 ms, LM head 256 x 32000 x 1024 92.9 -> 83.2 ms.
constexpr int64_t kMinFullWidthRows = 64;
constexpr int64_t kMinFullWidthTasks = 8;
// BFLOAT16 row tiles shorter than this keep B as it is on AMX (BlockB): the weight gradients'
// 64-row tiles (256 x 256 x 1024, x^T dy) ran 0.119-0.124 ms with B blocked against 0.110-0.115
// without. FLOAT tiles block B at any height (64-row tiles gained the most: gemm.h).
constexpr int64_t kMinBlockedBRows = 128;
// FLOAT products with a transposed A take the primitive (A copied row-major) only where their
// full-width row tiles have at least this many rows (measured: see the constructor).
constexpr int64_t kMinTransposedARows = 128;
// A BFLOAT16 product whose full-width row tiles would come out shorter than kMinBlockedBRows
// (few rows for the tasks wanted) and that is two column tiles wide (the weight gradient
// dW1 = x^T dh, 256 x 1024 x 1024) is cut into kBf16TileCols-column tiles of up to this many rows
// instead: each tile then lays out its half of B, where each of four 64-row tiles laid out all of
// it. bench_matmul BF16 `dW1 = x^T dh`, Intel Xeon with AMX, 2 threads, three runs each in
// alternation (2026-12-07): 0.495-0.508 ms -> 0.351-0.360 ms; 128-row tiles of 512 columns (four
// tiles, B blocked once by BlockB) ran 0.460-0.477 ms.
constexpr int64_t kWideTileRows = 256;

cpu::TileSteps FullWidthTileSteps(const Problem& p, bool bf16) {
  cpu::TileSteps steps = cpu::GemmTileSteps(p.batch, p.m, p.n, p.k, kBf16TileRows, kBf16TileCols);
  if (steps.cols >= p.n || p.n > cpu::kFullWidthCols) return steps;
  steps.cols = p.n;
  const int64_t most_rows = (kBf16TileRows * kBf16TileCols / p.n) / 16 * 16;
  steps.rows = std::max(kMinFullWidthRows, std::min(steps.rows, most_rows));
  while (p.batch * CeilDiv(p.m, steps.rows) < kMinFullWidthTasks &&
         steps.rows >= 2 * kMinFullWidthRows) {
    steps.rows = CeilDiv(steps.rows / 2, 16) * 16;
  }
  if (bf16 && steps.rows < kMinBlockedBRows && p.n >= 2 * kBf16TileCols) {
    steps.cols = kBf16TileCols;
    steps.rows = std::min(kWideTileRows, p.m);
  }
  return steps;
}
// BFLOAT16 products wider than cpu::kFullWidthCols, up to this many columns, whose B is laid out
// once (BlockB) run in full-width row tiles after all: every tile reads the one blocked B, so
// nothing is packed again, and out is written in place rather than through a scratch tile and a
// copy (which took about a seventh of the 512 x 512 tiles' time, perf). The tiles keep A's rows
// within kWideTileABytes (256 rows at k = 1024), at least kMinBlockedBRows. bench_matmul BF16,
// Intel Xeon with AMX, 2 threads, three runs of each binary in alternation (2026-12-07): QKV
// (2048 x 3072 x 1024) 5.28-5.43 -> 4.70-4.94 ms, MLP up (2048 x 4096 x 1024) 6.98-7.19 ->
// 6.53-6.82 ms; with 128-row tiles 4.97-5.01 and 6.85-6.95, with 512 5.14-5.21 and 6.86-6.92 ms
// (FLOAT in full-width tiles moved by 1 %, so it keeps 512 x 512).
constexpr int64_t kMaxWideTileCols = 4096;
constexpr int64_t kWideTileABytes = int64_t{1} << 19;
// Packing tasks: about this many elements each.
constexpr int64_t kChunkElements = int64_t{1} << 16;
// A blocked B is laid out by at least this many tasks where it has as many column blocks: a small
// B in one task kept the other threads waiting (bench_matmul BF16 `dx = dy W^T`, 1024 x 256 x 256,
// B 256 x 256 in one task: 0.069-0.077 ms; in four: 0.062 ms, Intel Xeon with AMX, 2 threads).
constexpr int64_t kMinBlockedBTasks = 4;
// A FLOAT B read transposed (torch_npu's weight.t(), k^T in attention scores) is copied into
// op(B)'s own row-major layout when that pays: single-threaded dnnl_sgemm packs a transposed B
// more slowly, per call, and a plan's row tiles each pay that again. Measured on a Zen 4 core,
// transposed against plain: 128 x 256 x 1024 tiles 86 against 106 GFLOP/s, 256 x 256 x 1024 93
// against 105, 64 x 64 x 64 63 against 97, but 256 x 512 x 256 99 against 105, which the copy's
// pass over B eats up (bench_matmul's 1024 x 1024 x 256 dh = dy W2^T ran no faster). So: long
// reductions (k >= kMinTransposedCopyDepth) or small matrices (k x n <= kSmallTransposedCopy),
// and at most kMaxTransposedCopy elements in all (larger weights are read in place rather than
// cost that much workspace).
constexpr int64_t kMinTransposedCopyDepth = 512;
constexpr int64_t kSmallTransposedCopy = int64_t{1} << 16;
constexpr int64_t kMaxTransposedCopy = int64_t{1} << 21;

// How the GEMM sees one of A and B: the user's tensor or a packed panel, row-major or transposed.
struct GemmOperand {
  bool direct = false;
  bool trans = false;            // the stored matrix is op(X)^T, row-major (X column-major)
  bool transposed_copy = false;  // packed: op(X) row-major, copied from a stored op(X)^T
  int64_t ld = 1;                // row stride of the stored matrix
  size_t panel = 0;              // workspace offset when packed
  int64_t panel_rows = 0, panel_cols = 0;  // stored matrix when packed
  int64_t own_batches = 0;                 // matrices in the panel
  bool in_tile = false;  // packed by each tile into a thread-local buffer rather than a panel
  // B only: laid out once in the panel in the blocked form of cpu::PackBlockedB, read in
  // place from the source, transposed or not, with row stride source_ld; with per_thread, by
  // each thread into its own buffer instead (cpu::kMaxPerThreadBlockedBBytes).
  bool blocked = false;
  bool per_thread = false;
  bool source_trans = false;
  int64_t source_ld = 0;
  // Element steps of one matrix row / column of X in the stored matrix.
  int64_t RowStep() const { return trans ? 1 : ld; }
  int64_t ColStep() const { return trans ? ld : 1; }
};

// Whether every full tile reads operand w (A: 0, B: 1) as a dense matrix: each row stride equal
// to the tile's own width, a transposed A only when the tile has all of A's rows.
bool Bf16DenseOperand(int w, const GemmOperand& g, const Problem& p, const cpu::TileSteps& steps) {
  if (w == 0) return g.trans ? steps.rows >= p.m && g.ld == p.m : g.ld == p.k;
  return g.trans ? g.ld == p.k : steps.cols >= p.n && g.ld == p.n;
}

// Whether a rows x cols matrix with these strides is one the GEMM reads as it is; sets trans and
// ld. Single rows and columns take any stride (it is never used).
bool DirectLayout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool* trans, int64_t* ld) {
  if (rs < 0 || cs < 0) return false;
  if (cols == 1 || cs == 1) {
    const int64_t l = rows == 1 ? std::max<int64_t>(cols, 1) : rs;
    if (rows > 1 && l < std::max<int64_t>(cols, 1)) return false;
    *trans = false;
    *ld = std::max<int64_t>(l, 1);
    return true;
  }
  if (rows == 1 || rs == 1) {
    const int64_t l = cols == 1 ? std::max<int64_t>(rows, 1) : cs;
    if (cols > 1 && l < std::max<int64_t>(rows, 1)) return false;
    *trans = true;
    *ld = std::max<int64_t>(l, 1);
    return true;
  }
  return false;
}

// Element offset of an operand's own batch `own` (row-major over its batch dims).
int64_t OwnOffset(const MatrixOperand& op, int batch_rank, int64_t own) {
  int64_t offset = 0;
  for (int d = batch_rank - 1; d >= 0; --d) {
    offset += (own % op.batch_dims[d]) * op.batch_strides[d];
    own /= op.batch_dims[d];
  }
  return offset;
}

struct Chunk {
  int which;       // 0: A, 1: B
  int64_t r0, r1;  // rows of the panel over all its matrices (own batch * panel_rows + row)
};

class GemmPlan : public Plan {
 public:
  GemmPlan(const Problem& p, WorkspaceBooking* ws) : p_(p), target_(cpu::PlanningTarget()) {
    const bool plain = p.rounding == InputRounding::kNone;
    bf16_ = plain && p.a.desc.dtype == ACL_BF16 && p.b.desc.dtype == ACL_BF16 && p.alpha == 1.0f &&
            p.k > 0 && cpu::HasFastBf16Gemm() && target_.native_bf16;
    // The matmul primitive writes out in its own dtype (FLOAT, or BFLOAT16 rounded once) and adds
    // a row-broadcast bias itself (Addmm's `bias + x @ w`), so no tile goes through a scratch
    // tile and a second pass.
    const MatrixOperand& bias = p.bias;
    const bool bias_row =
        !p.has_bias ||
        (p.beta == 1.0f && bias.row_stride == 0 && (bias.col_stride == 1 || p.n == 1) &&
         (bias.desc.dtype == ACL_FLOAT || bias.desc.dtype == ACL_BF16));
    bool c_trans = false;
    int64_t ldc = 0;
    const bool primitive_out =
        p.m > 1 && !p.defer_stores && !p.round_result_to_half && bias_row &&
        (p.c.desc.dtype == ACL_FLOAT || p.c.desc.dtype == ACL_BF16) &&
        DirectLayout(p.m, p.n, p.c.row_stride, p.c.col_stride, &c_trans, &ldc) && !c_trans;
    // FLOAT products whose A and B the primitive reads as dense tiles in place also go through
    // it: A row-major, B transposed (weight.t(), any width) or row-major with at most
    // cpu::kFullWidthCols columns (full-width tiles, FullWidthTileSteps). A transposed A (x^T of
    // a weight gradient) is copied row-major first where the full-width tiles are tall enough
    // (kMinTransposedARows) for the copy to pay: bench_matmul FLOAT, Intel Xeon with AMX, 2
    // threads, three runs each in alternation (2026-12-07): dW2 = h^T dy (1024 x 256 x 1024,
    // 128-row tiles) 1.80-1.81 -> 1.51-1.64 ms, but dW = x^T dy (256 x 256 x 1024, 64-row tiles)
    // 0.38 -> 0.42-0.48 and dW1 = x^T dh (256 x 1024 x 1024) 1.60-1.63 -> 1.73-1.86, which keep
    // sgemm.
    bool a_trans = false, b_trans = false;
    int64_t lda = 0, ldb = 0;
    bool f32_primitive =
        !bf16_ && plain && primitive_out && p.alpha == 1.0f && p.k > 0 && cpu::HasBrgemmFloat() &&
        p.c.desc.dtype == ACL_FLOAT && p.a.desc.dtype == ACL_FLOAT && p.b.desc.dtype == ACL_FLOAT &&
        DirectLayout(p.a.rows, p.a.cols, p.a.row_stride, p.a.col_stride, &a_trans, &lda) &&
        (a_trans ? lda == p.m && p.a.BatchCount(p.batch_rank) * p.m * p.k <= kMaxTransposedCopy
                 : lda == p.k) &&
        DirectLayout(p.b.rows, p.b.cols, p.b.row_stride, p.b.col_stride, &b_trans, &ldb) &&
        (b_trans ? ldb == p.k : p.n <= cpu::kFullWidthCols && ldb == p.n);
    if (f32_primitive && a_trans) {
      const cpu::TileSteps full_width = FullWidthTileSteps(p, false);
      f32_primitive = full_width.rows >= kMinTransposedARows && full_width.rows < p.m;
    }
    cpu::TileSteps steps = bf16_ || f32_primitive
                               ? FullWidthTileSteps(p, bf16_)
                               : cpu::GemmTileSteps(p.batch, p.m, p.n, p.k, kTileRows, kTileCols);
    // Small FLOAT products (attention's per-head matrices) skip the BLAS and its per-call
    // packing; that kernel reads a transposed B itself.
    small_ = !bf16_ && p.k > 0 && cpu::SmallGemmRuns(target_) &&
             cpu::SmallGemmPays(steps.rows, steps.cols, p.k);
    // Small BFLOAT16 products (attention's per-head matrices) go to the tile unit straight from
    // their operands (cpu::TileGemmBf16) rather than through oneDNN's set-up and dense copies.
    tile_ = bf16_ && cpu::TileGemmRuns() && TileGemmTakes(p, steps);
    primitive_out_ = !tile_ && ((bf16_ && primitive_out) || (f32_primitive && !small_));
    // BFLOAT16 tiles with a transposed A (x^T of a weight gradient) and a B laid out once run on
    // cpu::BlockedGemmBf16, which lays A's columns out as tile registers itself: x^T is read in
    // place rather than copied row-major into the workspace first. bench_matmul BF16 `dW2 =
    // h^T dy` (1024 x 256 x 1024, 128-row tiles), Intel Xeon with AMX, 2 threads, three runs each
    // in alternation (2026-12-07): 0.391-0.418 -> 0.338-0.339 ms.
    // (B must stay as it is for BlockB: read in place and dense, see the operand loop.)
    GemmOperand a_in_place, b_in_place;
    own_trans_a_ = bf16_ && primitive_out_ && cpu::TileGemmRuns() && SharedB(steps) &&
                   p.a.rows > 1 && p.a.cols > 1 &&
                   DirectLayout(p.a.rows, p.a.cols, p.a.row_stride, p.a.col_stride,
                                &a_in_place.trans, &a_in_place.ld) &&
                   a_in_place.trans &&
                   DirectLayout(p.b.rows, p.b.cols, p.b.row_stride, p.b.col_stride,
                                &b_in_place.trans, &b_in_place.ld) &&
                   Bf16DenseOperand(1, b_in_place, p, steps);
    // A BFLOAT16 out with unit column steps and no bias is written by the kernel itself.
    tile_to_bf16_ = tile_ && primitive_out && p.c.desc.dtype == ACL_BF16 && !p.has_bias;
    if (tile_to_bf16_) ldc_ = ldc;
    if (primitive_out_) ldc_ = ldc;
    const aclDataType operand_dtype = bf16_ ? ACL_BF16 : ACL_FLOAT;
    const size_t operand_bytes = bf16_ ? sizeof(uint16_t) : sizeof(float);
    const MatrixOperand* ops[2] = {&p.a, &p.b};
    for (int w = 0; w < 2; ++w) {
      const MatrixOperand& x = *ops[w];
      GemmOperand& g = operand_[w];
      g.direct = plain && x.desc.dtype == operand_dtype &&
                 DirectLayout(x.rows, x.cols, x.row_stride, x.col_stride, &g.trans, &g.ld);
      const bool fits = x.BatchCount(p.batch_rank) * x.rows * x.cols <= kMaxTransposedCopy;
      g.transposed_copy = g.direct && g.trans && x.rows > 1 && x.cols > 1 && fits &&
                          (bf16_ || primitive_out_ ? w == 0 && steps.rows < p.m
                                                   : w == 1 && !small_ && p.m > 1 &&
                                                         (x.rows >= kMinTransposedCopyDepth ||
                                                          x.rows * x.cols <= kSmallTransposedCopy));
      // The bfloat16 GEMM also packs an operand whose tiles oneDNN would not see as dense (see
      // kFullWidthCols): attention's head views, rows of a wider tensor. With their out written
      // through the dense scratch tile, the training example's per-head products (64 x 64 x 64,
      // 64 heads) ran in 0.137 ms (scores) and 0.140 ms (probs @ v) against 0.175 and 0.166
      // before (bench_matmul, Zen 4, 2 threads, medians of five alternating runs, 2026-12-06).
      const bool repack = bf16_ && g.direct && !g.transposed_copy && fits && x.rows > 1 &&
                          x.cols > 1 && !Bf16DenseOperand(w, g, p, steps) &&
                          (w == 0 || g.trans || steps.cols >= p.n);
      if (g.direct && (tile_ || (w == 0 && own_trans_a_) || (!g.transposed_copy && !repack))) {
        continue;
      }
      g.direct = false;
      // Packed in the orientation the source is read along unit stride, except for the
      // transposed copy.
      g.trans =
          !g.transposed_copy && x.row_stride == 1 && x.col_stride != 1 && x.rows > 1 && x.cols > 1;
      g.panel_rows = g.trans ? x.cols : x.rows;
      g.panel_cols = g.trans ? x.rows : x.cols;
      g.ld = std::max<int64_t>(g.panel_cols, 1);
      g.own_batches = x.BatchCount(p.batch_rank);
      // A repacked operand whose matrices are each read by one tile only (attention's per-head
      // products) is packed by that tile into its thread's buffer, while it is cache-hot.
      g.in_tile = repack && primitive_out_ && steps.rows >= p.m && steps.cols >= p.n;
      if (g.in_tile) continue;
      const int64_t elements = g.own_batches * g.panel_rows * g.panel_cols;
      g.panel = ws->Book(operand_bytes * static_cast<size_t>(std::max<int64_t>(elements, 1)));
      const int64_t total_rows = g.own_batches * g.panel_rows;
      const int64_t step = std::max<int64_t>(1, kChunkElements / std::max<int64_t>(g.ld, 1));
      if (g.panel_cols > 0) {
        for (int64_t r = 0; r < total_rows; r += step) {
          chunks_.push_back({w, r, std::min(total_rows, r + step)});
        }
      }
    }
    if (primitive_out_ && operand_[1].direct &&
        (bf16_ ? cpu::HasAmxBf16() : cpu::HasBrgemmFloat())) {
      const cpu::TileSteps wide = WideTileSteps(steps);
      if (wide.cols != steps.cols) {
        BlockB(wide, ws);
        if (operand_[1].blocked) steps = wide;
      }
      if (!operand_[1].blocked) BlockB(steps, ws);
    }
    c_direct_ = !primitive_out_ && p.c.desc.dtype == ACL_FLOAT && !p.round_result_to_half &&
                !p.defer_stores &&
                DirectLayout(p.m, p.n, p.c.row_stride, p.c.col_stride, &c_trans, &ldc) && !c_trans;
    if (primitive_out_) {
      // Written by the matmul primitive itself, see RunPrimitiveTile.
    } else if (c_direct_) {
      ldc_ = ldc;
    } else if (p.defer_stores) {
      // The stores into an aliasing out wait until every tile is done: a panel of all of C.
      ldc_ = std::max<int64_t>(p.n, 1);
      c_panel_ =
          ws->Book(sizeof(float) * static_cast<size_t>(std::max<int64_t>(p.batch * p.m * p.n, 1)));
    }
    // Otherwise each tile lands in its task's scratch tile (cache-resident) and is rounded into
    // out right away.
    tiles_ = cpu::TileGrid(p.batch, p.m, p.n, steps.rows, steps.cols);
  }

  Status Run(const Bindings& bindings, void* workspace) const override {
    static std::atomic<uint64_t> calls{0};
    RunState s;
    s.call = calls.fetch_add(1, std::memory_order_relaxed) + 1;
    s.ws = workspace;
    s.a_src = p_.a.desc.First(static_cast<const void*>(bindings.inputs[p_.a_slot]));
    s.b_src = p_.b.desc.First(static_cast<const void*>(bindings.inputs[p_.b_slot]));
    s.bias_src = p_.has_bias
                     ? p_.bias.desc.First(static_cast<const void*>(bindings.inputs[p_.bias_slot]))
                     : nullptr;
    s.c_dst = p_.c.desc.First(bindings.outputs[0]);
    const void* srcs[2] = {s.a_src, s.b_src};
    for (int w = 0; w < 2; ++w) {
      s.x[w] = operand_[w].direct ? srcs[w]
               : operand_[w].in_tile || operand_[w].per_thread
                   ? nullptr
                   : WorkspaceBooking::At<unsigned char>(workspace, operand_[w].panel);
    }
    s.c = c_direct_         ? static_cast<float*>(s.c_dst)
          : p_.defer_stores ? WorkspaceBooking::At<float>(workspace, c_panel_)
                            : nullptr;

    cpu::ParallelFor(static_cast<int64_t>(chunks_.size()), [&](int64_t i) {
      const Chunk& ch = chunks_[i];
      const GemmOperand& g = operand_[ch.which];
      if (g.blocked && bf16_) {
        cpu::PackBlockedB(target_, g.source_trans, p_.k, p_.n,
                          static_cast<const uint16_t*>(s.b_src), g.source_ld, ch.r0, ch.r1,
                          static_cast<uint16_t*>(const_cast<void*>(s.x[ch.which])));
        return;
      }
      if (g.blocked) {
        cpu::PackBlockedB(target_, g.source_trans, p_.k, p_.n, static_cast<const float*>(s.b_src),
                          g.source_ld, ch.r0, ch.r1,
                          static_cast<float*>(const_cast<void*>(s.x[ch.which])));
        return;
      }
      Pack(ch.which, ch.r0, ch.r1, s,
           static_cast<unsigned char*>(const_cast<void*>(s.x[ch.which])) +
               ch.r0 * operand_[ch.which].ld * static_cast<int64_t>(esize()));
    });
    std::mutex error_mutex;
    Status first_error;
    cpu::ParallelFor(tiles_.count(), [&](int64_t i) {
      Status st = RunTile(tiles_.At(i), s);
      if (!st.ok()) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (first_error.ok()) first_error = std::move(st);
      }
    });
    OPENACLNN_RETURN_IF_ERROR(first_error);
    if (!c_direct_ && p_.defer_stores) {
      // Stores into an overlapping view run serially in row-major order: the last write is
      // always the same one.
      for (int64_t l = 0; l < p_.batch; ++l) Store(s, l, 0, p_.m, 0, p_.n, OutMatrix(s, l), ldc_);
    }
    return Status::Ok();
  }

  const char* target_name() const override { return target_.name; }

 private:
  // Whether the plan's tiles share a B that BlockB may lay out once: one B matrix, at least two
  // row tiles (BFLOAT16: of kMinBlockedBRows rows), column tiles on its 64-column blocks.
  bool SharedB(const cpu::TileSteps& steps) const {
    const Problem& p = p_;
    return p.b.BatchCount(p.batch_rank) == 1 && p.batch * CeilDiv(p.m, steps.rows) >= 2 &&
           (!bf16_ || steps.rows >= kMinBlockedBRows) &&
           (steps.cols >= p.n || steps.cols % cpu::kBlockedBCols == 0);
  }

  // Full-width row tiles for a BFLOAT16 product wider than cpu::kFullWidthCols (see
  // kMaxWideTileCols), or `steps` itself where they do not apply: A read densely along its rows,
  // the tiles no taller than kWideTileABytes of A allows, halved towards kMinFullWidthTasks tiles,
  // and tall enough for BlockB.
  cpu::TileSteps WideTileSteps(const cpu::TileSteps& steps) const {
    const Problem& p = p_;
    const GemmOperand& ga = operand_[0];
    if (!bf16_ || own_trans_a_ || steps.cols >= p.n || p.n <= cpu::kFullWidthCols ||
        p.n > kMaxWideTileCols || ga.trans || ga.ld != p.k) {
      return steps;
    }
    int64_t rows = kWideTileABytes / (p.k * static_cast<int64_t>(sizeof(uint16_t))) / 16 * 16;
    rows = std::min(rows, CeilDiv(p.m, 16) * 16);
    while (p.batch * CeilDiv(p.m, rows) < kMinFullWidthTasks && rows >= 2 * kMinBlockedBRows) {
      rows = CeilDiv(rows / 2, 16) * 16;
    }
    if (rows < kMinBlockedBRows) return steps;
    return {rows, p.n};
  }

  // A B read in place by several row tiles (a weight shared by every row tile of x @ W, or by
  // every batch of a broadcast product) is laid out once per call in the blocked form of oneDNN's
  // brgemm kernels, by packing tasks before the tiles, rather than by oneDNN inside every tile
  // (cpu::PackBlockedB). Only where oneDNN runs the plan's every tile shape that way (BFLOAT16:
  // on AMX; FLOAT: on AVX-512).
  void BlockB(const cpu::TileSteps& steps, WorkspaceBooking* ws) {
    const Problem& p = p_;
    GemmOperand& g = operand_[1];
    if (!SharedB(steps)) return;
    // Every tile shape (full tiles, the last row and the last column of tiles) must run so (the
    // tiles of own_trans_a_ run on cpu::BlockedGemmBf16, which takes them all).
    const GemmOperand& ga = operand_[0];
    const int64_t row_sizes[2] = {std::min(steps.rows, p.m), p.m % steps.rows};
    const int64_t col_sizes[2] = {std::min(steps.cols, p.n), p.n % steps.cols};
    for (const int64_t rows : row_sizes) {
      for (const int64_t cols : col_sizes) {
        if (rows == 0 || cols == 0 || own_trans_a_) continue;
        const bool a_dense = ga.trans ? ga.ld == rows : ga.ld == p.k;
        cpu::GemmOutput probe;
        probe.ldc = ldc_ == cols || !a_dense ? ldc_ : cols;  // as RunPrimitiveTile writes it
        probe.c_type = GemmElementOf(p.c.desc.dtype);
        if (p.has_bias) {
          probe.bias = &probe;  // only its presence counts
          probe.bias_type = GemmElementOf(p.bias.desc.dtype);
        }
        if (!cpu::BlockedBRuns(ab_type(), ga.trans, rows, cols, p.k, ga.ld, probe)) return;
      }
    }
    g.direct = false;
    g.blocked = true;
    g.source_trans = g.trans;
    g.source_ld = g.ld;
    const int64_t bytes =
        static_cast<int64_t>(esize()) * cpu::BlockedBElements(ab_type(), p.k, p.n);
    // bench_matmul BF16, Intel Xeon with AMX, 2 threads, the two ways in alternation, two runs
    // each (2026-12-07): dx = dy W^T 0.061-0.063 -> 0.054 ms, dh = dy W2^T 0.232-0.239 ->
    // 0.192-0.193, x W + b 0.059-0.061 -> 0.051-0.053, x W1 + b1 0.224-0.228 -> 0.195, h W2 + b2
    // 0.207-0.225 -> 0.183-0.187, dx = dh W1^T 0.211-0.212 -> 0.181-0.186, dW2 = h^T dy
    // 0.302-0.311 -> 0.277 (B 128-512 KiB); but dW1 = x^T dh (2 MiB) 0.284-0.293 -> 0.288-0.308,
    // attention output 1.62 -> 1.67, QKV 4.71-4.76 -> 4.95-4.97 ms (6 MiB).
    g.per_thread = bf16_ && bytes <= cpu::kMaxPerThreadBlockedBBytes;
    if (g.per_thread) return;
    g.panel = ws->Book(static_cast<size_t>(bytes));
    const int64_t blocks = CeilDiv(p.n, cpu::kBlockedBCols);
    const int64_t block_elements = cpu::BlockedBDepth(ab_type(), p.k) * cpu::kBlockedBCols;
    const int64_t step = std::max<int64_t>(
        1, std::min(kChunkElements / block_elements, CeilDiv(blocks, kMinBlockedBTasks)));
    for (int64_t b0 = 0; b0 < blocks; b0 += step) {
      chunks_.push_back({1, b0, std::min(blocks, b0 + step)});
    }
  }

  struct RunState {
    uint64_t call;  // distinct for every Run in the process (per-thread blocked B)
    void* ws;
    const void *a_src, *b_src, *bias_src;
    void* c_dst;
    const void* x[2];  // what the GEMM reads for A and B
    float* c;          // what the GEMM writes
  };

  // Converts panel rows [r0, r1) of A (which == 0) or B (dtype, cubeMathType rounding) into
  // `to`, where panel row r0 goes.
  void Pack(int which, int64_t r0, int64_t r1, const RunState& s, unsigned char* to) const {
    const MatrixOperand& x = which == 0 ? p_.a : p_.b;
    const GemmOperand& g = operand_[which];
    if (g.transposed_copy) {
      // A source with unit row stride: op(X)(q + i, j) at src[j * col_stride + i].
      const int64_t es = static_cast<int64_t>(esize());
      for (int64_t r = r0; r < r1;) {
        const int64_t own = r / g.panel_rows, q = r % g.panel_rows;
        const int64_t rows = std::min(r1 - r, g.panel_rows - q);
        const unsigned char* src =
            static_cast<const unsigned char*>(which == 0 ? s.a_src : s.b_src) +
            (OwnOffset(x, p_.batch_rank, own) + q) * es;
        unsigned char* dst = to + (r - r0) * g.ld * es;
        cpu::TransposeTile(target_, src, x.col_stride, dst, g.ld, rows, g.panel_cols, es, false,
                           nullptr, 0);
        r += rows;
      }
      return;
    }
    const int64_t esize = static_cast<int64_t>(DTypeSize(x.desc.dtype));
    // Along a stored row the source steps by the row stride (transposed) or the column stride.
    const int64_t along = g.trans ? x.row_stride : x.col_stride;
    const int64_t across = g.trans ? x.col_stride : x.row_stride;
    // A matrix at a time: its offset once, then its rows (the divisions of a per-row offset were a
    // visible share of attention's per-head products: bench_matmul BF16 `scores, head views`
    // 0.165 -> 0.111 ms, `probs @ v, head views` 0.169 -> 0.150, medians of five alternating runs
    // beside a running test suite, Intel Xeon with AMX, 2026-12-07).
    for (int64_t r = r0; r < r1;) {
      const int64_t own = r / g.panel_rows, q0 = r % g.panel_rows;
      const int64_t rows = std::min(r1 - r, g.panel_rows - q0);
      const unsigned char* matrix =
          static_cast<const unsigned char*>(which == 0 ? s.a_src : s.b_src) +
          OwnOffset(x, p_.batch_rank, own) * esize;
      for (int64_t q = q0; q < q0 + rows; ++q, ++r) {
        const unsigned char* src = matrix + q * across * esize;
        if (bf16_) {
          uint16_t* dst = reinterpret_cast<uint16_t*>(to) + (r - r0) * g.ld;
          const uint16_t* from = reinterpret_cast<const uint16_t*>(src);
          if (along == 1) {
            std::memcpy(dst, from, sizeof(uint16_t) * g.panel_cols);
          } else {
            for (int64_t i = 0; i < g.panel_cols; ++i) dst[i] = from[i * along];
          }
          continue;
        }
        float* dst = reinterpret_cast<float*>(to) + (r - r0) * g.ld;
        cpu::LoadRow(target_, src, x.desc.dtype, along, g.panel_cols, dst);
        cpu::RoundRow(target_, p_.rounding, dst, g.panel_cols);
      }
    }
  }

  // The matrix of batch `l` as the GEMM reads it, with its element offset.
  const void* OperandMatrix(int w, const RunState& s, int64_t l) const {
    const MatrixOperand& x = w == 0 ? p_.a : p_.b;
    const GemmOperand& g = operand_[w];
    const int64_t offset =
        g.direct ? x.BatchOffset(p_.batch_rank, p_.batch_dims.data(), l)
                 : x.OwnBatch(p_.batch_rank, p_.batch_dims.data(), l) * g.panel_rows * g.panel_cols;
    const size_t esize = bf16_ ? sizeof(uint16_t) : sizeof(float);
    return static_cast<const unsigned char*>(s.x[w]) + offset * static_cast<int64_t>(esize);
  }

  size_t esize() const { return bf16_ ? sizeof(uint16_t) : sizeof(float); }
  cpu::GemmElement ab_type() const {
    return bf16_ ? cpu::GemmElement::kBf16 : cpu::GemmElement::kFloat;
  }

  float* OutMatrix(const RunState& s, int64_t l) const {
    if (c_direct_) return s.c + p_.c.BatchOffset(p_.batch_rank, p_.batch_dims.data(), l);
    return s.c + l * p_.m * p_.n;
  }

  Status RunTile(const cpu::TileGrid::Tile& t, const RunState& s) const {
    if (primitive_out_) return RunPrimitiveTile(t, s);
    if (tile_to_bf16_) {
      const unsigned char* a = static_cast<const unsigned char*>(OperandMatrix(0, s, t.layer));
      const unsigned char* b = static_cast<const unsigned char*>(OperandMatrix(1, s, t.layer));
      uint16_t* c = static_cast<uint16_t*>(s.c_dst) +
                    p_.c.BatchOffset(p_.batch_rank, p_.batch_dims.data(), t.layer) + t.r0 * ldc_ +
                    t.c0;
      cpu::TileGemmBf16To(t.r1 - t.r0, t.c1 - t.c0, p_.k,
                          TileOperand(operand_[0], a + t.r0 * operand_[0].RowStep() * 2),
                          TileOperand(operand_[1], b + t.c0 * operand_[1].ColStep() * 2), c, ldc_);
      return Status::Ok();
    }
    const int64_t rows = t.r1 - t.r0, cols = t.c1 - t.c0;
    // Where the GEMM writes the tile: out itself, the panel of an aliasing out, or this thread's
    // scratch tile (reused by the thread's next tile; every element is written before it is read).
    static thread_local cpu::AlignedVector<float> scratch;
    float* out = nullptr;
    int64_t ldc = ldc_;
    if (c_direct_ || p_.defer_stores) {
      out = OutMatrix(s, t.layer) + t.r0 * ldc + t.c0;
    } else {
      scratch.resize(static_cast<size_t>(rows * cols));
      out = scratch.data();
      ldc = cols;
    }
    if (p_.has_bias) FillBias(s, t, out, ldc);
    const GemmOperand& ga = operand_[0];
    const GemmOperand& gb = operand_[1];
    const unsigned char* a = static_cast<const unsigned char*>(OperandMatrix(0, s, t.layer));
    const unsigned char* b = static_cast<const unsigned char*>(OperandMatrix(1, s, t.layer));
    // Numerics: the whole reduction is one GEMM call in fp32 (products of bfloat16 values are
    // exact in fp32); with self, C holds beta * self first and the GEMM adds alpha * A @ B.
    const unsigned char* a_tile = a + t.r0 * ga.RowStep() * static_cast<int64_t>(esize());
    const unsigned char* b_tile = b + t.c0 * gb.ColStep() * static_cast<int64_t>(esize());
    if (rows == 1 && ga.ColStep() == 1) {
      // A single output row (decode-time products) with x's elements contiguous: the
      // matrix-vector kernel streams B once (oneDNN's reads it at a third of the speed).
      cpu::GemvRowMajor(target_, bf16_ ? ElemType::kBFloat16 : ElemType::kFloat32, gb.trans, cols,
                        p_.k, bf16_ ? 1.0f : p_.alpha, a_tile, b_tile, gb.ld, p_.has_bias, out);
      if (!c_direct_ && !p_.defer_stores) Store(s, t.layer, t.r0, t.r1, t.c0, t.c1, out, ldc);
      return Status::Ok();
    }
    if (tile_) {
      cpu::TileGemmBf16(rows, cols, p_.k, TileOperand(ga, a_tile), TileOperand(gb, b_tile),
                        p_.has_bias, out, ldc);
      if (!c_direct_ && !p_.defer_stores) Store(s, t.layer, t.r0, t.r1, t.c0, t.c1, out, ldc);
      return Status::Ok();
    }
    if (small_) {
      cpu::SmallGemm(target_, rows, cols, p_.k, p_.alpha,
                     {reinterpret_cast<const float*>(a_tile), ga.RowStep(), ga.ColStep()},
                     {reinterpret_cast<const float*>(b_tile), gb.RowStep(), gb.ColStep()},
                     p_.has_bias, out, ldc);
      if (!c_direct_ && !p_.defer_stores) Store(s, t.layer, t.r0, t.r1, t.c0, t.c1, out, ldc);
      return Status::Ok();
    }
    // Otherwise a single output row is computed as its transpose,
    // out^T = op(B)^T @ op(A)^T: oneDNN then runs its matrix-vector kernel (the row form read the
    // weights at half the speed). out's row has unit stride in every case (see the constructor).
    const bool row = rows == 1;
    const bool trans_first = row ? !gb.trans : ga.trans;
    const bool trans_second = row ? false : gb.trans;
    const int64_t m1 = row ? cols : rows, n1 = row ? 1 : cols;
    const unsigned char* first = row ? b_tile : a_tile;
    const unsigned char* second = row ? a_tile : b_tile;
    const int64_t ld_first = row ? gb.ld : ga.ld;
    const int64_t ld_second = row ? ga.ColStep() : gb.ld;
    const int64_t ld_out = row ? 1 : ldc;
    if (bf16_) {
      OPENACLNN_RETURN_IF_ERROR(cpu::Bf16GemmRowMajor(
          trans_first, trans_second, m1, n1, p_.k, reinterpret_cast<const uint16_t*>(first),
          ld_first, reinterpret_cast<const uint16_t*>(second), ld_second, p_.has_bias, out,
          ld_out));
    } else {
      OPENACLNN_RETURN_IF_ERROR(cpu::SgemmRowMajor(
          trans_first, trans_second, m1, n1, p_.k, p_.alpha, reinterpret_cast<const float*>(first),
          ld_first, reinterpret_cast<const float*>(second), ld_second, p_.has_bias ? 1.0f : 0.0f,
          out, ld_out));
    }
    if (!c_direct_ && !p_.defer_stores) Store(s, t.layer, t.r0, t.r1, t.c0, t.c1, out, ldc);
    return Status::Ok();
  }

  static cpu::StridedBf16 TileOperand(const GemmOperand& g, const unsigned char* x) {
    return {reinterpret_cast<const uint16_t*>(x), g.RowStep(), g.ColStep()};
  }

  // Whether every tile of a BFLOAT16 product runs on cpu::TileGemmBf16: A and B read in place
  // (rows or columns contiguous), each tile a whole matrix within the kernel's limits.
  static bool TileGemmTakes(const Problem& p, const cpu::TileSteps& steps) {
    GemmOperand g[2];
    const MatrixOperand* ops[2] = {&p.a, &p.b};
    for (int w = 0; w < 2; ++w) {
      if (!DirectLayout(ops[w]->rows, ops[w]->cols, ops[w]->row_stride, ops[w]->col_stride,
                        &g[w].trans, &g[w].ld)) {
        return false;
      }
    }
    return steps.rows >= p.m && steps.cols >= p.n &&
           cpu::TileGemmPays(p.m, p.n, p.k, TileOperand(g[0], nullptr), TileOperand(g[1], nullptr));
  }

  // This thread's copy of a per_thread blocked B (BFLOAT16), laid out on its first tile of the
  // call.
  const unsigned char* ThreadBlockedB(const RunState& s) const {
    struct Copy {
      cpu::AlignedVector<uint16_t> data;
      uint64_t call = 0;
    };
    static thread_local Copy copy;
    if (copy.call != s.call) {
      const GemmOperand& gb = operand_[1];
      copy.data.resize(static_cast<size_t>(cpu::BlockedBElements(ab_type(), p_.k, p_.n)));
      cpu::PackBlockedB(target_, gb.source_trans, p_.k, p_.n, static_cast<const uint16_t*>(s.b_src),
                        gb.source_ld, 0, CeilDiv(p_.n, cpu::kBlockedBCols), copy.data.data());
      copy.call = s.call;
    }
    return reinterpret_cast<const unsigned char*>(copy.data.data());
  }

  // A tile of a primitive_out_ plan: oneDNN's matmul primitive writes out (and adds the bias row)
  // itself.
  Status RunPrimitiveTile(const cpu::TileGrid::Tile& t, const RunState& s) const {
    const GemmOperand& ga = operand_[0];
    const GemmOperand& gb = operand_[1];
    const unsigned char* x[2];
    for (int w = 0; w < 2; ++w) {
      const GemmOperand& g = operand_[w];
      if (!g.in_tile) {
        x[w] = static_cast<const unsigned char*>(OperandMatrix(w, s, t.layer));
        continue;
      }
      static thread_local cpu::AlignedVector<unsigned char> packed[2];
      packed[w].resize(esize() * static_cast<size_t>(g.panel_rows * g.panel_cols));
      const MatrixOperand& op = w == 0 ? p_.a : p_.b;
      const int64_t r0 = op.OwnBatch(p_.batch_rank, p_.batch_dims.data(), t.layer) * g.panel_rows;
      Pack(w, r0, r0 + g.panel_rows, s, packed[w].data());
      x[w] = packed[w].data();
    }
    if (gb.per_thread) x[1] = ThreadBlockedB(s);
    const int64_t es = static_cast<int64_t>(esize());
    const unsigned char* a = x[0] + t.r0 * ga.RowStep() * es;
    // A blocked B: the tile's columns start at a column block (BlockB).
    const unsigned char* b = gb.blocked ? x[1] + t.c0 * cpu::BlockedBDepth(ab_type(), p_.k) * es
                                        : x[1] + t.c0 * gb.ColStep() * es;
    const int64_t c_size = static_cast<int64_t>(DTypeSize(p_.c.desc.dtype));
    cpu::GemmOutput out;
    out.c = static_cast<unsigned char*>(s.c_dst) +
            (p_.c.BatchOffset(p_.batch_rank, p_.batch_dims.data(), t.layer) + t.r0 * ldc_ + t.c0) *
                c_size;
    out.ldc = ldc_;
    out.c_type = GemmElementOf(p_.c.desc.dtype);
    if (p_.has_bias) {
      const int64_t b_size = static_cast<int64_t>(DTypeSize(p_.bias.desc.dtype));
      out.bias = static_cast<const unsigned char*>(s.bias_src) +
                 (p_.bias.BatchOffset(p_.batch_rank, p_.batch_dims.data(), t.layer) +
                  t.c0 * p_.bias.col_stride) *
                     b_size;
      out.bias_type = GemmElementOf(p_.bias.desc.dtype);
    }
    const int64_t rows = t.r1 - t.r0, cols = t.c1 - t.c0;
    const bool dense_operands = (ga.trans ? ga.ld == rows : ga.ld == p_.k) &&
                                (gb.blocked || (gb.trans ? gb.ld == p_.k : gb.ld == cols));
    auto product = [&](const cpu::GemmOutput& to) {
      return gb.blocked
                 ? cpu::MatmulBlockedBTo(ab_type(), ga.trans, rows, cols, p_.k, a, ga.ld, b, to)
                 : cpu::MatmulRowMajorTo(ab_type(), ga.trans, gb.trans, rows, cols, p_.k, a, ga.ld,
                                         b, gb.ld, to);
    };
    if (ldc_ == cols || !dense_operands) return product(out);
    // A tile narrower than out (a head view, a column tile) is written densely into this
    // thread's scratch tile, in out's dtype, and copied into out row by row: oneDNN then runs
    // the product on its brgemm kernels (kFullWidthCols).
    static thread_local cpu::AlignedVector<unsigned char> scratch;
    const size_t row_bytes = static_cast<size_t>(cols * c_size);
    scratch.resize(row_bytes * static_cast<size_t>(rows));
    unsigned char* const dst = static_cast<unsigned char*>(out.c);
    out.c = scratch.data();
    out.ldc = cols;
    OPENACLNN_RETURN_IF_ERROR(product(out));
    for (int64_t r = 0; r < rows; ++r) {
      std::memcpy(dst + r * ldc_ * c_size, scratch.data() + static_cast<size_t>(r) * row_bytes,
                  row_bytes);
    }
    return Status::Ok();
  }

  // out rows of the tile = beta * self (self rounded to FLOAT16 under USE_FP16), in fp32.
  void FillBias(const RunState& s, const cpu::TileGrid::Tile& t, float* out, int64_t ldc) const {
    const MatrixOperand& x = p_.bias;
    const int64_t cols = t.c1 - t.c0;
    const int64_t esize = static_cast<int64_t>(DTypeSize(x.desc.dtype));
    const int64_t base = x.BatchOffset(p_.batch_rank, p_.batch_dims.data(), t.layer);
    thread_local std::vector<float> row;
    row.resize(static_cast<size_t>(cols));
    // A bias row broadcast over the rows (Addmm's `bias + x @ w`) is converted once per tile.
    const bool same_row = x.row_stride == 0;
    for (int64_t r = t.r0; r < t.r1; ++r) {
      if (r == t.r0 || !same_row) {
        const unsigned char* src = static_cast<const unsigned char*>(s.bias_src) +
                                   (base + r * x.row_stride + t.c0 * x.col_stride) * esize;
        cpu::LoadRow(target_, src, x.desc.dtype, x.col_stride, cols, row.data());
        if (p_.rounding == InputRounding::kHalf) {
          cpu::RoundRow(target_, InputRounding::kHalf, row.data(), cols);
        }
        if (p_.beta != 1.0f) {
          for (int64_t j = 0; j < cols; ++j) row[j] = p_.beta * row[j];
        }
      }
      std::memcpy(out + (r - t.r0) * ldc, row.data(), sizeof(float) * static_cast<size_t>(cols));
    }
  }

  // Rounds rows [r0, r1) x cols [c0, c1) of batch l once into out, from `src` (element (r0, c0),
  // rows `ld` apart).
  void Store(const RunState& s, int64_t l, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
             const float* src, int64_t ld) const {
    const MatrixOperand& x = p_.c;
    const int64_t esize = static_cast<int64_t>(DTypeSize(x.desc.dtype));
    const int64_t base = x.BatchOffset(p_.batch_rank, p_.batch_dims.data(), l);
    for (int64_t r = r0; r < r1; ++r) {
      void* dst = static_cast<unsigned char*>(s.c_dst) +
                  (base + r * x.row_stride + c0 * x.col_stride) * esize;
      cpu::StoreRow(target_, src + (r - r0) * ld, c1 - c0, p_.round_result_to_half, dst,
                    x.desc.dtype, x.col_stride);
    }
  }

  Problem p_;
  const cpu::KernelTarget target_;
  bool bf16_ = false;           // A and B read as bfloat16 by the bfloat16 GEMM
  bool primitive_out_ = false;  // tiles through oneDNN's matmul primitive, which writes out and
                                // adds the bias row itself (FLOAT or bfloat16 operands)
  bool small_ = false;          // FLOAT tiles through cpu::SmallGemm rather than the BLAS
  bool tile_ = false;           // BFLOAT16 tiles through cpu::TileGemmBf16 rather than oneDNN
  bool own_trans_a_ = false;    // BFLOAT16 tiles of a transposed A on cpu::BlockedGemmBf16
  bool tile_to_bf16_ = false;   // ... writing a BFLOAT16 out directly (cpu::TileGemmBf16To)
  GemmOperand operand_[2];
  bool c_direct_ = false;
  int64_t ldc_ = 1;
  size_t c_panel_ = 0;
  std::vector<Chunk> chunks_;
  cpu::TileGrid tiles_;
};

}  // namespace

const char* GemmDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeGemmPlan(const Problem& problem, WorkspaceBooking* workspace) {
  return std::make_unique<GemmPlan>(problem, workspace);
}

}  // namespace openaclnn::matmul

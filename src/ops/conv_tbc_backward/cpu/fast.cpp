#include "ops/conv_tbc_backward/cpu/fast.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/aligned_vector.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/gemm_rows.h"
#include "kernels/cpu/tbc_matrix.h"
#include "kernels/cpu/tiling.h"

// In TBC layout row r = t * B + b of a (T, B, C) tensor is a C-vector, and a time shift by s is a
// row shift by s * B. With dY (T_out*B x Cout), X (T_in*B x Cin) and W[k] (Cin x Cout):
//   gradInput rows r   += dY rows (r + (pad - k) * B) x W[k]^T, for the rows where it exists;
//   gradWeight[k]       = X rows (r + (k - pad) * B)^T x dY rows r, over the rows where both exist;
//   gradBias            = column sums of dY.
// Every product runs single-threaded on a fixed tile, the tiles run as ParallelFor tasks, and no
// reduction is split across tasks, so the result does not depend on the thread count.

namespace openaclnn::conv_tbc {
namespace {

using openaclnn::cpu::AccumulateRow;
using openaclnn::cpu::BlockSize;
using openaclnn::cpu::CeilDiv;
using openaclnn::cpu::LoadRow;
using openaclnn::cpu::RoundRow;
using openaclnn::cpu::RowMatrixLd;
using openaclnn::cpu::StoreRow;
using openaclnn::cpu::TapMatrixLd;

// Tile sizes: single-threaded oneDNN keeps 90-95 % of a core's peak from about 256 x 512 tiles
// (measured), and tiles this size give enough tasks to balance two to a few dozen threads.
constexpr int64_t kGxTileRows = 256;
constexpr int64_t kGxTileCols = 512;
constexpr int64_t kGwTileRows = 256;  // over Cin
constexpr int64_t kGwTileCols = 512;  // over Cout
// Conversion and bias passes: rows per task (at least this, at most 256 tasks per tensor so the
// bias partials stay small).
constexpr int64_t kMinChunkRows = 64;
constexpr int64_t kMaxChunks = 256;
// Weight layout tasks (panel mode): about this many elements each.
constexpr int64_t kChunkElements = int64_t{1} << 16;

// Panel mode, bfloat16 on AMX: oneDNN 2.6 runs a product on its AMX brgemm kernels only when every
// operand is dense (kernels/cpu/gemm.h), and they run best on reductions of about 512. So dY and X
// are copied once into column panels (cpu::ColumnPanels) and each tap of W, per Cout panel, into
// oneDNN's blocked form (cpu::PackBlockedB): a gradWeight tile sums 512-row chunks of its X panel
// (read transposed) times its dY panel, a gradInput tile dY's Cout panels times the same panels of
// the blocked W[k]^T, each chunk a dense call added by the sum post-op. The chunks of every
// reduction are fixed by the problem, so the result does not depend on the thread count.
// In the (32, 128, 1024, 4096, K=1) shape on two threads (DNNL_VERBOSE, Intel Xeon with AMX,
// 2026-12-07) the gradWeight tiles ran at 690 GFLOP/s a core as the plain mode's strided calls
// (gemm:jit) and 840-870 as chunks; the gradInput tiles at about 1,060 with W read transposed per
// chunk and 1,170 with it blocked. Laying out X^T and dY's chunks in the blocked form too ran
// slower in the operator (the pre-laid blocks are read from L3, where oneDNN's own copies are
// L2-hot): (32, 128, 1024, 2048, K=3) 60.5-61.6 against 57.0-58.9 ms.
constexpr int64_t kReduceChunk = 512;
// The copies and the extra calls pay on the larger channel counts only. bench_conv_tbc_backward
// BF16, the same Xeon, 2 threads, three runs of each binary in alternation (2026-12-07): (32, 128,
// 1024, 2048, K=3) 68.6-69.7 -> 57.0-58.9 ms, (32, 128, 1024, 4096, K=1) 51.0-51.7 -> 42.9-44.5,
// (1024, 1, 850, 1700, K=6) 29.8-32.3 -> 28.1-29.9; Cin 512 with Cout 1024 and Cin 768 with Cout
// 1536 within the noise. Below these thresholds panels were slower (a first version, without the
// blocked weight): (25, 160, 256, 512) 3.53-3.61 against 3.77-3.82 ms, (64, 16, 64, 64)
// 0.088-0.097 against 0.114-0.117.
constexpr int64_t kMinPanelCin = 512;
constexpr int64_t kMinPanelCout = 1024;
// FLOAT inputs on AVX-512 take the same mode (FLOAT panels, the weight in oneDNN's FLOAT blocked
// form; dnnl_sgemm's strided calls pack W^T again in every gradInput tile) from Cin 768 on.
// bench_conv_tbc_backward FLOAT, the same Xeon, 2 threads, three runs of each binary in
// alternation, medians (2026-12-07, host busy): (32, 128, 1024, 2048, K=3) 381 -> 340 ms, (30,
// 100, 768, 1536, K=3) 158 -> 142, (1024, 1, 850, 1700, K=6) 139 -> 127, (32, 128, 1024, 4096,
// K=1) 269 -> 262; with Cin 512 and Cout 1024, four more runs, 90.7-93.8 -> 94.9-95.2 ms and
// 89.8 -> 87.3 (T = 100, B = 40): no gain, so those keep the plain mode.
constexpr int64_t kMinFloatPanelCin = 768;
// Plain mode, FLOAT (UseBlockedWeight): from this many input and output channels on.
// bench_conv_tbc_backward FLOAT, the same Xeon, 2 threads, the same binary with and without the
// blocked weight in alternation, three runs each, medians (2026-12-07 19:5x, host busy): (32,
// 128, 512, 1024, K=3, pad 1) 102 -> 92.5 ms, (pad 2) 97.4 -> 92.9, (100, 40, 512, 1024, K=3)
// 95.8 -> 91.1, (25, 160, 256, 512, K=3) 22.8 -> 22.1; (64, 32, 512, 512, K=31) 230 -> 241 and,
// in five more runs, 238 -> 227 (noise); (64, 16, 64, 64, K=3) 0.23 -> 0.24-0.25 ms in eight
// runs, so small channel counts keep dnnl_sgemm. bfloat16 mode below the panel thresholds, seven
// runs each in two sittings (20:1x): (25, 160, 256, 512, K=3) 5.21-5.37 -> 5.13-5.17 ms, (64, 32,
// 512, 512, K=31) 51.5-53.9 -> 49.6-50.5; with Cin 512 and Cout 1024 the panel mode stays ahead
// of it (21.7-22.0 against 22.3-23.0 ms).
constexpr int64_t kMinBlockedWeightChannels = 256;

int64_t ChunkRows(int64_t rows) { return std::max(kMinChunkRows, CeilDiv(rows, kMaxChunks)); }

// A row-major matrix the products read or write: the user's tensor or a workspace panel. Elements
// are fp32, except the inputs in bfloat16 mode (bfloat16 bit patterns).
struct Operand {
  bool direct = false;
  size_t panel = 0;  // workspace offset when !direct
  int64_t ld = 0;
  int64_t tap_stride = 0;  // weight-shaped operands
};

struct Tile {
  bool weight_grad;  // gradWeight tile (else gradInput)
  int64_t k;         // gradWeight: the tap
  int64_t r0, r1;    // gradInput: rows of gradInput; gradWeight: rows of W[k] (Cin)
  int64_t c0, c1;    // columns: Cin for gradInput, Cout for gradWeight
};

struct Chunk {
  int which;  // 0: dY (with the bias partials), 1: X, 2: W (blocked: see RunPanelChunk)
  int64_t index;
  int64_t r0, r1;
};

class FastPlan : public Plan {
 public:
  FastPlan(const Problem& p, WorkspaceBooking* ws) : p_(p), target_(cpu::PlanningTarget()) {
    const int64_t rows_y = p.t_out * p.batch, rows_x = p.t_in * p.batch;
    const int64_t rows_w = p.taps * p.c_in;
    // Products are needed only when dY has elements; otherwise the gradients are zeros.
    has_products_ = rows_y > 0 && p.c_out > 0;
    const bool plain_inputs = p.rounding == InputRounding::kNone;
    // bfloat16 mode: all three inputs BFLOAT16 and taken as they are, on a CPU that multiplies
    // bfloat16 natively: the products read bfloat16 (the user's tensors or bfloat16 panels) at
    // about twice the fp32 rate, with exact products and fp32 sums, as the fp32 path computes them.
    bf16_ = has_products_ && plain_inputs && p.self.dtype == ACL_BF16 &&
            p.input.dtype == ACL_BF16 && p.weight.dtype == ACL_BF16 && cpu::HasFastBf16Gemm() &&
            target_.native_bf16;
    panels_ = UsePanels(rows_x, rows_y);
    if (panels_) {
      // The products read the panels below, never y_ or x_: marked direct so that no plain panel
      // is booked or filled for them.
      y_.direct = x_.direct = true;
      const size_t bytes = PanelBytes();
      auto book = [&](int64_t elements) {
        return ws->Book(bytes * static_cast<size_t>(std::max<int64_t>(elements, 1)));
      };
      y_panels_ = book(yp_.Elements());
      x_panels_ = book(xp_.Elements());
      w_blocked_ = book(p.taps * yp_.Count() * w_chunk_elements_);
    } else if (has_products_) {
      const aclDataType operand_dtype = bf16_ ? ACL_BF16 : ACL_FLOAT;
      y_.direct = plain_inputs && p.self.dtype == operand_dtype && RowMatrixLd(p.self, &y_.ld);
      x_.direct = plain_inputs && p.input.dtype == operand_dtype && RowMatrixLd(p.input, &x_.ld);
      w_.direct = plain_inputs && p.weight.dtype == operand_dtype &&
                  TapMatrixLd(p.weight, &w_.ld, &w_.tap_stride);
      const size_t input_bytes = bf16_ ? sizeof(uint16_t) : sizeof(float);
      BookPanel(&y_, rows_y, p.c_out, 0, ws, input_bytes);
      BookPanel(&x_, rows_x, p.c_in, 0, ws, input_bytes);
      BookPanel(&w_, rows_w, p.c_out, p.c_in, ws, input_bytes);
    }
    const bool float_outputs = !p.round_result_to_half;
    gx_serial_ = MayOverlap(p.grad_input);
    gw_serial_ = MayOverlap(p.grad_weight);
    gx_.direct = float_outputs && p.grad_input.dtype == ACL_FLOAT && !gx_serial_ &&
                 RowMatrixLd(p.grad_input, &gx_.ld);
    gw_.direct = float_outputs && p.grad_weight.dtype == ACL_FLOAT && !gw_serial_ &&
                 TapMatrixLd(p.grad_weight, &gw_.ld, &gw_.tap_stride);
    BookPanel(&gx_, rows_x, p.c_in, 0, ws, sizeof(float));
    BookPanel(&gw_, rows_w, p.c_out, p.c_in, ws, sizeof(float));
    if (UseBlockedWeight(rows_x)) {
      w_blocked_ = ws->Book(PanelBytes() * static_cast<size_t>(p.taps * w_chunk_elements_));
    }

    // Conversion and bias chunks. dY is always streamed: its pass carries the bias partials.
    y_chunk_rows_ = ChunkRows(rows_y);
    const int64_t y_chunks = p.c_out > 0 ? CeilDiv(rows_y, y_chunk_rows_) : 0;
    for (int64_t i = 0; i < y_chunks; ++i) {
      chunks_.push_back({0, i, i * y_chunk_rows_, std::min(rows_y, (i + 1) * y_chunk_rows_)});
    }
    bias_partials_ = ws->Book(sizeof(float) * std::max<int64_t>(y_chunks * p.c_out, 1));
    // bfloat16 mode reads dY as bfloat16: each task converts a row into its own fp32 scratch row
    // for the bias sums.
    if (bf16_ || panels_) {
      y_scratch_ = ws->Book(sizeof(float) * std::max<int64_t>(y_chunks * p.c_out, 1));
    }
    if (has_products_ && (!x_.direct || panels_) && p.c_in > 0) AddChunks(1, rows_x);
    if (has_products_ && !w_.direct && p.c_in > 0) AddChunks(2, rows_w);
    if (panels_ || blocked_w_) AddWeightBlockChunks();

    // Product tiles, gradWeight first (its tiles carry the longer reductions).
    if (p.c_in > 0) {
      gw_tiles_ = cpu::TileGrid(p.taps, p.c_in, p.c_out, BlockSize(p.c_in, kGwTileRows),
                                BlockSize(p.c_out, kGwTileCols));
      // bfloat16 mode and the blocked weight: full-width gradInput tiles where Cin allows, for
      // oneDNN's brgemm kernels (kernels/cpu/gemm.h).
      const int64_t gx_cols = panels_ ? gx_panel_cols_
                              : (bf16_ || blocked_w_) && p.c_in <= cpu::kFullWidthCols
                                  ? p.c_in
                                  : BlockSize(p.c_in, kGxTileCols);
      gx_tiles_ = cpu::TileGrid(1, rows_x, p.c_in, kGxTileRows, gx_cols);
    }
  }

  Status Run(const Bindings& bindings, void* workspace) const override {
    RunState s;
    s.ws = workspace;
    s.y_src = p_.self.First(bindings.inputs[kSelf]);
    s.x_src = p_.input.First(bindings.inputs[kInput]);
    s.w_src = p_.weight.First(bindings.inputs[kWeight]);
    s.gx_dst = p_.grad_input.First(bindings.outputs[kGradInput]);
    s.gw_dst = p_.grad_weight.First(bindings.outputs[kGradWeight]);
    s.gb_dst = p_.grad_bias.First(bindings.outputs[kGradBias]);
    s.y = static_cast<float*>(OperandPointer(y_, workspace, s.y_src));
    s.x = static_cast<float*>(OperandPointer(x_, workspace, s.x_src));
    s.w = static_cast<float*>(OperandPointer(w_, workspace, s.w_src));
    s.y16 = static_cast<uint16_t*>(OperandPointer(y_, workspace, s.y_src));
    s.x16 = static_cast<uint16_t*>(OperandPointer(x_, workspace, s.x_src));
    s.w16 = static_cast<uint16_t*>(OperandPointer(w_, workspace, s.w_src));
    s.gx = static_cast<float*>(OperandPointer(gx_, workspace, s.gx_dst));
    s.gw = static_cast<float*>(OperandPointer(gw_, workspace, s.gw_dst));

    cpu::ParallelFor(static_cast<int64_t>(chunks_.size()),
                     [&](int64_t i) { RunChunk(chunks_[i], s); });
    std::mutex error_mutex;
    Status first_error;
    cpu::ParallelFor(gw_tiles_.count() + gx_tiles_.count(), [&](int64_t i) {
      Status st = RunTile(TileAt(i), s);
      if (!st.ok()) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (first_error.ok()) first_error = std::move(st);
      }
    });
    OPENACLNN_RETURN_IF_ERROR(first_error);
    if (gx_serial_) StoreGradInputRows(s, 0, p_.t_in * p_.batch, 0, p_.c_in);
    if (gw_serial_) StoreGradWeightRows(s, -1, 0, p_.c_in, 0, p_.c_out);
    FinishBias(s);
    return Status::Ok();
  }

  const char* target_name() const override { return target_.name; }

 private:
  struct RunState {
    void* ws;
    const void *y_src, *x_src, *w_src;
    void *gx_dst, *gw_dst, *gb_dst;
    float *y, *x, *w, *gx, *gw;
    uint16_t *y16, *x16, *w16;  // the same inputs in bfloat16 mode
  };

  // Panel mode (see kReduceChunk) where it pays, W is read in place by the layout tasks, and oneDNN
  // runs the gradInput tiles on its brgemm kernels with the blocked weight (bfloat16 on AMX, FLOAT
  // inputs without rounding on AVX-512). Sets the panel type and shapes.
  bool UsePanels(int64_t rows_x, int64_t rows_y) {
    const Problem& p = p_;
    const bool float_panels = !bf16_ && has_products_ && p.rounding == InputRounding::kNone &&
                              p.self.dtype == ACL_FLOAT && p.input.dtype == ACL_FLOAT &&
                              p.weight.dtype == ACL_FLOAT && cpu::HasBrgemmFloat() &&
                              p.c_in >= kMinFloatPanelCin && p.c_out >= kMinPanelCout;
    const bool bf16_panels =
        bf16_ && cpu::HasAmxBf16() && p.c_in >= kMinPanelCin && p.c_out >= kMinPanelCout;
    if (!(float_panels || bf16_panels) || !TapMatrixLd(p.weight, &w_.ld, &w_.tap_stride)) {
      return false;
    }
    panel_type_ = bf16_ ? cpu::GemmElement::kBf16 : cpu::GemmElement::kFloat;
    w_.direct = true;
    yp_ = {rows_y, p.c_out, BlockSize(p.c_out, kGwTileCols)};
    xp_ = {rows_x, p.c_in, BlockSize(p.c_in, kGwTileRows)};
    w_chunk_elements_ = cpu::BlockedBElements(panel_type_, yp_.width, p.c_in);
    // gradInput tiles start on the blocked weight's 64-column blocks.
    gx_panel_cols_ =
        p.c_in <= cpu::kFullWidthCols
            ? p.c_in
            : CeilDiv(BlockSize(p.c_in, kGxTileCols), cpu::kBlockedBCols) * cpu::kBlockedBCols;
    cpu::GemmOutput tile;
    tile.ldc = gx_panel_cols_;
    tile.accumulate = true;
    return cpu::BlockedBRuns(panel_type_, false, std::min(kGxTileRows, rows_x), gx_panel_cols_,
                             yp_.width, yp_.width, tile);
  }
  // Plain mode (FLOAT inputs on AVX-512, bfloat16 mode on AMX): each tap's W[k]^T laid out once
  // in oneDNN's blocked form over the whole of Cout (one panel as wide as Cout), so that
  // full-width gradInput tiles run dense calls on the brgemm kernels, dY read in place, instead of
  // each tile's call packing W^T again (dnnl_sgemm, or oneDNN's copy of a transposed B).
  bool UseBlockedWeight(int64_t rows_x) {
    const Problem& p = p_;
    const bool float_inputs = !bf16_ && p.rounding == InputRounding::kNone &&
                              p.self.dtype == ACL_FLOAT && p.input.dtype == ACL_FLOAT &&
                              p.weight.dtype == ACL_FLOAT && cpu::HasBrgemmFloat();
    const bool bf16_inputs = bf16_ && cpu::HasAmxBf16();
    if (panels_ || !(float_inputs || bf16_inputs) || !has_products_ || !y_.direct ||
        y_.ld != p.c_out || !w_.direct || gx_.ld != p.c_in || p.c_in < kMinBlockedWeightChannels ||
        p.c_out < kMinBlockedWeightChannels || p.c_in > cpu::kFullWidthCols) {
      return false;
    }
    cpu::GemmOutput tile;
    tile.ldc = p.c_in;
    tile.accumulate = true;
    panel_type_ = bf16_ ? cpu::GemmElement::kBf16 : cpu::GemmElement::kFloat;
    if (!cpu::BlockedBRuns(panel_type_, false, std::min(kGxTileRows, rows_x), p.c_in, p.c_out,
                           p.c_out, tile)) {
      return false;
    }
    blocked_w_ = true;
    yp_ = {p.t_out * p.batch, p.c_out, p.c_out};  // for the weight's layout: one Cout panel
    w_chunk_elements_ = cpu::BlockedBElements(panel_type_, p.c_out, p.c_in);
    return true;
  }
  size_t PanelBytes() const {
    return panel_type_ == cpu::GemmElement::kBf16 ? sizeof(uint16_t) : sizeof(float);
  }
  // Panel mode and the blocked weight: tasks laying out W[k]^T's rows of each Cout panel in
  // oneDNN's blocked form.
  void AddWeightBlockChunks() {
    const int64_t blocks = CeilDiv(p_.c_in, cpu::kBlockedBCols);
    const int64_t block_elements = cpu::BlockedBDepth(panel_type_, yp_.width) * cpu::kBlockedBCols;
    const int64_t step = std::max<int64_t>(1, kChunkElements / block_elements);
    for (int64_t i = 0; i < p_.taps * yp_.Count(); ++i) {
      for (int64_t b0 = 0; b0 < blocks; b0 += step) {
        chunks_.push_back({2, i, b0, std::min(blocks, b0 + step)});
      }
    }
  }

  // A packed fp32 panel of rows x cols. For the weight-shaped operands (tap_rows = Cin) each tap is
  // a tap_rows x cols block; row-shaped operands pass tap_rows = 0. Empty panels keep stride 0, so
  // no product is formed from a dimension of an empty tensor (which may be huge).
  void BookPanel(Operand* op, int64_t rows, int64_t cols, int64_t tap_rows, WorkspaceBooking* ws,
                 size_t element_bytes) {
    if (op->direct) return;
    op->ld = std::max<int64_t>(cols, 1);
    op->tap_stride = rows > 0 && cols > 0 ? tap_rows * op->ld : 0;
    op->panel = ws->Book(element_bytes * static_cast<size_t>(std::max<int64_t>(rows * cols, 1)));
  }

  void AddChunks(int which, int64_t rows) {
    const int64_t step = ChunkRows(rows);
    for (int64_t r = 0, i = 0; r < rows; r += step, ++i) {
      chunks_.push_back({which, i, r, std::min(rows, r + step)});
    }
  }

  static void* OperandPointer(const Operand& op, void* ws, const void* user) {
    if (op.direct) return const_cast<void*>(user);
    return WorkspaceBooking::At<unsigned char>(ws, op.panel);
  }

  // bfloat16 mode: element i of a BF16 row with `stride` elements between values, as bits.
  static void CopyRow16(const void* src, int64_t stride, int64_t n, uint16_t* dst) {
    const uint16_t* from = static_cast<const uint16_t*>(src);
    if (stride == 1) {
      std::memcpy(dst, from, sizeof(uint16_t) * n);
      return;
    }
    for (int64_t i = 0; i < n; ++i) dst[i] = from[i * stride];
  }

  // dY rows [c.r0, c.r1) of chunk c (which == 0): each row's fp32 values as stored are added into
  // the chunk's bias partial (rows in order), then keep_row(row address, r) keeps the row where
  // the mode needs it.
  template <typename KeepRow>
  void StreamDyRows(const Chunk& c, const RunState& s, KeepRow keep_row) const {
    const int64_t n = p_.c_out;
    float* partial = WorkspaceBooking::At<float>(s.ws, bias_partials_) + c.index * n;
    float* row = WorkspaceBooking::At<float>(s.ws, y_scratch_) + c.index * n;
    std::fill(partial, partial + n, 0.0f);
    for (int64_t r = c.r0; r < c.r1; ++r) {
      const void* src = RowAddress(p_.self, s.y_src, r);
      LoadRow(target_, src, p_.self.dtype, p_.self.strides[2], n, row);
      AccumulateRow(target_, row, n, partial);
      keep_row(src, r);
    }
  }

  // Panel mode: dY's rows into its panels (with the bias partials, from the fp32 values of the
  // rows as stored), X's rows into its panels, or tap k's Cout panel j of W as op(B) = W[k]^T's
  // rows (Cout) of the panel, column blocks [r0, r1), in the blocked form.
  void RunPanelChunk(const Chunk& c, const RunState& s) const {
    if (c.which == 0) {
      unsigned char* panels = WorkspaceBooking::At<unsigned char>(s.ws, y_panels_);
      StreamDyRows(c, s, [&](const void* src, int64_t r) {
        cpu::ScatterRowToPanels(yp_, panel_type_, src, p_.self.strides[2], r, panels);
      });
      return;
    }
    if (c.which == 1) {
      for (int64_t r = c.r0; r < c.r1; ++r) {
        cpu::ScatterRowToPanels(xp_, panel_type_, RowAddress(p_.input, s.x_src, r),
                                p_.input.strides[2], r,
                                WorkspaceBooking::At<unsigned char>(s.ws, x_panels_));
      }
      return;
    }
    const int64_t k = c.index / yp_.Count(), j = c.index % yp_.Count();
    const int64_t offset = k * w_.tap_stride + j * yp_.width, chunk = c.index * w_chunk_elements_;
    if (bf16_) {
      cpu::PackBlockedB(target_, true, yp_.Width(j), p_.c_in, s.w16 + offset, w_.ld, c.r0, c.r1,
                        WorkspaceBooking::At<uint16_t>(s.ws, w_blocked_) + chunk);
    } else {
      cpu::PackBlockedB(target_, true, yp_.Width(j), p_.c_in, s.w + offset, w_.ld, c.r0, c.r1,
                        WorkspaceBooking::At<float>(s.ws, w_blocked_) + chunk);
    }
  }

  void RunChunk16(const Chunk& c, const RunState& s) const {
    if (c.which == 0) {
      // dY: the bias partial, and the bfloat16 panel unless dY is read in place.
      StreamDyRows(c, s, [&](const void* src, int64_t r) {
        if (!y_.direct) CopyRow16(src, p_.self.strides[2], p_.c_out, s.y16 + r * y_.ld);
      });
      return;
    }
    if (c.which == 1) {
      for (int64_t r = c.r0; r < c.r1; ++r) {
        CopyRow16(RowAddress(p_.input, s.x_src, r), p_.input.strides[2], p_.c_in,
                  s.x16 + r * x_.ld);
      }
      return;
    }
    const TensorDesc& d = p_.weight;
    for (int64_t r = c.r0; r < c.r1; ++r) {
      const int64_t k = r / p_.c_in, ci = r % p_.c_in;
      const uint16_t* src =
          static_cast<const uint16_t*>(s.w_src) + k * d.strides[0] + ci * d.strides[1];
      CopyRow16(src, d.strides[2], p_.c_out, s.w16 + r * w_.ld);
    }
  }

  // Address of element 0 of TBC row r (t = r / B, b = r % B) of a rank-3 view.
  static const void* RowAddress(const TensorDesc& d, const void* first, int64_t r) {
    const int64_t B = d.dims[1];
    const int64_t t = r / B, b = r % B;
    return static_cast<const unsigned char*>(first) +
           (t * d.strides[0] + b * d.strides[1]) * static_cast<int64_t>(DTypeSize(d.dtype));
  }

  void RunChunk(const Chunk& c, const RunState& s) const {
    if (panels_ || (blocked_w_ && c.which == 2)) {
      RunPanelChunk(c, s);
      return;
    }
    if (bf16_) {
      RunChunk16(c, s);
      return;
    }
    if (c.which == 0) {
      // dY: bias partial over the rows as stored (spec 5.4), then the rounded fp32 panel.
      const int64_t n = p_.c_out;
      float* partial = WorkspaceBooking::At<float>(s.ws, bias_partials_) + c.index * n;
      std::fill(partial, partial + n, 0.0f);
      for (int64_t r = c.r0; r < c.r1; ++r) {
        if (y_.direct) {
          AccumulateRow(target_, s.y + r * y_.ld, n, partial);
          continue;
        }
        float* row = s.y + r * y_.ld;
        LoadRow(target_, RowAddress(p_.self, s.y_src, r), p_.self.dtype, p_.self.strides[2], n,
                row);
        AccumulateRow(target_, row, n, partial);
        RoundRow(target_, p_.rounding, row, n);
      }
      return;
    }
    if (c.which == 1) {
      for (int64_t r = c.r0; r < c.r1; ++r) {
        float* row = s.x + r * x_.ld;
        LoadRow(target_, RowAddress(p_.input, s.x_src, r), p_.input.dtype, p_.input.strides[2],
                p_.c_in, row);
        RoundRow(target_, p_.rounding, row, p_.c_in);
      }
      return;
    }
    const TensorDesc& d = p_.weight;
    const int64_t esize = static_cast<int64_t>(DTypeSize(d.dtype));
    for (int64_t r = c.r0; r < c.r1; ++r) {
      const int64_t k = r / p_.c_in, ci = r % p_.c_in;
      const void* src = static_cast<const unsigned char*>(s.w_src) +
                        (k * d.strides[0] + ci * d.strides[1]) * esize;
      float* row = s.w + r * w_.ld;
      LoadRow(target_, src, d.dtype, d.strides[2], p_.c_out, row);
      RoundRow(target_, p_.rounding, row, p_.c_out);
    }
  }

  // Task i: the gradWeight tiles, then the gradInput tiles.
  Tile TileAt(int64_t i) const {
    const bool weight_grad = i < gw_tiles_.count();
    const cpu::TileGrid::Tile g =
        weight_grad ? gw_tiles_.At(i) : gx_tiles_.At(i - gw_tiles_.count());
    return {weight_grad, g.layer, g.r0, g.r1, g.c0, g.c1};
  }

  Status RunTile(const Tile& t, const RunState& s) const {
    return t.weight_grad ? WeightGradTile(t, s) : InputGradTile(t, s);
  }

  // Rows [*lo, *hi) of gradInput tile t that tap k reaches: time [k - pad, T_out + k - pad)
  // clipped to [0, T_in).
  void TapRows(const Tile& t, int64_t k, int64_t* lo, int64_t* hi) const {
    if (!has_products_) {
      *lo = *hi = 0;
      return;
    }
    const int64_t B = p_.batch;
    const int64_t tlo = std::clamp<int64_t>(k - p_.pad, 0, p_.t_in);
    const int64_t thi = std::clamp<int64_t>(p_.t_out + k - p_.pad, 0, p_.t_in);
    *lo = std::max(t.r0, tlo * B);
    *hi = std::min(t.r1, thi * B);
  }

  // A fp32 matrix of the calling thread for a product whose C must be dense (panel mode) where the
  // output's rows are further apart; every element is written before it is read.
  static float* ScratchTile(int64_t rows, int64_t cols) {
    static thread_local cpu::AlignedVector<float> scratch;
    scratch.resize(static_cast<size_t>(rows * cols));
    return scratch.data();
  }

  // gradInput rows [r0, r1), columns [c0, c1).
  Status InputGradTile(const Tile& t, const RunState& s) const {
    const int64_t B = p_.batch, cols = t.c1 - t.c0;
    float* out = s.gx + t.c0;
    // C from the tile's first row: the tile in out, or in panel mode, where that is not dense, the
    // thread's scratch tile.
    const bool scratch = panels_ && cols != gx_.ld;
    float* c = scratch ? ScratchTile(t.r1 - t.r0, cols) : out + t.r0 * gx_.ld;
    const int64_t ldc = scratch ? cols : gx_.ld;
    // Numerics: taps accumulate in the fixed order below, in fp32, by the GEMM's beta = 1. A tap
    // covering the whole tile goes first with beta = 0; otherwise the tile is zeroed first.
    int64_t first = -1;
    for (int64_t k = 0; k < p_.taps; ++k) {
      int64_t lo, hi;
      TapRows(t, k, &lo, &hi);
      if (lo == t.r0 && hi == t.r1) {
        first = k;
        break;
      }
    }
    if (first < 0) {
      for (int64_t r = 0; r < t.r1 - t.r0; ++r) std::fill(c + r * ldc, c + r * ldc + cols, 0.f);
    }
    for (int64_t i = -1; i < p_.taps; ++i) {
      const int64_t k = i < 0 ? first : i;
      if (k < 0 || (i >= 0 && k == first)) continue;
      int64_t lo, hi;
      TapRows(t, k, &lo, &hi);
      if (lo >= hi) continue;
      const int64_t y_row = lo + (p_.pad - k) * B;
      if (panels_) {
        OPENACLNN_RETURN_IF_ERROR(InputGradPanels(s, k, y_row, hi - lo, t.c0, cols, k != first,
                                                  c + (lo - t.r0) * ldc, ldc));
        continue;
      }
      if (blocked_w_) {
        cpu::GemmOutput to;
        to.c = out + lo * gx_.ld;
        to.ldc = gx_.ld;
        to.accumulate = k != first;
        const void* a = bf16_ ? static_cast<const void*>(s.y16 + y_row * y_.ld)
                              : static_cast<const void*>(s.y + y_row * y_.ld);
        OPENACLNN_RETURN_IF_ERROR(
            cpu::MatmulBlockedBTo(panel_type_, false, hi - lo, cols, p_.c_out, a, y_.ld,
                                  WorkspaceBooking::At<unsigned char>(s.ws, w_blocked_) +
                                      k * w_chunk_elements_ * static_cast<int64_t>(PanelBytes()),
                                  to));
        continue;
      }
      if (bf16_) {
        OPENACLNN_RETURN_IF_ERROR(
            cpu::Bf16GemmRowMajor(false, true, hi - lo, cols, p_.c_out, s.y16 + y_row * y_.ld,
                                  y_.ld, s.w16 + k * w_.tap_stride + t.c0 * w_.ld, w_.ld,
                                  k != first, out + lo * gx_.ld, gx_.ld));
        continue;
      }
      OPENACLNN_RETURN_IF_ERROR(
          cpu::SgemmRowMajor(false, true, hi - lo, cols, p_.c_out, 1.0f, s.y + y_row * y_.ld, y_.ld,
                             s.w + k * w_.tap_stride + t.c0 * w_.ld, w_.ld,
                             k == first ? 0.0f : 1.0f, out + lo * gx_.ld, gx_.ld));
    }
    if (scratch) {
      for (int64_t r = t.r0; r < t.r1; ++r) {
        std::memcpy(out + r * gx_.ld, c + (r - t.r0) * ldc,
                    sizeof(float) * static_cast<size_t>(cols));
      }
    }
    if (!gx_.direct && !gx_serial_) StoreGradInputRows(s, t.r0, t.r1, t.c0, t.c1);
    return Status::Ok();
  }

  // Panel mode: c (rows x cols, dense) (+)= dY rows [y_row, y_row + rows) x W[k]^T columns
  // [c0, c0 + cols), one dense call per Cout panel (dY's panel rows, W[k]^T's panel rows in the
  // blocked form from the tile's first column on), each panel's sum added to C in panel order.
  Status InputGradPanels(const RunState& s, int64_t k, int64_t y_row, int64_t rows, int64_t c0,
                         int64_t cols, bool accumulate, float* c, int64_t ldc) const {
    const unsigned char* y = WorkspaceBooking::At<unsigned char>(s.ws, y_panels_);
    const unsigned char* w = WorkspaceBooking::At<unsigned char>(s.ws, w_blocked_);
    const int64_t bytes = static_cast<int64_t>(PanelBytes());
    cpu::GemmOutput to;
    to.c = c;
    to.ldc = ldc;
    for (int64_t j = 0; j < yp_.Count(); ++j) {
      const int64_t depth = yp_.Width(j);
      to.accumulate = accumulate || j > 0;
      const int64_t blocked =
          (k * yp_.Count() + j) * w_chunk_elements_ +
          c0 / cpu::kBlockedBCols * cpu::BlockedBDepth(panel_type_, depth) * cpu::kBlockedBCols;
      OPENACLNN_RETURN_IF_ERROR(cpu::MatmulBlockedBTo(panel_type_, false, rows, cols, depth,
                                                      y + yp_.At(y_row, j) * bytes, depth,
                                                      w + blocked * bytes, to));
    }
    return Status::Ok();
  }

  // gradWeight[k] rows (Cin) [r0, r1), columns (Cout) [c0, c1).
  Status WeightGradTile(const Tile& t, const RunState& s) const {
    const int64_t B = p_.batch;
    // Output time steps t whose input step t + k - pad exists.
    const int64_t tlo = std::clamp<int64_t>(p_.pad - t.k, 0, p_.t_out);
    const int64_t thi = std::clamp<int64_t>(p_.t_in + p_.pad - t.k, 0, p_.t_out);
    float* out = s.gw + t.k * gw_.tap_stride + t.r0 * gw_.ld + t.c0;
    const int64_t rows = t.r1 - t.r0, cols = t.c1 - t.c0;
    if (tlo >= thi) {
      for (int64_t r = 0; r < rows; ++r) std::fill(out + r * gw_.ld, out + r * gw_.ld + cols, 0.f);
    } else if (panels_) {
      OPENACLNN_RETURN_IF_ERROR(
          WeightGradPanels(s, (tlo + t.k - p_.pad) * B, tlo * B, (thi - tlo) * B, t, out));
    } else {
      // Numerics: the whole reduction over time and batch is one GEMM call (fp32 accumulation).
      const int64_t x_row = (tlo + t.k - p_.pad) * B;
      if (bf16_) {
        OPENACLNN_RETURN_IF_ERROR(cpu::Bf16GemmRowMajor(
            true, false, rows, cols, (thi - tlo) * B, s.x16 + x_row * x_.ld + t.r0, x_.ld,
            s.y16 + tlo * B * y_.ld + t.c0, y_.ld, false, out, gw_.ld));
      } else {
        OPENACLNN_RETURN_IF_ERROR(cpu::SgemmRowMajor(
            true, false, rows, cols, (thi - tlo) * B, 1.0f, s.x + x_row * x_.ld + t.r0, x_.ld,
            s.y + tlo * B * y_.ld + t.c0, y_.ld, 0.0f, out, gw_.ld));
      }
    }
    if (!gw_.direct && !gw_serial_) StoreGradWeightRows(s, t.k, t.r0, t.r1, t.c0, t.c1);
    return Status::Ok();
  }

  // Panel mode: out (gradWeight tile t) = X rows [x_row, x_row + depth)^T x dY rows [y_row, ...),
  // the tile's X panel (read transposed) and dY panel, the reduction cut into chunks of
  // kReduceChunk rows, each a dense product on oneDNN's AMX brgemm kernels, summed in fp32 in
  // chunk order (the split depends on the problem alone). C goes through the thread's scratch
  // tile unless the tile is dense in out.
  Status WeightGradPanels(const RunState& s, int64_t x_row, int64_t y_row, int64_t depth,
                          const Tile& t, float* out) const {
    const int64_t rows = t.r1 - t.r0, cols = t.c1 - t.c0;
    const int64_t xi = t.r0 / xp_.width, yj = t.c0 / yp_.width;
    const bool scratch = cols != gw_.ld;
    cpu::GemmOutput to;
    to.c = scratch ? ScratchTile(rows, cols) : out;
    to.ldc = cols;
    const unsigned char* x = WorkspaceBooking::At<unsigned char>(s.ws, x_panels_);
    const unsigned char* y = WorkspaceBooking::At<unsigned char>(s.ws, y_panels_);
    const int64_t bytes = static_cast<int64_t>(PanelBytes());
    for (int64_t d = 0; d < depth; d += kReduceChunk) {
      to.accumulate = d > 0;
      OPENACLNN_RETURN_IF_ERROR(cpu::MatmulRowMajorTo(
          panel_type_, true, false, rows, cols, std::min(kReduceChunk, depth - d),
          x + xp_.At(x_row + d, xi) * bytes, rows, y + yp_.At(y_row + d, yj) * bytes, cols, to));
    }
    if (scratch) {
      const float* c = static_cast<const float*>(to.c);
      for (int64_t r = 0; r < rows; ++r) {
        std::memcpy(out + r * gw_.ld, c + r * cols, sizeof(float) * static_cast<size_t>(cols));
      }
    }
    return Status::Ok();
  }

  void StoreGradInputRows(const RunState& s, int64_t r0, int64_t r1, int64_t c0, int64_t c1) const {
    const TensorDesc& d = p_.grad_input;
    const int64_t esize = static_cast<int64_t>(DTypeSize(d.dtype));
    for (int64_t r = r0; r < r1; ++r) {
      void* dst = static_cast<unsigned char*>(const_cast<void*>(RowAddress(d, s.gx_dst, r))) +
                  c0 * d.strides[2] * esize;
      StoreRow(target_, s.gx + r * gx_.ld + c0, c1 - c0, p_.round_result_to_half, dst, d.dtype,
               d.strides[2]);
    }
  }

  // Tap k's rows [r0, r1), columns [c0, c1); every tap when the stores run serially.
  void StoreGradWeightRows(const RunState& s, int64_t k, int64_t r0, int64_t r1, int64_t c0,
                           int64_t c1) const {
    const TensorDesc& d = p_.grad_weight;
    const int64_t esize = static_cast<int64_t>(DTypeSize(d.dtype));
    const bool all_taps = gw_serial_;
    const int64_t k0 = all_taps ? 0 : k, k1 = all_taps ? p_.taps : k + 1;
    for (int64_t kk = k0; kk < k1; ++kk) {
      for (int64_t r = r0; r < r1; ++r) {
        void* dst = static_cast<unsigned char*>(s.gw_dst) +
                    (kk * d.strides[0] + r * d.strides[1] + c0 * d.strides[2]) * esize;
        StoreRow(target_, s.gw + kk * gw_.tap_stride + r * gw_.ld + c0, c1 - c0,
                 p_.round_result_to_half, dst, d.dtype, d.strides[2]);
      }
    }
  }

  // Numerics: the chunk partials (fp32, rows in order) are added in chunk order, in fp32.
  void FinishBias(const RunState& s) const {
    const int64_t n = p_.c_out;
    const float* partials = WorkspaceBooking::At<float>(s.ws, bias_partials_);
    const int64_t chunks = p_.c_out > 0 ? CeilDiv(p_.t_out * p_.batch, y_chunk_rows_) : 0;
    const TensorDesc& d = p_.grad_bias;
    for (int64_t co = 0; co < n; ++co) {
      float sum = 0.0f;
      for (int64_t c = 0; c < chunks; ++c) sum += partials[c * n + co];
      StoreFromFloat(s.gb_dst, d.dtype, co * d.strides[0], sum);
    }
  }

  Problem p_;
  const cpu::KernelTarget target_;  // the SIMD target of the row conversions
  bool has_products_ = false;
  bool bf16_ = false;  // inputs read as bfloat16 by the bfloat16 GEMM
  // Panel mode: dY, X and each tap of W as column panels (workspace, of panel_type_).
  bool panels_ = false;
  bool blocked_w_ = false;  // plain mode with W[k]^T blocked (UseBlockedWeight)
  cpu::GemmElement panel_type_ = cpu::GemmElement::kBf16;  // the panels' elements
  // dY in Cout panels, X in Cin panels (the blocked weight: yp_ one panel as wide as Cout).
  cpu::ColumnPanels yp_, xp_;
  size_t y_panels_ = 0, x_panels_ = 0;
  // W[k]^T's rows of each Cout panel j in oneDNN's blocked form (cpu::PackBlockedB), chunk
  // k * yp_.Count() + j, w_chunk_elements_ each; gradInput tiles gx_panel_cols_ wide.
  size_t w_blocked_ = 0;
  int64_t w_chunk_elements_ = 0;
  int64_t gx_panel_cols_ = 0;
  size_t y_scratch_ = 0;
  Operand y_, x_, w_, gx_, gw_;
  bool gx_serial_ = false, gw_serial_ = false;
  int64_t y_chunk_rows_ = 1;
  size_t bias_partials_ = 0;
  std::vector<Chunk> chunks_;
  cpu::TileGrid gw_tiles_, gx_tiles_;
};

}  // namespace

const char* FastDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace) {
  return std::make_unique<FastPlan>(problem, workspace);
}

}  // namespace openaclnn::conv_tbc

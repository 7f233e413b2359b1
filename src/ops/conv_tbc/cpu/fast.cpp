#include "ops/conv_tbc/cpu/fast.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "api/dtype.h"
#include "api/tensor_desc.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/gemm.h"
#include "kernels/cpu/tbc_matrix.h"
#include "kernels/cpu/tiling.h"

// In TBC layout row r = t * B + b of a (T, B, C) tensor is a C-vector and a time shift by s is a
// row shift by s * B. With X (T_in*B x Cin), W[k] (Cin x Cout) and Y (T_out*B x Cout):
//   Y rows r = bias + sum_k X rows (r + (k - pad) * B) x W[k], over the rows where X exists.
// The output is split into fixed tiles; each tile is initialised with the fp32 bias and then
// receives the taps in order 0..K-1 through the GEMM's beta = 1, all in fp32, and is rounded once
// to the output dtype. A tile is one task and one single-threaded GEMM sequence, so the result does
// not depend on the thread count.

namespace openaclnn::conv_tbc_forward::cpu {
namespace {

using openaclnn::cpu::BlockSize;
using openaclnn::cpu::CeilDiv;
using openaclnn::cpu::RowMatrixLd;
using openaclnn::cpu::TapMatrixLd;

constexpr int64_t kTileRows = 256;
constexpr int64_t kTileCols = 512;
constexpr int64_t kMinChunkRows = 64;
constexpr int64_t kMaxChunks = 256;

// Loads `n` elements with element stride `stride` as floats, applying the emulation rounding.
void LoadRounded(const void* src, aclDataType dtype, int64_t stride, int64_t n,
                 InputRounding rounding, float* dst) {
  if (dtype == ACL_FLOAT && stride == 1) {
    std::memcpy(dst, src, sizeof(float) * n);
  } else if (dtype == ACL_BF16 && stride == 1) {
    const uint16_t* s = static_cast<const uint16_t*>(src);
    for (int64_t i = 0; i < n; ++i) dst[i] = BFloat16ToFloat(s[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = LoadAsFloat(src, dtype, i * stride);
  }
  if (rounding != InputRounding::kNone) {
    for (int64_t i = 0; i < n; ++i) dst[i] = ApplyRounding(rounding, dst[i]);
  }
}

// A row-major operand of the products: the user's tensor or a workspace panel. fp32, except X and
// W in bfloat16 mode (bfloat16 bit patterns).
struct Operand {
  bool direct = false;
  size_t panel = 0;
  int64_t ld = 0;
  int64_t tap_stride = 0;
};

struct Chunk {
  int which;  // 0: X rows, 1: W rows (k * Cin + ci)
  int64_t r0, r1;
};

class FastPlan : public Plan {
 public:
  FastPlan(const Problem& p, WorkspaceBooking* ws)
      : p_(p), target_(openaclnn::cpu::PlanningTarget()) {
    const int64_t rows_y = p.t_out * p.batch, rows_x = p.t_in * p.batch;
    const int64_t rows_w = p.taps * p.c_in;
    const bool plain = p.rounding == InputRounding::kNone;
    products_ = rows_y > 0 && p.c_out > 0 && rows_x > 0 && p.c_in > 0 && p.taps > 0;
    // bfloat16 mode: X and W both BFLOAT16 and taken as they are, on a CPU that multiplies
    // bfloat16 natively (about twice the fp32 rate; exact products, fp32 sums).
    bf16_ = products_ && plain && p.self.dtype == ACL_BF16 && p.weight.dtype == ACL_BF16 &&
            openaclnn::cpu::HasFastBf16Gemm() && target_.native_bf16;
    if (products_) {
      const aclDataType operand_dtype = bf16_ ? ACL_BF16 : ACL_FLOAT;
      const size_t input_bytes = bf16_ ? sizeof(uint16_t) : sizeof(float);
      x_.direct = plain && p.self.dtype == operand_dtype && RowMatrixLd(p.self, &x_.ld);
      w_.direct =
          plain && p.weight.dtype == operand_dtype && TapMatrixLd(p.weight, &w_.ld, &w_.tap_stride);
      BookPanel(&x_, rows_x, p.c_in, 0, ws, input_bytes);
      BookPanel(&w_, rows_w, p.c_out, p.c_in, ws, input_bytes);
      if (!x_.direct) AddChunks(0, rows_x);
      if (!w_.direct) AddChunks(1, rows_w);
    }
    serial_store_ = !CertainlyDisjoint(p.out);
    y_.direct = !p.round_result_to_half && p.out.dtype == ACL_FLOAT && !serial_store_ &&
                RowMatrixLd(p.out, &y_.ld);
    BookPanel(&y_, rows_y, p.c_out, 0, ws, sizeof(float));
    bias_ = ws->Book(sizeof(float) * std::max<int64_t>(p.c_out, 1));
    tiles_ = openaclnn::cpu::TileGrid(1, rows_y, p.c_out, kTileRows, BlockSize(p.c_out, kTileCols));
  }

  Status Run(const Bindings& bindings, void* workspace) const override {
    State s;
    s.x_src = p_.self.First(bindings.inputs[kSelf]);
    s.w_src = p_.weight.First(bindings.inputs[kWeight]);
    s.y_dst = p_.out.First(bindings.outputs[kOut]);
    s.x = static_cast<float*>(Pointer(x_, workspace, s.x_src));
    s.w = static_cast<float*>(Pointer(w_, workspace, s.w_src));
    s.x16 = static_cast<uint16_t*>(Pointer(x_, workspace, s.x_src));
    s.w16 = static_cast<uint16_t*>(Pointer(w_, workspace, s.w_src));
    s.y = static_cast<float*>(Pointer(y_, workspace, s.y_dst));
    s.bias = WorkspaceBooking::At<float>(workspace, bias_);
    // Bias in fp32 (rounded to FLOAT16 first for cubeMathType 2), added before the one rounding.
    LoadRounded(p_.bias.First(bindings.inputs[kBias]), p_.bias.dtype, p_.bias.strides[0], p_.c_out,
                p_.rounding == InputRounding::kHalf ? InputRounding::kHalf : InputRounding::kNone,
                s.bias);

    openaclnn::cpu::ParallelFor(static_cast<int64_t>(chunks_.size()),
                                [&](int64_t i) { RunChunk(chunks_[i], s); });
    std::mutex error_mutex;
    Status first_error;
    openaclnn::cpu::ParallelFor(tiles_.count(), [&](int64_t i) {
      Status st = RunTile(tiles_.At(i), s);
      if (!st.ok()) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (first_error.ok()) first_error = std::move(st);
      }
    });
    OPENACLNN_RETURN_IF_ERROR(first_error);
    if (serial_store_) StoreRows(s, 0, p_.t_out * p_.batch, 0, p_.c_out);
    return Status::Ok();
  }

  const char* target_name() const override { return target_.name; }

 private:
  struct State {
    const void* x_src;
    const void* w_src;
    void* y_dst;
    float* x;
    float* w;
    float* y;
    float* bias;
    uint16_t* x16;  // X and W in bfloat16 mode
    uint16_t* w16;
  };

  // A packed fp32 panel of rows x cols; for W (tap_rows = Cin) each tap is a tap_rows x cols block.
  // Empty panels keep stride 0: no product is formed from the dims of an empty tensor.
  void BookPanel(Operand* op, int64_t rows, int64_t cols, int64_t tap_rows, WorkspaceBooking* ws,
                 size_t element_bytes) {
    if (op->direct) return;
    op->ld = std::max<int64_t>(cols, 1);
    op->tap_stride = rows > 0 && cols > 0 ? tap_rows * op->ld : 0;
    op->panel = ws->Book(element_bytes * static_cast<size_t>(std::max<int64_t>(rows * cols, 1)));
  }

  void AddChunks(int which, int64_t rows) {
    const int64_t step = std::max(kMinChunkRows, CeilDiv(rows, kMaxChunks));
    for (int64_t r = 0; r < rows; r += step)
      chunks_.push_back({which, r, std::min(rows, r + step)});
  }

  static void* Pointer(const Operand& op, void* ws, const void* user) {
    if (op.direct) return const_cast<void*>(user);
    return WorkspaceBooking::At<unsigned char>(ws, op.panel);
  }

  // bfloat16 mode: a BF16 row with `stride` elements between values, copied as bits.
  static void CopyRow16(const uint16_t* src, int64_t stride, int64_t n, uint16_t* dst) {
    if (stride == 1) {
      std::memcpy(dst, src, sizeof(uint16_t) * n);
      return;
    }
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i * stride];
  }

  // Element offset of TBC row r of a rank-3 view.
  static int64_t RowOffset(const TensorDesc& d, int64_t r) {
    const int64_t B = d.dims[1];
    return (r / B) * d.strides[0] + (r % B) * d.strides[1];
  }

  void RunChunk(const Chunk& c, const State& s) const {
    if (bf16_) {
      const TensorDesc& d = c.which == 0 ? p_.self : p_.weight;
      const uint16_t* src = static_cast<const uint16_t*>(c.which == 0 ? s.x_src : s.w_src);
      for (int64_t r = c.r0; r < c.r1; ++r) {
        if (c.which == 0) {
          CopyRow16(src + RowOffset(d, r), d.strides[2], p_.c_in, s.x16 + r * x_.ld);
        } else {
          const int64_t k = r / p_.c_in, ci = r % p_.c_in;
          CopyRow16(src + k * d.strides[0] + ci * d.strides[1], d.strides[2], p_.c_out,
                    s.w16 + r * w_.ld);
        }
      }
      return;
    }
    if (c.which == 0) {
      const TensorDesc& d = p_.self;
      const int64_t esize = static_cast<int64_t>(DTypeSize(d.dtype));
      for (int64_t r = c.r0; r < c.r1; ++r) {
        LoadRounded(static_cast<const unsigned char*>(s.x_src) + RowOffset(d, r) * esize, d.dtype,
                    d.strides[2], p_.c_in, p_.rounding, s.x + r * x_.ld);
      }
      return;
    }
    const TensorDesc& d = p_.weight;
    const int64_t esize = static_cast<int64_t>(DTypeSize(d.dtype));
    for (int64_t r = c.r0; r < c.r1; ++r) {
      const int64_t k = r / p_.c_in, ci = r % p_.c_in;
      LoadRounded(static_cast<const unsigned char*>(s.w_src) +
                      (k * d.strides[0] + ci * d.strides[1]) * esize,
                  d.dtype, d.strides[2], p_.c_out, p_.rounding, s.w + r * w_.ld);
    }
  }

  // Output rows (t * B + b) [r0, r1), columns (Cout) [c0, c1).
  Status RunTile(const openaclnn::cpu::TileGrid::Tile& t, const State& s) const {
    const int64_t B = p_.batch, cols = t.c1 - t.c0;
    float* out = s.y + t.c0;
    for (int64_t r = t.r0; r < t.r1; ++r) {
      std::memcpy(out + r * y_.ld, s.bias + t.c0, sizeof(float) * cols);
    }
    for (int64_t k = 0; products_ && k < p_.taps; ++k) {
      // Output steps whose input step t + k - pad exists.
      const int64_t tlo = std::clamp<int64_t>(p_.pad - k, 0, p_.t_out);
      const int64_t thi = std::clamp<int64_t>(p_.t_in + p_.pad - k, 0, p_.t_out);
      const int64_t lo = std::max(t.r0, tlo * B), hi = std::min(t.r1, thi * B);
      if (lo >= hi) continue;
      const int64_t x_row = lo + (k - p_.pad) * B;
      if (bf16_) {
        OPENACLNN_RETURN_IF_ERROR(openaclnn::cpu::Bf16GemmRowMajor(
            false, false, hi - lo, cols, p_.c_in, s.x16 + x_row * x_.ld, x_.ld,
            s.w16 + k * w_.tap_stride + t.c0, w_.ld, true, out + lo * y_.ld, y_.ld));
        continue;
      }
      OPENACLNN_RETURN_IF_ERROR(openaclnn::cpu::SgemmRowMajor(
          false, false, hi - lo, cols, p_.c_in, 1.0f, s.x + x_row * x_.ld, x_.ld,
          s.w + k * w_.tap_stride + t.c0, w_.ld, 1.0f, out + lo * y_.ld, y_.ld));
    }
    if (!y_.direct && !serial_store_) StoreRows(s, t.r0, t.r1, t.c0, t.c1);
    return Status::Ok();
  }

  // Rounds the fp32 panel rows [r0, r1), columns [c0, c1) once into the output view.
  void StoreRows(const State& s, int64_t r0, int64_t r1, int64_t c0, int64_t c1) const {
    const TensorDesc& d = p_.out;
    const int64_t cs = d.strides[2];
    for (int64_t r = r0; r < r1; ++r) {
      const float* src = s.y + r * y_.ld;
      const int64_t base = RowOffset(d, r);
      for (int64_t c = c0; c < c1; ++c) {
        float v = src[c];
        if (p_.round_result_to_half) v = RoundThroughHalf(v);
        StoreFromFloat(s.y_dst, d.dtype, base + c * cs, v);
      }
    }
  }

  Problem p_;
  // The SIMD target resolved in phase 1: whether the bfloat16 products may run.
  const openaclnn::cpu::KernelTarget target_;
  bool products_ = false;
  bool bf16_ = false;  // X and W read as bfloat16 by the bfloat16 GEMM
  bool serial_store_ = false;
  Operand x_, w_, y_;
  size_t bias_ = 0;
  std::vector<Chunk> chunks_;
  openaclnn::cpu::TileGrid tiles_;
};

}  // namespace

const char* FastDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace) {
  return std::make_unique<FastPlan>(problem, workspace);
}

}  // namespace openaclnn::conv_tbc_forward::cpu

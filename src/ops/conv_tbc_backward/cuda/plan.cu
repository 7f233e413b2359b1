// The CUDA ConvTbc backward. In TBC layout row r = t * B + b of a (T, B, C) tensor is a C-vector
// and a time shift by s is a row shift by s * B. With dY (T_out*B x Cout), X (T_in*B x Cin) and
// W[k] (Cin x Cout), all row-major:
//   gradInput rows   += dY rows shifted by (pad - k) * B  x  W[k]^T, tap by tap, over the rows
//                       each tap reaches (cublasGemmEx, beta = 1 after the first);
//   gradWeight[k]     = Xpad rows from k * B, transposed  x  dY rows, every tap in one
//                       cublasGemmStridedBatchedEx over a zero-padded time window of X;
//   gradBias          = column sums of dY as stored, fused into the pass that packs dY.
// cuBLAS is column-major: a row-major M (rows x cols, ld) is its column-major transpose, so each
// row-major product C = A op B is issued as C^T = op(B)^T op(A)^T with the operands swapped.
//
// Numerics (decisions D7, D8): 16-bit operands go to the tensor cores with CUBLAS_COMPUTE_32F
// (fp32 accumulation); FLOAT operands use CUBLAS_COMPUTE_32F_PEDANTIC, which rules out TF32 and any
// other down-conversion whatever the environment says. cubeMathType is applied while packing, as
// the CPU path does: HF32 rounds the fp32 values (then the product is plain fp32), USE_FP16 rounds
// every input to FLOAT16 (then the product is FLOAT16 x FLOAT16 with fp32 accumulation). Products
// land in fp32 (the user's tensor when it is a plain fp32 matrix, else a workspace panel), and one
// store kernel rounds them once to the output dtype (through FLOAT16 first for USE_FP16).
//
// Determinism (D6): no atomics anywhere (the handles forbid them in cuBLAS too), taps accumulate
// into gradInput in a fixed order by sequential GEMMs on the one stream, the gradBias reduction
// order depends on the problem only, and the cuBLAS workspace has a fixed size set explicitly
// (no hidden allocation, and cuBLAS's choice of kernels sees the same workspace every launch).
// cuBLAS itself is bitwise reproducible for the same shapes, types, workspace size and operand
// alignment on one GPU model and library version.
#include <algorithm>
#include <climits>
#include <cstdint>

#include "api/dtype.h"
#include "backend/cuda/device_guard.cuh"
#include "kernels/cpu/tbc_matrix.h"
#include "ops/conv_tbc_backward/cuda/cublas_pool.h"
#include "ops/conv_tbc_backward/cuda/kernels.h"
#include "ops/conv_tbc_backward/cuda/plan.h"

namespace openaclnn::conv_tbc::cuda {
namespace {

// NVIDIA's recommended cuBLAS workspace for Hopper; cublasSetWorkspace wants 256-byte alignment.
constexpr int64_t kCublasWorkspaceBytes = int64_t{32} << 20;
constexpr int64_t kCublasAlignment = 256;
// Panel rows start 16-element aligned (32 or 64 bytes): what the tensor-core kernels want.
constexpr int64_t kPanelAlign = 16;
// cuBLAS takes int dimensions: larger products are issued in pieces of at most this.
constexpr int64_t kMaxGemmDim = int64_t{1} << 30;
// Packing passes split rows into chunks (one block row each) of at least kMinChunkRows rows. The
// dY pass keeps at most kMaxBiasChunks (its chunks carry the gradBias partial sums, added
// sequentially at the end); the others may use as many as the grid's y dimension holds.
constexpr int64_t kMinChunkRows = 32;
constexpr int64_t kMaxBiasChunks = 512;
constexpr int64_t kMaxPackChunks = 65535;
// Workspace beyond this (1 PiB) means a degenerate problem; the CPU plan runs it host-staged.
constexpr int64_t kMaxWorkspaceBytes = int64_t{1} << 50;
// gradInput issues one product per tap that reaches it; beyond this the CPU plan does better.
constexpr int64_t kMaxTapProducts = 65536;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t m) { return CeilDiv(a, m) * m; }

Rounding RoundingOf(InputRounding rounding) {
  return rounding == InputRounding::kHf32   ? Rounding::kHf32
         : rounding == InputRounding::kHalf ? Rounding::kHalf
                                            : Rounding::kNone;
}

// The dtype the products read: FLOAT for FLOAT and HF32, FLOAT16 for USE_FP16, else the promoted
// 16-bit type (then self, input and weight all have that dtype: see the promotion table).
ElemType ComputeType(const Problem& p) {
  if (p.rounding == InputRounding::kHalf) return ElemType::kFloat16;
  if (p.rounding == InputRounding::kHf32) return ElemType::kFloat32;
  return ToElemType(p.promoted);
}

// `first` is the address of the view's element 0 (TensorDesc::First of the storage).
DeviceView ViewOf(const TensorDesc& d, const void* first) {
  DeviceView v;
  v.first = const_cast<void*>(first);
  v.type = ToElemType(d.dtype);
  if (d.rank == 1) {
    v.dims[0] = v.dims[1] = 1;
    v.dims[2] = d.dims[0];
    v.strides[2] = d.strides[0];
  } else {
    for (int i = 0; i < 3; ++i) {
      v.dims[i] = d.dims[i];
      v.strides[i] = d.strides[i];
    }
  }
  return v;
}

// A matrix operand of the products: the user's view itself or a workspace panel.
struct Operand {
  bool direct = false;
  int64_t panel = -1;      // workspace offset when packed; -1 when neither packed nor used
  int64_t ld = 0;          // row stride, elements
  int64_t tap_stride = 0;  // weight-shaped operands: elements between taps
};

struct Chunking {
  int64_t rows = 1;
  int64_t count = 0;
};

Chunking ChunksFor(int64_t rows, int64_t max_chunks) {
  Chunking c;
  if (rows <= 0) return c;
  c.rows = std::max(kMinChunkRows, CeilDiv(rows, max_chunks));
  c.count = CeilDiv(rows, c.rows);
  return c;
}

// Everything a plan decides in phase 1; also what CudaDeclines inspects.
struct Geometry {
  ElemType ct = ElemType::kFloat32;
  bool self_has = false;  // dY has elements (then T_out, B and Cout are all > 0)
  int64_t rows_y = 0, rows_x = 0;
  bool gx_products = false, gw_products = false;
  // gradWeight: dY time steps [u0, u1) meet some input step; X is packed over padded time
  // [u0, u0 + x_times), padded index t' holding x[t' - pad] or zero.
  int64_t u0 = 0, u1 = 0, x_times = 0;
  // gradInput: taps that reach a row lie in [k_lo, k_hi); `first` covers every row (runs with
  // beta = 0), or -1 (the accumulator is zeroed first).
  int64_t k_lo = 0, k_hi = 0, first = -1;
  bool gx_serial = false, gw_serial = false, gb_serial = false;
  Operand y, x, w, gx, gw;
  Chunking y_chunks, x_chunks, w_chunks;
  // Workspace bytes per booking (0: not booked).
  int64_t y_bytes = 0, x_bytes = 0, w_bytes = 0, gx_bytes = 0, gw_bytes = 0;
  int64_t partial_bytes = 0, cublas_bytes = 0;
};

bool Mul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }

// Bytes of a packed panel rows x ld of `type`; false on overflow or beyond the workspace cap.
bool PanelBytes(int64_t rows, int64_t ld, int64_t esize, int64_t* bytes) {
  int64_t n = 0;
  return Mul(rows, ld, &n) && Mul(n, esize, bytes) && *bytes <= kMaxWorkspaceBytes;
}

// Whether the products may read a view as it is stored: its dtype is the compute type and the
// cubeMathType rounding leaves its values unchanged.
bool ReadsAsStored(const Problem& p, const TensorDesc& d, ElemType ct) {
  if (ToElemType(d.dtype) != ct) return false;
  return p.rounding == InputRounding::kNone ||
         (p.rounding == InputRounding::kHalf && d.dtype == ACL_FLOAT16);
}

const char* MakeGeometry(const Problem& p, Geometry* g) {
  g->ct = ComputeType(p);
  const int64_t ct_bytes = static_cast<int64_t>(ElemSize(g->ct));
  const int64_t x_numel = p.input.Numel(), w_numel = p.weight.Numel();
  g->self_has = p.self.Numel() > 0;
  // Numel of a non-empty view is at most 2^40 (CheckTensorExtent), so these products fit.
  g->rows_y = g->self_has ? p.t_out * p.batch : 0;
  g->rows_x = x_numel > 0 ? p.t_in * p.batch : 0;
  g->gx_serial = MayOverlap(p.grad_input);
  g->gw_serial = MayOverlap(p.grad_weight);
  g->gb_serial = MayOverlap(p.grad_bias);

  g->gx_products = x_numel > 0 && g->self_has && p.taps > 0;
  if (g->gx_products) {
    // Tap k reaches gradInput time steps [k - pad, T_out + k - pad) within [0, T_in): some step
    // for k in [k_lo, k_hi), every step for k in [K - 1 - pad, pad]. The first of those (it is
    // >= k_lo since T_in > 0) covers the whole accumulator.
    g->k_lo = std::max<int64_t>(0, p.pad - p.t_out + 1);
    g->k_hi = std::min<int64_t>(p.taps, p.pad + p.t_in);
    const int64_t covering = std::max<int64_t>(0, p.taps - 1 - p.pad);
    g->first = covering <= p.pad ? covering : -1;
    if (g->k_hi - g->k_lo > kMaxTapProducts) {
      return "more than 65536 taps reach gradInput: too many tiny products for the GPU";
    }
  }
  if (w_numel > 0 && g->self_has && x_numel > 0) {
    g->u0 = std::max<int64_t>(0, p.pad - p.taps + 1);
    g->u1 = std::min<int64_t>(p.t_out, p.t_in + p.pad);
    g->gw_products = g->u1 > g->u0;
    g->x_times = g->gw_products ? g->u1 - g->u0 + p.taps - 1 : 0;  // at most T_in + 2K - 2
  }

  // Leading dimensions are ints in cuBLAS; a packed panel needs one above its channel count.
  auto panel_ld = [](int64_t cols, int64_t* ld) {
    *ld = RoundUp(std::max<int64_t>(cols, 1), kPanelAlign);
    return *ld <= INT_MAX;
  };
  // A view the products may read or write as it is, as a row-major (per tap) matrix.
  auto row_matrix = [](const TensorDesc& d, int64_t* ld) {
    return cpu::RowMatrixLd(d, ld) && *ld <= INT_MAX;
  };
  auto tap_matrix = [](const TensorDesc& d, int64_t* ld, int64_t* tap_stride) {
    return cpu::TapMatrixLd(d, ld, tap_stride) && *ld <= INT_MAX;
  };
  const char* kTooWide = "a channel count above 2^31 - 16 is no cuBLAS leading dimension";
  const char* kTooLarge = "the packed operands would need more than 2^50 bytes of workspace";

  if (g->gx_products || g->gw_products) {
    Operand& y = g->y;
    y.direct = ReadsAsStored(p, p.self, g->ct) && row_matrix(p.self, &y.ld);
    if (!y.direct) {
      if (!panel_ld(p.c_out, &y.ld)) return kTooWide;
      if (!PanelBytes(g->rows_y, y.ld, ct_bytes, &g->y_bytes)) return kTooLarge;
    }
  }
  if (g->gx_products) {
    Operand& w = g->w;
    w.direct = ReadsAsStored(p, p.weight, g->ct) && tap_matrix(p.weight, &w.ld, &w.tap_stride);
    if (!w.direct) {
      if (!panel_ld(p.c_out, &w.ld)) return kTooWide;
      w.tap_stride = p.c_in * w.ld;
      if (!PanelBytes(p.taps * p.c_in, w.ld, ct_bytes, &g->w_bytes)) return kTooLarge;
      g->w_chunks = ChunksFor(p.taps * p.c_in, kMaxPackChunks);
    }
    Operand& gx = g->gx;
    gx.direct = p.grad_input.dtype == ACL_FLOAT && !p.round_result_to_half && !g->gx_serial &&
                row_matrix(p.grad_input, &gx.ld);
    if (!gx.direct) {
      if (!panel_ld(p.c_in, &gx.ld)) return kTooWide;
      if (!PanelBytes(g->rows_x, gx.ld, 4, &g->gx_bytes)) return kTooLarge;
    }
  }
  if (g->gw_products) {
    // X is read as stored only when its window is X itself: pad 0 (the window is [0, T_in)) or a
    // single tap (the window is [pad, pad + T_in)).
    Operand& x = g->x;
    x.direct = (p.pad == 0 || p.taps == 1) && ReadsAsStored(p, p.input, g->ct) &&
               row_matrix(p.input, &x.ld);
    if (!x.direct) {
      if (!panel_ld(p.c_in, &x.ld)) return kTooWide;
      int64_t rows = 0;
      if (!Mul(g->x_times, p.batch, &rows)) return kTooLarge;
      if (!PanelBytes(rows, x.ld, ct_bytes, &g->x_bytes)) return kTooLarge;
      g->x_chunks = ChunksFor(rows, kMaxPackChunks);
    }
    Operand& gw = g->gw;
    gw.direct = p.grad_weight.dtype == ACL_FLOAT && !p.round_result_to_half && !g->gw_serial &&
                tap_matrix(p.grad_weight, &gw.ld, &gw.tap_stride);
    if (!gw.direct) {
      if (!panel_ld(p.c_out, &gw.ld)) return kTooWide;
      gw.tap_stride = p.c_in * gw.ld;
      if (!PanelBytes(p.taps * p.c_in, gw.ld, 4, &g->gw_bytes)) return kTooLarge;
    }
  }
  if (g->self_has) {
    g->y_chunks = ChunksFor(g->rows_y, kMaxBiasChunks);
    g->partial_bytes = g->y_chunks.count * p.c_out * 4;  // at most 2^9 * 2^40 * 4
  }
  if (g->gx_products || g->gw_products) g->cublas_bytes = kCublasWorkspaceBytes + kCublasAlignment;
  int64_t total = 0;
  for (int64_t b : {g->y_bytes, g->x_bytes, g->w_bytes, g->gx_bytes, g->gw_bytes, g->partial_bytes,
                    g->cublas_bytes}) {
    total += b;
    if (total > kMaxWorkspaceBytes) return kTooLarge;
  }
  return nullptr;
}

// Row-major operand of a product as cuBLAS sees it: pointer, row stride and batch stride, all in
// elements of the operand's type.
struct Mat {
  const void* ptr;
  int64_t ld;
  int64_t batch_stride;
};

class CudaPlan : public Plan {
 public:
  CudaPlan(const Problem& p, const Geometry& g, WorkspaceBooking* ws) : p_(p), g_(g) {
    auto book = [&](int64_t bytes) {
      return bytes > 0 ? static_cast<int64_t>(ws->Book(static_cast<size_t>(bytes))) : -1;
    };
    if (!g_.y.direct) g_.y.panel = book(g_.y_bytes);
    if (!g_.x.direct) g_.x.panel = book(g_.x_bytes);
    if (!g_.w.direct) g_.w.panel = book(g_.w_bytes);
    if (!g_.gx.direct) g_.gx.panel = book(g_.gx_bytes);
    if (!g_.gw.direct) g_.gw.panel = book(g_.gw_bytes);
    partials_ = book(g_.partial_bytes);
    cublas_ = book(g_.cublas_bytes);
  }

  Status Run(const Bindings&, void*) const override {
    return ErrorStatus(ACLNN_ERR_INNER,
                       "the cuda_cublas plan of aclnnConvTbcBackward is a CUDA plan: it runs "
                       "through Launch on a CUDA stream, not on the CPU");
  }

  Status Launch(const Bindings& bindings, void* workspace, void* cuda_stream) const override {
    const cudaStream_t stream = static_cast<cudaStream_t>(cuda_stream);
    openaclnn::cuda::StreamDeviceGuard guard;
    OPENACLNN_RETURN_IF_ERROR(guard.Enter(stream, "aclnnConvTbcBackward"));

    Pointers ptr;
    ptr.y = p_.self.First(bindings.inputs[kSelf]);
    ptr.x = p_.input.First(bindings.inputs[kInput]);
    ptr.w = p_.weight.First(bindings.inputs[kWeight]);
    ptr.gx = p_.grad_input.First(bindings.outputs[kGradInput]);
    ptr.gw = p_.grad_weight.First(bindings.outputs[kGradWeight]);
    ptr.gb = p_.grad_bias.First(bindings.outputs[kGradBias]);
    auto at = [&](int64_t offset) -> void* {
      return offset < 0
                 ? nullptr
                 : WorkspaceBooking::At<unsigned char>(workspace, static_cast<size_t>(offset));
    };
    // Operands: the user's view when direct, else the panel.
    const void* y = g_.y.direct ? ptr.y : at(g_.y.panel);
    const void* x = g_.x.direct ? ptr.x : at(g_.x.panel);
    const void* w = g_.w.direct ? ptr.w : at(g_.w.panel);
    float* gx = static_cast<float*>(g_.gx.direct ? ptr.gx : at(g_.gx.panel));
    float* gw = static_cast<float*>(g_.gw.direct ? ptr.gw : at(g_.gw.panel));
    float* partials = static_cast<float*>(at(partials_));

    // 1. One pass over dY: the gradBias partials (from dY as stored), and the dY panel when the
    // products cannot read dY as it is.
    if (g_.self_has) {
      PackArgs a;
      a.src = ViewOf(p_.self, ptr.y);
      a.rounding = RoundingOf(p_.rounding);
      a.panel_times = p_.t_out;
      a.panel = g_.y.direct ? nullptr : at(g_.y.panel);
      a.panel_type = g_.ct;
      a.ld = g_.y.ld;
      a.chunk_rows = g_.y_chunks.rows;
      a.chunks = g_.y_chunks.count;
      a.partials = partials;
      OPENACLNN_RETURN_IF_ERROR(Check(LaunchPack(a, stream), "dY pack and gradBias partials"));
    }
    // 2. gradBias: the partials in chunk order (zeros when dY is empty).
    if (p_.c_out > 0) {
      OPENACLNN_RETURN_IF_ERROR(
          Check(LaunchBiasFinish(partials, g_.self_has ? g_.y_chunks.count : 0, p_.c_out,
                                 ViewOf(p_.grad_bias, ptr.gb), g_.gb_serial, stream),
                "gradBias"));
    }
    // 3. Panels of W and of X's padded time window.
    if (g_.gx_products && !g_.w.direct) {
      PackArgs a;
      a.src = ViewOf(p_.weight, ptr.w);
      a.rounding = RoundingOf(p_.rounding);
      a.panel_times = p_.taps;
      a.panel = at(g_.w.panel);
      a.panel_type = g_.ct;
      a.ld = g_.w.ld;
      a.chunk_rows = g_.w_chunks.rows;
      a.chunks = g_.w_chunks.count;
      OPENACLNN_RETURN_IF_ERROR(Check(LaunchPack(a, stream), "weight pack"));
    }
    if (g_.gw_products && !g_.x.direct) {
      PackArgs a;
      a.src = ViewOf(p_.input, ptr.x);
      a.rounding = RoundingOf(p_.rounding);
      a.time_shift = g_.u0 - p_.pad;
      a.panel_times = g_.x_times;
      a.panel = at(g_.x.panel);
      a.panel_type = g_.ct;
      a.ld = g_.x.ld;
      a.chunk_rows = g_.x_chunks.rows;
      a.chunks = g_.x_chunks.count;
      OPENACLNN_RETURN_IF_ERROR(Check(LaunchPack(a, stream), "input pack"));
    }

    // 4. The products, on a leased handle bound to this stream and this launch's workspace.
    CublasLease lease;
    if (g_.gx_products || g_.gw_products) {
      OPENACLNN_RETURN_IF_ERROR(lease.Acquire(guard.device()));
      cublasStatus_t s = Cublas()->set_stream(lease.get(), stream);
      if (s != CUBLAS_STATUS_SUCCESS) return CublasError("cublasSetStream", "launch", s);
      // After cublasSetStream, which resets the handle to its default workspace pool.
      uintptr_t cw = reinterpret_cast<uintptr_t>(at(cublas_));
      cw = (cw + kCublasAlignment - 1) / kCublasAlignment * kCublasAlignment;
      s = Cublas()->set_workspace(lease.get(), reinterpret_cast<void*>(cw),
                                  static_cast<size_t>(kCublasWorkspaceBytes));
      if (s != CUBLAS_STATUS_SUCCESS) return CublasError("cublasSetWorkspace", "launch", s);
    }
    const int64_t B = p_.batch;
    if (g_.gw_products) {
      // gradWeight[k]^T (Cout x Cin) = dY window^T (Cout x R) x Xpad rows [k*B, k*B + R) (R x Cin).
      const int64_t R = (g_.u1 - g_.u0) * B;
      const Mat a{Advance(y, g_.u0 * B * g_.y.ld), g_.y.ld, 0};
      const Mat b{x, g_.x.ld, B * g_.x.ld};
      OPENACLNN_RETURN_IF_ERROR(Gemm(lease.get(), "gradWeight", CUBLAS_OP_N, CUBLAS_OP_T, p_.c_out,
                                     p_.c_in, R, a, b, 0.0f, gw, g_.gw.ld, g_.gw.tap_stride,
                                     p_.taps));
    }
    OPENACLNN_RETURN_IF_ERROR(FinishOutput(g_.gw_products, g_.gw.direct, gw, g_.gw.ld,
                                           p_.grad_weight, ptr.gw, g_.gw_serial, stream,
                                           "gradWeight store"));
    if (g_.gx_products) {
      if (g_.first < 0) {
        OPENACLNN_RETURN_IF_ERROR(
            Check(LaunchZeroRows(gx, g_.rows_x, p_.c_in, g_.gx.ld, stream), "gradInput zero"));
      }
      auto tap = [&](int64_t k) -> Status {
        const int64_t lo = std::clamp<int64_t>(k - p_.pad, 0, p_.t_in);
        const int64_t hi = std::clamp<int64_t>(p_.t_out + k - p_.pad, 0, p_.t_in);
        if (lo >= hi) return Status::Ok();
        // gradInput rows^T (Cin x n) += W[k] (Cin x Cout) x dY rows^T (Cout x n).
        const Mat a{Advance(w, k * g_.w.tap_stride), g_.w.ld, 0};
        const Mat b{Advance(y, (lo + p_.pad - k) * B * g_.y.ld), g_.y.ld, 0};
        return Gemm(lease.get(), "gradInput tap", CUBLAS_OP_T, CUBLAS_OP_N, p_.c_in, (hi - lo) * B,
                    p_.c_out, a, b, k == g_.first ? 0.0f : 1.0f, gx + lo * B * g_.gx.ld, g_.gx.ld,
                    0, 1);
      };
      // Fixed order: the covering tap (beta 0), then every other tap in increasing k (beta 1).
      if (g_.first >= 0) OPENACLNN_RETURN_IF_ERROR(tap(g_.first));
      for (int64_t k = g_.k_lo; k < g_.k_hi; ++k) {
        if (k != g_.first) OPENACLNN_RETURN_IF_ERROR(tap(k));
      }
    }
    return FinishOutput(g_.gx_products, g_.gx.direct, gx, g_.gx.ld, p_.grad_input, ptr.gx,
                        g_.gx_serial, stream, "gradInput store");
  }

 private:
  struct Pointers {
    const void *y, *x, *w;
    void *gx, *gw, *gb;
  };

  static Status Check(cudaError_t e, const char* what) {
    return e == cudaSuccess ? Status::Ok() : CudaError("kernel launch", what, e);
  }

  // `elements` of the compute type further on.
  const void* Advance(const void* p, int64_t elements) const {
    return static_cast<const unsigned char*>(p) + elements * static_cast<int64_t>(ElemSize(g_.ct));
  }

  // Stores an fp32 accumulator into its output view (nothing when the products wrote the view
  // directly), or zeros when there were no products.
  Status FinishOutput(bool products, bool direct, const float* acc, int64_t ld,
                      const TensorDesc& desc, void* dst, bool serial, cudaStream_t stream,
                      const char* what) const {
    if (desc.Numel() == 0 || (products && direct)) return Status::Ok();
    return Check(LaunchStore(products ? acc : nullptr, ld, p_.round_result_to_half,
                             ViewOf(desc, dst), serial, stream),
                 what);
  }

  // Row-major C (batch x [rows(op A) x cols(op B)]) = op(A) op(B) + beta C, issued as the
  // column-major product C^T = op(B)^T op(A)^T, in pieces of at most kMaxGemmDim per dimension;
  // pieces of the reduction accumulate in order with beta = 1.
  //
  // Arguments are in cuBLAS terms already: m, n, k and op_a/op_b describe the column-major call
  // (A is the m x k operand), so the callers pass the swapped operands.
  Status Gemm(cublasHandle_t handle, const char* what, cublasOperation_t op_a,
              cublasOperation_t op_b, int64_t m, int64_t n, int64_t k, const Mat& a, const Mat& b,
              float beta, float* c, int64_t ldc, int64_t stride_c, int64_t batch) const {
    const cudaDataType ab_type = g_.ct == ElemType::kFloat16    ? CUDA_R_16F
                                 : g_.ct == ElemType::kBFloat16 ? CUDA_R_16BF
                                                                : CUDA_R_32F;
    // FLOAT: pedantic fp32 (never TF32). 16-bit: tensor cores with fp32 accumulation.
    const cublasComputeType_t compute =
        g_.ct == ElemType::kFloat32 ? CUBLAS_COMPUTE_32F_PEDANTIC : CUBLAS_COMPUTE_32F;
    const float one = 1.0f;
    for (int64_t b0 = 0; b0 < batch; b0 += kMaxGemmDim) {
      const int64_t nb = std::min(kMaxGemmDim, batch - b0);
      for (int64_t m0 = 0; m0 < m; m0 += kMaxGemmDim) {
        const int64_t mc = std::min(kMaxGemmDim, m - m0);
        for (int64_t n0 = 0; n0 < n; n0 += kMaxGemmDim) {
          const int64_t nc = std::min(kMaxGemmDim, n - n0);
          for (int64_t k0 = 0; k0 < k; k0 += kMaxGemmDim) {
            const int64_t kc = std::min(kMaxGemmDim, k - k0);
            const float beta_piece = k0 == 0 ? beta : 1.0f;
            const void* ap =
                Advance(a.ptr, b0 * a.batch_stride +
                                   (op_a == CUBLAS_OP_N ? m0 + k0 * a.ld : k0 + m0 * a.ld));
            const void* bp =
                Advance(b.ptr, b0 * b.batch_stride +
                                   (op_b == CUBLAS_OP_N ? k0 + n0 * b.ld : n0 + k0 * b.ld));
            float* cp = c + b0 * stride_c + m0 + n0 * ldc;
            cublasStatus_t s;
            if (nb == 1) {
              s = Cublas()->gemm_ex(handle, op_a, op_b, static_cast<int>(mc), static_cast<int>(nc),
                                    static_cast<int>(kc), &one, ap, ab_type, static_cast<int>(a.ld),
                                    bp, ab_type, static_cast<int>(b.ld), &beta_piece, cp,
                                    CUDA_R_32F, static_cast<int>(ldc), compute,
                                    CUBLAS_GEMM_DEFAULT);
            } else {
              s = Cublas()->gemm_strided_batched_ex(
                  handle, op_a, op_b, static_cast<int>(mc), static_cast<int>(nc),
                  static_cast<int>(kc), &one, ap, ab_type, static_cast<int>(a.ld), a.batch_stride,
                  bp, ab_type, static_cast<int>(b.ld), b.batch_stride, &beta_piece, cp, CUDA_R_32F,
                  static_cast<int>(ldc), stride_c, static_cast<int>(nb), compute,
                  CUBLAS_GEMM_DEFAULT);
            }
            if (s != CUBLAS_STATUS_SUCCESS) {
              return CublasError(nb == 1 ? "cublasGemmEx" : "cublasGemmStridedBatchedEx", what, s);
            }
          }
        }
      }
    }
    return Status::Ok();
  }

  Problem p_;
  Geometry g_;
  int64_t partials_ = -1;
  int64_t cublas_ = -1;
};

}  // namespace

const char* CudaDeclines(const Problem& problem) {
  Geometry g;
  if (const char* why = MakeGeometry(problem, &g)) return why;
  // Without cuBLAS the products cannot run here; the CPU plan then runs host-staged.
  if ((g.gx_products || g.gw_products) && Cublas() == nullptr) return "cuBLAS cannot be loaded";
  return nullptr;
}

std::unique_ptr<Plan> MakeCudaPlan(const Problem& problem, WorkspaceBooking* workspace) {
  Geometry g;
  (void)MakeGeometry(problem, &g);  // CudaDeclines accepted the problem
  return std::make_unique<CudaPlan>(problem, g, workspace);
}

}  // namespace openaclnn::conv_tbc::cuda

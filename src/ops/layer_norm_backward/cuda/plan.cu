// The CUDA plan of LayerNorm backward: layout analysis and workspace layout in phase 1; in
// phase 2, up to three launches on the caller's stream:
//   1. GatherWeightKernel  (only for a non-contiguous weight view): weight -> fp32 workspace row;
//   2. the row kernel      (M > 0): dx and per-chunk fp32 column partials;
//   3. FinishParamsKernel  (gradWeight or gradBias wanted): partials summed per column in chunk
//      order, rounded once into the outputs' dtypes and views.
#include <algorithm>
#include <cstdint>

#include "api/dtype.h"
#include "api/layout.h"
#include "backend/cuda/device_guard.cuh"
#include "ops/layer_norm_backward/cuda/kernels.cuh"
#include "ops/layer_norm_backward/cuda/plan.h"

namespace openaclnn::layer_norm_backward::cuda {
namespace {

// Chunks of rows: about kTargetChunks of them (two CTAs per SM on a 132-SM H100/H200 keep
// the memory system busy), whole steps of the row kernel, at most kMaxRowsPerChunk rows (fp32
// column sums of at most 4096 terms), and at most kMaxPartialFloats floats per partial array.
constexpr int64_t kTargetChunks = 256;
constexpr int64_t kMaxRowsPerChunk = 4096;
constexpr int64_t kMaxPartialFloats = int64_t{1} << 23;  // 32 MiB per array
// The streamed kernel keeps its partials in shared memory up to this size (two 512-thread CTAs
// per SM still fit), in the workspace (L2) beyond.
constexpr size_t kMaxSmemPartials = 96 * 1024;
constexpr int64_t kMaxGrid = int64_t{1} << 20;  // CTAs loop over chunks beyond this
constexpr int kFinishColumns = 32;
constexpr int kFinishSlices = 8;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

bool Aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// Rows per chunk: a function of the problem only (M, N and the kernel, which N and the input
// dtype choose), never of the GPU, so the partials and their order are the same everywhere.
int64_t RowsPerChunk(int64_t m, int64_t n_pad, int64_t rows_per_step, bool partials) {
  if (m <= 0) return rows_per_step;
  int64_t rows = std::max(CeilDiv(m, kTargetChunks), rows_per_step);
  rows = RoundUp(rows, rows_per_step);
  rows = std::min(rows, std::max(kMaxRowsPerChunk, rows_per_step));
  if (partials) {
    const int64_t max_chunks = std::max<int64_t>(1, kMaxPartialFloats / n_pad);
    if (CeilDiv(m, rows) > max_chunks) rows = RoundUp(CeilDiv(m, max_chunks), rows_per_step);
  }
  return rows;
}

struct FinishParams {
  int64_t n = 0;
  int64_t n_pad = 0;
  int64_t chunks = 0;
  const float* part_gw = nullptr;  // nullptr: the gradWeight sums are 0 (M == 0 or N == 1)
  const float* part_gb = nullptr;  // nullptr: M == 0
  void* gw = nullptr;              // view element 0; nullptr when not wanted
  void* gb = nullptr;
  ElemType gw_dt = ElemType::kFloat32;
  ElemType gb_dt = ElemType::kFloat32;
  MultiStrided<1> gw_view;
  MultiStrided<1> gb_view;
};

// Column sums of the partials: 32 columns x 8 slices per CTA; slice s adds chunks s, s + 8, ...
// in order, then the 8 slice sums are added in slice order. Fixed for a given chunk count.
__global__ void __launch_bounds__(kFinishColumns* kFinishSlices)
    FinishParamsKernel(const __grid_constant__ FinishParams f) {
  __shared__ float sums[2][kFinishSlices][kFinishColumns + 1];
  const int tx = static_cast<int>(threadIdx.x) % kFinishColumns;
  const int slice = static_cast<int>(threadIdx.x) / kFinishColumns;
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * kFinishColumns; base < f.n;
       base += static_cast<int64_t>(gridDim.x) * kFinishColumns) {
    const int64_t col = base + tx;
    float acc_w = 0.0f, acc_b = 0.0f;
    if (col < f.n) {
      if (f.part_gw != nullptr) {
#pragma unroll 4
        for (int64_t c = slice; c < f.chunks; c += kFinishSlices) {
          acc_w = __fadd_rn(acc_w, f.part_gw[c * f.n_pad + col]);
        }
      }
      if (f.part_gb != nullptr) {
#pragma unroll 4
        for (int64_t c = slice; c < f.chunks; c += kFinishSlices) {
          acc_b = __fadd_rn(acc_b, f.part_gb[c * f.n_pad + col]);
        }
      }
    }
    sums[0][slice][tx] = acc_w;
    sums[1][slice][tx] = acc_b;
    __syncthreads();
    if (slice == 0 && col < f.n) {
      float w = sums[0][0][tx];
      float b = sums[1][0][tx];
#pragma unroll
      for (int s = 1; s < kFinishSlices; ++s) {
        w = __fadd_rn(w, sums[0][s][tx]);
        b = __fadd_rn(b, sums[1][s][tx]);
      }
      if (f.gw != nullptr) {
        int64_t off[1];
        OffsetsAt(f.gw_view, col, off);
        StoreAs(f.gw, f.gw_dt, off[0], w);
      }
      if (f.gb != nullptr) {
        int64_t off[1];
        OffsetsAt(f.gb_view, col, off);
        StoreAs(f.gb, f.gb_dt, off[0], b);
      }
    }
    __syncthreads();
  }
}

struct GatherParams {
  const void* weight = nullptr;
  ElemType dt = ElemType::kFloat32;
  int64_t n = 0;
  float* out = nullptr;
  MultiStrided<1> view;
};

// A non-contiguous weight view, widened once into a contiguous fp32 row.
__global__ void __launch_bounds__(256) GatherWeightKernel(const __grid_constant__ GatherParams g) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < g.n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t off[1];
    OffsetsAt(g.view, i, off);
    g.out[i] = LoadAs(g.weight, g.dt, off[0]);
  }
}

unsigned GridFor(int64_t work_items, int64_t per_cta) {
  return static_cast<unsigned>(std::clamp<int64_t>(CeilDiv(work_items, per_cta), 1, kMaxGrid));
}

class CudaPlan final : public Plan {
 public:
  CudaPlan(const Problem& p, WorkspaceBooking* ws) : p_(p) {
    const int64_t m = p.m;
    const int64_t n = p.n;
    const int in_size = static_cast<int>(DTypeSize(p.input.dtype));
    const int vec = 16 / in_size;
    RowParams& r = rows_;
    r.m = m;
    r.n = n;
    r.n_pad = RoundUp(std::max<int64_t>(n, 1), 32);
    r.dx_dt = ToElemType(p.mask[0] ? p.grad_input.dtype : ACL_FLOAT);
    r.mean_dt = ToElemType(p.mean.dtype);
    r.rstd_dt = ToElemType(p.rstd.dtype);
    r.want_dx = p.mask[0];
    r.want_gw = p.mask[1] && n > 1 && m > 0;  // N == 1: gradWeight is exactly 0
    r.want_gb = p.mask[2] && m > 0;
    // Without gradInput, its stride set repeats dy's so it never blocks a merge.
    const TensorDesc& dx_desc = p.mask[0] ? p.grad_input : p.grad_out;
    const int64_t* row_sets[3] = {p.grad_out.strides.data(), p.input.strides.data(),
                                  dx_desc.strides.data()};
    r.lead = Collapse<3>(p.input.dims.data(), 0, p.begin, row_sets);
    r.trail = Collapse<3>(p.input.dims.data(), p.begin, p.input.rank, row_sets);
    r.contiguous_rows = r.trail.AllUnitStride();
    const int64_t* stat_sets[2] = {p.mean.strides.data(), p.rstd.strides.data()};
    r.stat = Collapse<2>(p.mean.dims.data(), 0, p.mean.rank, stat_sets);
    // Every row start keeps the 16-byte alignment of element 0 when each leading stride is a
    // multiple of 16 bytes (checked for the base addresses at launch).
    const int64_t sizes[3] = {in_size, in_size, static_cast<int64_t>(DTypeSize(dx_desc.dtype))};
    lead_aligned_ = true;
    for (int d = 0; d < r.lead.rank; ++d) {
      for (int k = 0; k < 3; ++k) lead_aligned_ &= (r.lead.strides[k][d] * sizes[k]) % 16 == 0;
    }

    config_ = ChooseRowKernel(n, vec, r.contiguous_rows);
    const int64_t rows_per_step = config_.streamed ? 1 : config_.threads / config_.group;
    const bool partials = r.want_gw || r.want_gb;
    r.rows_per_chunk = RowsPerChunk(m, r.n_pad, rows_per_step, partials);
    r.chunks = m > 0 ? CeilDiv(m, r.rows_per_chunk) : 0;
    config_.grid = static_cast<unsigned>(std::clamp<int64_t>(r.chunks, 1, kMaxGrid));
    if (config_.streamed && partials) {
      const size_t bytes = static_cast<size_t>((r.want_gw ? 1 : 0) + (r.want_gb ? 1 : 0)) *
                           static_cast<size_t>(r.n_pad) * sizeof(float);
      if (bytes <= kMaxSmemPartials) {
        r.parts_in_smem = true;
        config_.smem = bytes;
      }
    }

    // The weight only enters dx. A view that is not one contiguous run is gathered first.
    use_weight_ = p.has_weight && r.want_dx && m > 0;
    if (use_weight_) {
      weight_view_ = CollapsedView(p.weight);
      if (!weight_view_.AllUnitStride()) {
        weight_offset_ = ws->Book(static_cast<size_t>(n) * sizeof(float));
        gather_weight_ = true;
      }
    }
    if (r.want_gw) gw_offset_ = ws->Book(static_cast<size_t>(r.chunks * r.n_pad) * sizeof(float));
    if (r.want_gb) gb_offset_ = ws->Book(static_cast<size_t>(r.chunks * r.n_pad) * sizeof(float));

    finish_.n = n;
    finish_.n_pad = r.n_pad;
    finish_.chunks = r.chunks;
    if (p.mask[1]) {
      finish_.gw_dt = ToElemType(p.grad_weight.dtype);
      finish_.gw_view = CollapsedView(p.grad_weight);
    }
    if (p.mask[2]) {
      finish_.gb_dt = ToElemType(p.grad_bias.dtype);
      finish_.gb_view = CollapsedView(p.grad_bias);
    }
  }

  Status Run(const Bindings&, void*) const override {
    return ErrorStatus(ACLNN_ERR_INNER,
                       "aclnnLayerNormBackward: the cuda_rows plan is a CUDA plan; it runs only "
                       "through Launch on a CUDA stream");
  }

  Status Launch(const Bindings& b, void* workspace, void* cuda_stream) const override {
    const Problem& p = p_;
    cudaStream_t stream = static_cast<cudaStream_t>(cuda_stream);
    RowParams r = rows_;
    if (p.n == 0) return Status::Ok();  // every output is empty
    // Kernels go to the current device: make it the stream's for this launch.
    openaclnn::cuda::StreamDeviceGuard guard;
    OPENACLNN_RETURN_IF_ERROR(guard.Enter(stream, "aclnnLayerNormBackward"));

    // The row kernel has work unless only gradWeight of N == 1 rows (exactly 0) is wanted.
    if (p.m > 0 && (r.want_dx || r.want_gw || r.want_gb)) {
      r.dy = p.grad_out.First(static_cast<const void*>(b.inputs[kGradOut]));
      r.x = p.input.First(static_cast<const void*>(b.inputs[kInput]));
      r.mean = p.mean.First(static_cast<const void*>(b.inputs[kMean]));
      r.rstd = p.rstd.First(static_cast<const void*>(b.inputs[kRstd]));
      if (p.mask[0]) r.dx = p.grad_input.First(b.outputs[kGradInput]);
      if (use_weight_) {
        const void* weight = p.weight.First(static_cast<const void*>(b.inputs[kWeight]));
        if (gather_weight_) {
          GatherParams g;
          g.weight = weight;
          g.dt = ToElemType(p.weight.dtype);
          g.n = p.n;
          g.out = WorkspaceBooking::At<float>(workspace, weight_offset_);
          g.view = weight_view_;
          GatherWeightKernel<<<GridFor(p.n, 256), 256, 0, stream>>>(g);
          OPENACLNN_RETURN_IF_ERROR(CheckLaunch("GatherWeightKernel (LayerNorm backward)"));
          r.weight = g.out;
          r.weight_dt = ElemType::kFloat32;
        } else {
          r.weight = weight;
          r.weight_dt = ToElemType(p.weight.dtype);
        }
        r.vec_weight = Aligned16(r.weight);
      }
      r.vec_rows = r.contiguous_rows && lead_aligned_ && Aligned16(r.dy) && Aligned16(r.x) &&
                   (!r.want_dx || Aligned16(r.dx));
      if (r.want_gw) r.part_gw = WorkspaceBooking::At<float>(workspace, gw_offset_);
      if (r.want_gb) r.part_gb = WorkspaceBooking::At<float>(workspace, gb_offset_);
      Status launched;
      switch (p.input.dtype) {
        case ACL_FLOAT16:
          launched = LaunchRowsF16(r, config_, stream);
          break;
        case ACL_BF16:
          launched = LaunchRowsBF16(r, config_, stream);
          break;
        default:
          launched = LaunchRowsF32(r, config_, stream);
          break;
      }
      OPENACLNN_RETURN_IF_ERROR(launched);
    }

    if (p.mask[1] || p.mask[2]) {
      FinishParams f = finish_;
      f.part_gw = r.part_gw;
      f.part_gb = r.part_gb;
      if (p.mask[1]) f.gw = p.grad_weight.First(b.outputs[kGradWeight]);
      if (p.mask[2]) f.gb = p.grad_bias.First(b.outputs[kGradBias]);
      FinishParamsKernel<<<GridFor(p.n, kFinishColumns), kFinishColumns * kFinishSlices, 0,
                           stream>>>(f);
      OPENACLNN_RETURN_IF_ERROR(CheckLaunch("FinishParamsKernel (LayerNorm backward)"));
    }
    return Status::Ok();
  }

 private:
  const Problem p_;
  RowParams rows_;
  RowConfig config_;
  FinishParams finish_;
  bool lead_aligned_ = false;
  bool use_weight_ = false;
  bool gather_weight_ = false;
  MultiStrided<1> weight_view_;
  size_t weight_offset_ = 0;
  size_t gw_offset_ = 0;
  size_t gb_offset_ = 0;
};

}  // namespace

// An output whose elements may share an address (a stride of 0, interleaved strides) has no
// defined write order across GPU threads; the CPU plan, run host-staged, writes it in row-major
// order, deterministically.
const char* CudaDeclines(const Problem& p) {
  const TensorDesc* outputs[3] = {&p.grad_input, &p.grad_weight, &p.grad_bias};
  for (int i = 0; i < 3; ++i) {
    if (p.mask[i] && !CertainlyDisjoint(*outputs[i])) {
      return "an output's elements may share addresses";
    }
  }
  return nullptr;
}

std::unique_ptr<Plan> MakeCudaPlan(const Problem& problem, WorkspaceBooking* workspace) {
  return std::make_unique<CudaPlan>(problem, workspace);
}

}  // namespace openaclnn::layer_norm_backward::cuda

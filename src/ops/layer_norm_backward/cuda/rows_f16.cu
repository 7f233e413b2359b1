// The row kernels of the CUDA LayerNorm backward for FLOAT16 input (one file per input
// type, so the instantiations compile in parallel).
#include "ops/layer_norm_backward/cuda/kernels.cuh"

namespace openaclnn::layer_norm_backward::cuda {

Status LaunchRowsF16(const RowParams& p, const RowConfig& c, cudaStream_t stream) {
  return LaunchRows<__half>(p, c, stream);
}

}  // namespace openaclnn::layer_norm_backward::cuda

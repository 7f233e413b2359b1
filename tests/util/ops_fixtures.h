#pragma once
// Both backward operators on small, fixed problems, through the public API: used by the guard-band,
// hostile-size and concurrency tests. Inputs are deterministic functions of the element index.

#include <cstdint>
#include <memory>
#include <vector>

#include "aclnnop/aclnn_convolution_backward.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "util/device_tensor.h"

namespace openaclnn::test {

// Phase 1, phase 2 with a fresh workspace, synchronise. Returns the first failing status.
aclnnStatus RunTwoPhase(aclnnStatus phase1_status, uint64_t workspace_size, aclOpExecutor* executor,
                        aclrtStream stream,
                        aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream));

struct OutputLayout {
  int64_t gap = 0, offset = 0, tail = 0;
};

// LayerNorm backward on input (lead..., norm...) with the statistics of the data.
struct LayerNormCase {
  LayerNormCase(std::vector<int64_t> lead, std::vector<int64_t> norm, aclDataType dtype,
                const bool mask[3], OutputLayout layout, aclDataType out_dtype);
  aclnnStatus Run(aclrtStream stream, bool pass_unmasked_outputs = true);
  std::vector<int64_t> shape, stat_shape, norm;
  bool mask[3];
  std::unique_ptr<DeviceTensor> dy, x, mean, rstd, weight, gx, gw, gb;
};

// ConvTBC backward with T_out = t_in + 2 pad + 1 - k.
struct ConvTbcCase {
  ConvTbcCase(int64_t t_in, int64_t batch, int64_t c_in, int64_t c_out, int64_t k, int64_t pad,
              aclDataType dtype, OutputLayout layout);
  aclnnStatus Run(aclrtStream stream);
  int64_t pad;
  std::unique_ptr<DeviceTensor> dy, x, w, bias, gx, gw, gb;
};

}  // namespace openaclnn::test

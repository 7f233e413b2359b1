#pragma once
// Helpers for the LayerNorm backward tests: the layouts (lnb_layouts.h, on test::DeviceTensor),
// the two-phase call, and the float64 golden on dense arrays.

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "ops/layer_norm_backward/lnb_layouts.h"
#include "util/device_tensor.h"

namespace openaclnn::lnb_test {

using test::DeviceTensor;
using test::TensorLayout;

// The layouts the CPU suite cycles through (LayoutAt).
constexpr Layout kAllLayouts[] = {Layout::kContiguous, Layout::kTransposedLead, Layout::kPaddedRows,
                                  Layout::kOffset, Layout::kStrided};

// The two phases, a workspace from aclrtMalloc and a stream synchronisation.
aclnnStatus RunLayerNormBackward(const aclTensor* dy, const aclTensor* x,
                                 const std::vector<int64_t>& norm, const aclTensor* mean,
                                 const aclTensor* rstd, const aclTensor* w, const aclTensor* b,
                                 const bool mask[3], aclTensor* dx, aclTensor* gw, aclTensor* gb,
                                 uint64_t* workspace_size = nullptr);

// Dense float64 golden.
void GoldenLayerNormBackward(int64_t m, int64_t n, const bool mask[3],
                             const std::vector<double>& dy, const std::vector<double>& x,
                             const std::vector<double>& mean, const std::vector<double>& rstd,
                             const std::vector<double>* w, std::vector<double>* dx,
                             std::vector<double>* gw, std::vector<double>* gb);

// Creates a stream once for the process and returns it.
aclrtStream TestStream();

}  // namespace openaclnn::lnb_test

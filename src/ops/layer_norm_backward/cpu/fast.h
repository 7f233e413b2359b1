#pragma once
// The fast CPU implementation: one fused pass per row (SIMD, run-time dispatch), threads over
// fixed row chunks, fp32 parameter-gradient partials per chunk summed in a fixed order.

#include <cstdint>
#include <memory>

#include "api/executor.h"
#include "ops/layer_norm_backward/problem.h"

namespace openaclnn::layer_norm_backward::cpu {

const char* FastDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace);

// Rows per chunk for an M x N problem: depends on the problem only, never on the thread count.
int64_t RowsPerChunk(int64_t m, int64_t n, bool param_grads);

}  // namespace openaclnn::layer_norm_backward::cpu

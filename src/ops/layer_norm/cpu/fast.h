#pragma once
// The fast CPU LayerNorm forward: one fused pass per row (statistics and output while the row is
// in cache), Highway SIMD, threads over fixed row chunks.

#include <memory>

#include "api/executor.h"
#include "ops/layer_norm/problem.h"

namespace openaclnn::layer_norm::cpu {

const char* FastDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace);

}  // namespace openaclnn::layer_norm::cpu

#pragma once
// The fast CPU implementation: per-tap matrix products on fixed row and column tiles.

#include <memory>

#include "api/executor.h"
#include "ops/conv_tbc_backward/problem.h"

namespace openaclnn::conv_tbc {

const char* FastDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace);

}  // namespace openaclnn::conv_tbc

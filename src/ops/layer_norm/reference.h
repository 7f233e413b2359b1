#pragma once
// The float64 reference implementation of the LayerNorm forward (last in the implementation
// list), and what every implementation writes when the rows are empty.

#include <memory>

#include "api/executor.h"
#include "ops/layer_norm/problem.h"

namespace openaclnn::layer_norm {

const char* ReferenceDeclines(const Problem& problem);
std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace);

// N == 0 with M > 0 (decision E4): mean 0 and rstd NaN in every row; out has no elements.
void WriteEmptyRowStats(const Problem& problem, const Bindings& bindings);

}  // namespace openaclnn::layer_norm

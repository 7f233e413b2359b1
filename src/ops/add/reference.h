#pragma once
// The float64 reference of aclnnAdd and its scalar and Inplace forms: self + alpha * other (last in
// its implementation list: OPENACLNN_FORCE_IMPL=add=reference).

#include <memory>

#include "api/pointwise.h"

namespace openaclnn::add {

std::unique_ptr<Plan> MakeReferencePlan(const pointwise::Problem& problem,
                                        WorkspaceBooking* workspace);

// The engine, then the reference.
inline const Implementation<pointwise::Problem> kImplementations[] = {
    {"cpu_pointwise", DeviceKind::kCpu, pointwise::NeverDeclines, pointwise::MakeFastPlan},
    {"reference", DeviceKind::kCpu, pointwise::NeverDeclines, MakeReferencePlan},
};

}  // namespace openaclnn::add

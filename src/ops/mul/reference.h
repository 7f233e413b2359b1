#pragma once
// The float64 reference of aclnnMul and its scalar and Inplace forms: self * other (last in its
// implementation list: OPENACLNN_FORCE_IMPL=mul=reference).

#include <memory>

#include "api/pointwise.h"

namespace openaclnn::mul {

std::unique_ptr<Plan> MakeReferencePlan(const pointwise::Problem& problem,
                                        WorkspaceBooking* workspace);

// The engine, then the reference.
inline const Implementation<pointwise::Problem> kImplementations[] = {
    {"cpu_pointwise", DeviceKind::kCpu, pointwise::NeverDeclines, pointwise::MakeFastPlan},
    {"reference", DeviceKind::kCpu, pointwise::NeverDeclines, MakeReferencePlan},
};

}  // namespace openaclnn::mul

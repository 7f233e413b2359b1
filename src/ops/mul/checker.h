#pragma once
// Parameter validation of aclnnMul, aclnnMuls and their Inplace forms, in the order of CANN's
// checks: nullptr (161001), then dtypes, promotion, the output cast, ranks, broadcast and the
// output shape (161002).

#include "aclnn/acl_meta.h"
#include "api/pointwise.h"

namespace openaclnn::mul {

Status CheckTensorForm(const aclTensor* self, const aclTensor* other, const aclTensor* out,
                       pointwise::Problem* problem);
Status CheckScalarForm(const aclTensor* self, const aclScalar* other, const aclTensor* out,
                       pointwise::Problem* problem);
// The Inplace forms: the out-of-place checks with out = selfRef (named selfRef).
Status CheckInplaceTensorForm(const aclTensor* self_ref, const aclTensor* other,
                              pointwise::Problem* problem);
Status CheckInplaceScalarForm(const aclTensor* self_ref, const aclScalar* other,
                              pointwise::Problem* problem);

}  // namespace openaclnn::mul

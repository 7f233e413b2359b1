#pragma once
// Parameter validation of aclnnDiv, aclnnDivs and their Inplace forms, in the order of CANN's
// checks: nullptr (161001: out, other, self, as CANN checks them), then ranks, broadcast and the
// output shape, then dtypes, the promotion (integer and BOOL promotions divide in FLOAT) and the
// output dtype (floating only) (161002).

#include "aclnn/acl_meta.h"
#include "api/pointwise.h"

namespace openaclnn::div {

Status CheckTensorForm(const aclTensor* self, const aclTensor* other, const aclTensor* out,
                       pointwise::Problem* problem);
Status CheckScalarForm(const aclTensor* self, const aclScalar* other, const aclTensor* out,
                       pointwise::Problem* problem);
// The Inplace forms: the out-of-place checks with out = selfRef (named selfRef).
Status CheckInplaceTensorForm(const aclTensor* self_ref, const aclTensor* other,
                              pointwise::Problem* problem);
Status CheckInplaceScalarForm(const aclTensor* self_ref, const aclScalar* other,
                              pointwise::Problem* problem);

}  // namespace openaclnn::div

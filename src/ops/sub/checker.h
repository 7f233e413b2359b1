#pragma once
// Parameter validation of aclnnSub, aclnnSubs and their Inplace forms, in the order of CANN's
// checks: nullptr (161001), then dtypes, promotion, alpha, the output cast, ranks, broadcast and
// the output shape (161002).

#include "aclnn/acl_meta.h"
#include "api/pointwise.h"

namespace openaclnn::sub {

Status CheckTensorForm(const aclTensor* self, const aclTensor* other, const aclScalar* alpha,
                       const aclTensor* out, pointwise::Problem* problem);
Status CheckScalarForm(const aclTensor* self, const aclScalar* other, const aclScalar* alpha,
                       const aclTensor* out, pointwise::Problem* problem);
// The Inplace tensor form checks selfRef and other for nullptr and that their broadcast shape is
// selfRef's before the out-of-place checks with out = selfRef.
Status CheckInplaceTensorForm(const aclTensor* self_ref, const aclTensor* other,
                              const aclScalar* alpha, pointwise::Problem* problem);
Status CheckInplaceScalarForm(const aclTensor* self_ref, const aclScalar* other,
                              const aclScalar* alpha, pointwise::Problem* problem);

}  // namespace openaclnn::sub

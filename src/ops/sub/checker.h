#pragma once
// Parameter validation of aclnnSub, aclnnSubs and their Inplace forms, in the order of CANN's
// checks: nullptr (161001), then dtypes, promotion, alpha, the output cast, ranks, broadcast and
// the output shape (161002).
// The Inplace tensor form checks selfRef and other for nullptr and that their broadcast shape is
// selfRef's before the out-of-place checks with out = selfRef.
// The checks themselves are the pointwise kit's (api/pointwise_forms.h); these are Sub's rules.

#include "api/pointwise_forms.h"

namespace openaclnn::sub {

inline constexpr pointwise::ArithmeticRules kRules = {
    pointwise::Op::kSub,   "sub",
    /*has_alpha=*/true,    /*out_checked_first=*/false,
    /*shape_first=*/false, /*float_result=*/false};

}  // namespace openaclnn::sub

#pragma once
// Parameter validation of aclnnAdd, aclnnAdds and their Inplace forms, in the order of CANN's
// checks: nullptr (161001), then dtypes, promotion, alpha, the output cast, ranks, broadcast and
// the output shape (161002).
// The Inplace tensor form checks selfRef and other for nullptr and that their broadcast shape is
// selfRef's before the out-of-place checks with out = selfRef.
// The checks themselves are the pointwise kit's (api/pointwise_forms.h); these are Add's rules.

#include "api/pointwise_forms.h"

namespace openaclnn::add {

inline constexpr pointwise::ArithmeticRules kRules = {
    pointwise::Op::kAdd,   "add",
    /*has_alpha=*/true,    /*out_checked_first=*/false,
    /*shape_first=*/false, /*float_result=*/false};

}  // namespace openaclnn::add

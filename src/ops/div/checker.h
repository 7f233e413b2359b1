#pragma once
// Parameter validation of aclnnDiv, aclnnDivs and their Inplace forms, in the order of CANN's
// checks: nullptr (161001: out, other, self, as CANN checks them), then ranks, broadcast and the
// output shape, then dtypes, the promotion (integer and BOOL promotions divide in FLOAT) and the
// output dtype (floating only) (161002).
// The Inplace forms: the out-of-place checks with out = selfRef (named selfRef).
// The checks themselves are the pointwise kit's (api/pointwise_forms.h); these are Div's rules.

#include "api/pointwise_forms.h"

namespace openaclnn::div {

inline constexpr pointwise::ArithmeticRules kRules = {
    pointwise::Op::kDiv,  "div",
    /*has_alpha=*/false,  /*out_checked_first=*/true,
    /*shape_first=*/true, /*float_result=*/true};

}  // namespace openaclnn::div

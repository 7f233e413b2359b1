#pragma once
// Parameter validation of aclnnMul, aclnnMuls and their Inplace forms, in the order of CANN's
// checks: nullptr (161001), then dtypes, promotion, the output cast, ranks, broadcast and the
// output shape (161002).
// The Inplace forms: the out-of-place checks with out = selfRef (named selfRef).
// The checks themselves are the pointwise kit's (api/pointwise_forms.h); these are Mul's rules.

#include "api/pointwise_forms.h"

namespace openaclnn::mul {

inline constexpr pointwise::ArithmeticRules kRules = {
    pointwise::Op::kMul,   "mul",
    /*has_alpha=*/false,   /*out_checked_first=*/false,
    /*shape_first=*/false, /*float_result=*/false};

}  // namespace openaclnn::mul

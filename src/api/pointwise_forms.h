#pragma once
// Validation of the four forms CANN gives each arithmetic operator (Add, Sub, Mul, Div): the
// tensor form (self, other, out), the scalar form (self, aclScalar other, out) and their Inplace
// forms (selfRef is the output). The operators differ only in their rules, written once per
// operator folder (ops/<op>/checker.h); the checks and their order live here.

#include "aclnn/acl_meta.h"
#include "api/pointwise.h"

namespace openaclnn::pointwise {

struct ArithmeticRules {
  Op op = Op::kAdd;
  const char* op_key = "";
  // Add and Sub: an aclScalar alpha scales other; its nullptr check follows other's, and the
  // Inplace tensor form checks the broadcast against selfRef's shape before it.
  bool has_alpha = false;
  // Div: the nullptr checks of the out-of-place forms run out, other, self (CANN's order).
  bool out_checked_first = false;
  bool shape_first = false;   // ranks and broadcast before dtypes (Div)
  bool float_result = false;  // integer and BOOL promotions compute in FLOAT, out floating (Div)
};

// `alpha` is ignored (may be null) when the rules have no alpha.
Status CheckTensorForm(const ArithmeticRules& rules, const aclTensor* self, const aclTensor* other,
                       const aclScalar* alpha, const aclTensor* out, Problem* problem);
Status CheckScalarForm(const ArithmeticRules& rules, const aclTensor* self, const aclScalar* other,
                       const aclScalar* alpha, const aclTensor* out, Problem* problem);
Status CheckInplaceTensorForm(const ArithmeticRules& rules, const aclTensor* self_ref,
                              const aclTensor* other, const aclScalar* alpha, Problem* problem);
Status CheckInplaceScalarForm(const ArithmeticRules& rules, const aclTensor* self_ref,
                              const aclScalar* other, const aclScalar* alpha, Problem* problem);

}  // namespace openaclnn::pointwise

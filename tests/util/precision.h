#pragma once
// The mixed-tolerance precision rule of spec section 7, applied to every element (decision D9).

#include <cstdint>
#include <string>

#include "acl/acl_base.h"

namespace openaclnn::test {

struct Tolerance {
  double rtol;
  double atol;
};
// FLOAT16: 2^-9 / 2^-9; BFLOAT16: 2^-6 / 2^-6; FLOAT: 2^-10 / 2^-16.
Tolerance MixedTolerance(aclDataType dtype);

// Checks |actual[i] - golden[i]| <= atol + rtol * |golden[i]| for every i (NaN and inf must
// match exactly). On failure returns a description of the worst elements; empty on success.
std::string CheckMixedTolerance(aclDataType dtype, const float* actual, const double* golden,
                                int64_t count, const std::string& what);

}  // namespace openaclnn::test

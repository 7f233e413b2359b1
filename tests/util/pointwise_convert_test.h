#pragma once
// The conversion rules as the suites of Copy and Cast expect them (docs/ops/pointwise.md).

#include <cmath>
#include <cstdint>

#include "util/pointwise_test_util.h"

namespace openaclnn::test::pw {

// `v` (a value of dtype `from`) converted to dtype `to`: integers and BOOL to integers wrap,
// anything else goes through ToOutput (floats rounded, float -> integer truncated and saturated,
// NaN 0, BOOL nonzero).
inline double Converted(aclDataType from, aclDataType to, double v) {
  if (!IsFloatType(from) && !IsFloatType(to)) {
    return static_cast<double>(Wrap(to, static_cast<int64_t>(v)));
  }
  return ToOutput(to, v);
}

}  // namespace openaclnn::test::pw

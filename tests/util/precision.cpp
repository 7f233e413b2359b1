#include "util/precision.h"

#include <cmath>
#include <cstdio>

namespace openaclnn::test {

Tolerance MixedTolerance(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16:
      return {std::ldexp(1.0, -9), std::ldexp(1.0, -9)};
    case ACL_BF16:
      return {std::ldexp(1.0, -6), std::ldexp(1.0, -6)};
    default:
      return {std::ldexp(1.0, -10), std::ldexp(1.0, -16)};
  }
}

std::string CheckMixedTolerance(aclDataType dtype, const float* actual, const double* golden,
                                int64_t count, const std::string& what) {
  const Tolerance tol = MixedTolerance(dtype);
  int64_t failures = 0;
  int64_t worst = -1;
  double worst_excess = 0;
  for (int64_t i = 0; i < count; ++i) {
    const double a = actual[i];
    const double g = golden[i];
    bool pass;
    double excess = 0;
    if (std::isnan(g) || std::isinf(g)) {
      pass = (std::isnan(g) && std::isnan(a)) || a == g;
      excess = pass ? 0 : INFINITY;
    } else {
      const double limit = tol.atol + tol.rtol * std::fabs(g);
      const double err = std::fabs(a - g);
      pass = err <= limit;  // NaN in `actual` fails here
      excess = std::isnan(err) ? INFINITY : err / limit;
    }
    if (!pass) {
      ++failures;
      if (worst < 0 || excess > worst_excess) {
        worst = i;
        worst_excess = excess;
      }
    }
  }
  if (failures == 0) return std::string();
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "%s: %lld of %lld elements outside rtol %.3g atol %.3g; worst at %lld: got %.9g, "
                "expected %.17g",
                what.c_str(), static_cast<long long>(failures), static_cast<long long>(count),
                tol.rtol, tol.atol, static_cast<long long>(worst),
                static_cast<double>(actual[worst]), golden[worst]);
  return buf;
}

}  // namespace openaclnn::test

#pragma once
// aclnnReduceSum through the public API for the suites of this folder, and the float64 golden
// computed here, independently of the library's reference.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "api/dtype.h"
#include "util/device_tensor.h"
#include "util/runtime_fixture.h"

namespace openaclnn::rs_test {

using test::DeviceTensor;
using test::TensorLayout;

// Phase 1, phase 2 on the null stream with a fresh workspace, synchronise. Returns the first
// failing status (phase 1's when it fails).
inline aclnnStatus RunReduceSum(const aclTensor* self, const std::vector<int64_t>& dims,
                                bool keep_dims, aclDataType dtype, aclTensor* out) {
  aclIntArray* dims_array = aclCreateIntArray(dims.data(), dims.size());
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  aclnnStatus st =
      aclnnReduceSumGetWorkspaceSize(self, dims_array, keep_dims, dtype, out, &ws, &ex);
  aclDestroyIntArray(dims_array);
  if (st != ACLNN_SUCCESS) return st;
  void* workspace = nullptr;
  if (ws > 0 && aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return -1;
  st = aclnnReduceSum(workspace, ws, ex, nullptr);
  if (st == ACLNN_SUCCESS) st = aclrtSynchronizeStream(nullptr);
  if (workspace != nullptr) aclrtFree(workspace);
  return st;
}

inline bool IsFloatType(aclDataType t) {
  return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16 || t == ACL_DOUBLE;
}

// One element (its exact value `v` in the input dtype `in`) converted to the output dtype, as
// the contract says: floats round to the output type, floating values truncate toward zero
// and saturate into integer types, BOOL is v != 0.
inline double ConvertForGolden(double v, aclDataType in, aclDataType out) {
  switch (out) {
    case ACL_FLOAT:
      return static_cast<float>(v);
    case ACL_FLOAT16:
      return in == ACL_FLOAT16 ? v : RoundThroughHalf(static_cast<float>(v));
    case ACL_BF16:
      return in == ACL_BF16 ? v : RoundThroughBFloat16(static_cast<float>(v));
    case ACL_DOUBLE:
      return v;
    case ACL_BOOL:
      return v != 0.0 ? 1.0 : 0.0;
    default:
      break;
  }
  if (!IsFloatType(in)) return v;
  if (std::isnan(v)) return 0.0;
  double lo = -9.2233720368547758e18, hi = 9.2233720368547758e18;
  if (out == ACL_INT8) lo = -128, hi = 127;
  if (out == ACL_UINT8) lo = 0, hi = 255;
  if (out == ACL_INT16) lo = -32768, hi = 32767;
  if (out == ACL_INT32) lo = -2147483648.0, hi = 2147483647.0;
  return std::min(hi, std::max(lo, std::trunc(v)));
}

// An int64 sum wrapped into the integer output type (BOOL: != 0).
inline double WrapForGolden(int64_t sum, aclDataType out) {
  switch (out) {
    case ACL_INT8:
      return static_cast<int8_t>(static_cast<uint8_t>(sum));
    case ACL_UINT8:
      return static_cast<uint8_t>(sum);
    case ACL_INT16:
      return static_cast<int16_t>(static_cast<uint16_t>(sum));
    case ACL_INT32:
      return static_cast<int32_t>(static_cast<uint32_t>(sum));
    case ACL_BOOL:
      return sum != 0 ? 1.0 : 0.0;
    default:
      return static_cast<double>(sum);
  }
}

struct Golden {
  std::vector<double> sum;      // exact (double) sum per output, row-major over the kept dims
  std::vector<double> abs_sum;  // sum of |converted element|
  int64_t reduced = 1;          // elements per output
};

// The golden sums of `values` (row-major, shape `shape`) over the dims in `mask`.
inline Golden ComputeGolden(const std::vector<double>& values, const std::vector<int64_t>& shape,
                            uint32_t mask, aclDataType in, aclDataType out) {
  Golden g;
  int64_t kept = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if ((mask >> d) & 1u) {
      g.reduced *= shape[d];
    } else {
      kept *= shape[d];
    }
  }
  const bool integer = !IsFloatType(out);
  std::vector<int64_t> isum(kept, 0);
  g.sum.assign(kept, 0.0);
  g.abs_sum.assign(kept, 0.0);
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t i = 0; i < values.size(); ++i) {
    int64_t k = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (!((mask >> d) & 1u)) k = k * shape[d] + index[d];
    }
    const double c = ConvertForGolden(values[i], in, out);
    if (integer) {
      isum[k] += static_cast<int64_t>(c);
    } else {
      g.sum[k] += c;
      g.abs_sum[k] += std::fabs(c);
    }
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  if (integer) {
    for (int64_t k = 0; k < kept; ++k) g.sum[k] = WrapForGolden(isum[k], out);
  }
  return g;
}

// The summation depth bound of docs/ops/reduce_sum.md for `reduced` elements per output: at most
// kRunChunk / kRunLanes = 128 sequential additions per lane and 6 halving steps, or 64 per
// column block, then the pairwise tree over the leaves.
inline double DepthBound(int64_t reduced) {
  const int64_t leaves = std::max<int64_t>(1, (reduced + 63) / 64);
  return 134.0 + std::ceil(std::log2(static_cast<double>(leaves))) + 1.0;
}

// Spacing of representable values of `dtype` at magnitude |v|.
inline double UlpOf(aclDataType dtype, double v) {
  const int mantissa = dtype == ACL_FLOAT16 ? 10 : dtype == ACL_BF16 ? 7 : 23;
  const int min_exp = dtype == ACL_FLOAT16 ? -14 : -126;
  const double a = std::fabs(v);
  const int e = a == 0.0 ? min_exp : std::max(min_exp, static_cast<int>(std::floor(std::log2(a))));
  return std::ldexp(1.0, e - mantissa);
}

// Checks every output against the golden: integers exactly, float sums within the depth bound
// times fp32's unit roundoff times sum(|x|), plus the final rounding (FLOAT: half an ulp; 16-bit:
// one ulp of the output type); DOUBLE within the bound at double's unit roundoff.
inline std::string CheckAgainstGolden(const Golden& g, const std::vector<double>& got,
                                      aclDataType out) {
  if (got.size() != g.sum.size()) {
    return "output count " + std::to_string(got.size()) + " vs golden " +
           std::to_string(g.sum.size());
  }
  const double depth = DepthBound(g.reduced);
  for (size_t k = 0; k < got.size(); ++k) {
    const double want = g.sum[k];
    double tol = 0;
    if (out == ACL_FLOAT16 || out == ACL_BF16) {
      // Beyond the type's range the output is the infinity the golden rounds to.
      const float rounded = out == ACL_FLOAT16 ? RoundThroughHalf(static_cast<float>(want))
                                               : RoundThroughBFloat16(static_cast<float>(want));
      if (std::isinf(rounded) && std::fabs(want) > (out == ACL_FLOAT16 ? 65520.0 : 3.4e38)) {
        if (got[k] != rounded) {
          return "output " + std::to_string(k) + ": got " + std::to_string(got[k]) +
                 ", want overflow to " + std::to_string(rounded);
        }
        continue;
      }
    }
    if (out == ACL_DOUBLE) {
      tol = depth * std::ldexp(1.0, -53) * g.abs_sum[k] + 1e-300;
    } else if (IsFloatType(out)) {
      const double acc = depth * std::ldexp(1.0, -24) * g.abs_sum[k];
      const double mag = std::max(std::fabs(want), std::fabs(got[k]));
      tol = acc + (out == ACL_FLOAT ? 0.5 : 1.0) * UlpOf(out, mag);
    }
    if (!(std::fabs(got[k] - want) <= tol)) {
      return "output " + std::to_string(k) + ": got " + std::to_string(got[k]) + ", want " +
             std::to_string(want) + " (tolerance " + std::to_string(tol) + ")";
    }
  }
  return "";
}

}  // namespace openaclnn::rs_test

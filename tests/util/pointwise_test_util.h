#pragma once
// Shared pieces of the pointwise operator suites (tests/ops/{add,sub,mul,div,copy,cast,fill}):
// random inputs per dtype, the test's own golden model (CANN's tables written out as the pages give
// them, independent of the engine's code), and the comparison of an output with the golden values.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "api/dtype.h"
#include "util/device_tensor.h"
#include "util/ops_fixtures.h"
#include "util/precision.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test::pw {

inline bool IsFloatType(aclDataType t) {
  return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16 || t == ACL_DOUBLE;
}

// Every dtype the arithmetic operators take.
inline const std::vector<aclDataType>& AllTypes() {
  static const std::vector<aclDataType> types = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,  ACL_DOUBLE,
                                                 ACL_INT8,  ACL_UINT8,   ACL_INT16, ACL_INT32,
                                                 ACL_INT64, ACL_BOOL};
  return types;
}

// CANN's tensor-tensor promotion table (deduction_relationship.md, table 1) over these dtypes, in
// the order of AllTypes(): row self, column other.
inline aclDataType PromoteTable(aclDataType a, aclDataType b) {
  static const aclDataType F = ACL_FLOAT, H = ACL_FLOAT16, D = ACL_DOUBLE, B = ACL_BF16,
                           S8 = ACL_INT8, U8 = ACL_UINT8, S16 = ACL_INT16, S32 = ACL_INT32,
                           S64 = ACL_INT64, BL = ACL_BOOL;
  static const aclDataType table[10][10] = {
      /* f32  */ {F, F, F, D, F, F, F, F, F, F},
      /* f16  */ {F, H, F, D, H, H, H, H, H, H},
      /* bf16 */ {F, F, B, D, B, B, B, B, B, B},
      /* f64  */ {D, D, D, D, D, D, D, D, D, D},
      /* s8   */ {F, H, B, D, S8, S16, S16, S32, S64, S8},
      /* u8   */ {F, H, B, D, S16, U8, S16, S32, S64, U8},
      /* s16  */ {F, H, B, D, S16, S16, S16, S32, S64, S16},
      /* s32  */ {F, H, B, D, S32, S32, S32, S32, S64, S32},
      /* s64  */ {F, H, B, D, S64, S64, S64, S64, S64, S64},
      /* bool */ {F, H, B, D, S8, U8, S16, S32, S64, BL},
  };
  auto index = [](aclDataType t) {
    const auto& all = AllTypes();
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i] == t) return static_cast<int>(i);
    }
    return -1;
  };
  return table[index(a)][index(b)];
}

// Table 2 (tensor-scalar).
inline aclDataType PromoteTensorScalarTable(aclDataType tensor, aclDataType scalar) {
  if (IsFloatType(tensor)) return tensor;
  if (IsFloatType(scalar)) return ACL_FLOAT;
  if (tensor == ACL_BOOL) return scalar;
  return tensor;
}

// Random values exactly representable in `t`, in ranges that keep fp32 integer arithmetic exact;
// `away_from_zero` keeps divisors at least 0.5 (or 1) in magnitude.
inline std::vector<double> RandomValues(aclDataType t, int64_t n, std::mt19937* rng,
                                        bool away_from_zero = false) {
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) {
    switch (t) {
      case ACL_BOOL:
        x = away_from_zero ? 1 : static_cast<double>((*rng)() % 2);
        break;
      case ACL_UINT8:
        x = static_cast<double>((*rng)() % 200) + (away_from_zero ? 1 : 0);
        break;
      case ACL_INT8:
      case ACL_INT16:
      case ACL_INT32:
      case ACL_INT64: {
        const int64_t m = static_cast<int64_t>((*rng)() % 100) - 50;
        x = static_cast<double>(away_from_zero && m == 0 ? 7 : m);
        break;
      }
      default: {
        std::uniform_real_distribution<double> u(-4.0, 4.0);
        x = u(*rng);
        if (away_from_zero && std::fabs(x) < 0.5) x = x < 0 ? x - 0.5 : x + 0.5;
        break;
      }
    }
  }
  return v;
}

// Two's complement wrap of an int64 to integer dtype t (BOOL: nonzero).
inline int64_t Wrap(aclDataType t, int64_t v) {
  switch (t) {
    case ACL_INT8:
      return static_cast<int8_t>(v);
    case ACL_UINT8:
      return static_cast<uint8_t>(v);
    case ACL_INT16:
      return static_cast<int16_t>(v);
    case ACL_INT32:
      return static_cast<int32_t>(v);
    case ACL_BOOL:
      return v != 0;
    default:
      return v;
  }
}

// The value a computed `v` becomes in output dtype `t` (floats: rounded as the output stores it;
// integers from a float: NaN 0, truncated, saturated; BOOL: nonzero).
inline double ToOutput(aclDataType t, double v) {
  switch (t) {
    case ACL_FLOAT:
      return static_cast<float>(v);
    case ACL_FLOAT16:
      return RoundThroughHalf(static_cast<float>(v));
    case ACL_BF16:
      return RoundThroughBFloat16(static_cast<float>(v));
    case ACL_DOUBLE:
      return v;
    case ACL_BOOL:
      return (v != 0 || std::isnan(v)) ? 1 : 0;
    default: {
      if (std::isnan(v)) return 0;
      double lo = -128, hi = 127;
      if (t == ACL_UINT8) lo = 0, hi = 255;
      if (t == ACL_INT16) lo = -32768, hi = 32767;
      if (t == ACL_INT32) lo = -2147483648.0, hi = 2147483647.0;
      if (t == ACL_INT64) lo = -9.2233720368547758e18, hi = 9.2233720368547748e18;
      return std::trunc(std::fmin(std::fmax(v, lo), hi));
    }
  }
}

// numpy broadcasting; false when the shapes do not broadcast.
inline bool BroadcastTo(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                        std::vector<int64_t>* out) {
  const size_t rank = std::max(a.size(), b.size());
  out->assign(rank, 1);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t da = k + a.size() < rank ? 1 : a[k + a.size() - rank];
    const int64_t db = k + b.size() < rank ? 1 : b[k + b.size() - rank];
    if (da != db && da != 1 && db != 1) return false;
    (*out)[k] = da == 1 ? db : da;
  }
  return true;
}

// Compares `out` with golden values (already in the output's dtype): exact for integer, BOOL and
// DOUBLE-exact cases, CANN's mixed tolerance for the three float types.
inline void ExpectMatches(const DeviceTensor& out, const std::vector<double>& golden,
                          const std::string& what, bool exact = false) {
  const std::vector<double> got = out.ValuesDouble();
  ASSERT_EQ(got.size(), golden.size()) << what;
  const aclDataType t = out.dtype();
  if (!exact && (t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16)) {
    std::vector<float> actual(got.begin(), got.end());
    const std::string err = CheckMixedTolerance(t, actual.data(), golden.data(),
                                                static_cast<int64_t>(golden.size()), what);
    EXPECT_TRUE(err.empty()) << err;
    return;
  }
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool same = got[i] == golden[i] || (std::isnan(got[i]) && std::isnan(golden[i])) ||
                      (t == ACL_DOUBLE && !exact &&
                       std::fabs(got[i] - golden[i]) <= 1e-12 * std::fabs(golden[i]));
    if (!same && ++bad <= 5) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected " << golden[i];
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

// A scalar owned by the test.
class Scalar {
 public:
  Scalar(double v, aclDataType t) {
    unsigned char bytes[8] = {};
    switch (t) {
      case ACL_FLOAT: {
        const float f = static_cast<float>(v);
        std::memcpy(bytes, &f, 4);
        break;
      }
      case ACL_FLOAT16: {
        const uint16_t h = FloatToHalf(static_cast<float>(v));
        std::memcpy(bytes, &h, 2);
        break;
      }
      case ACL_BF16: {
        const uint16_t h = FloatToBFloat16(static_cast<float>(v));
        std::memcpy(bytes, &h, 2);
        break;
      }
      case ACL_DOUBLE:
        std::memcpy(bytes, &v, 8);
        break;
      default: {
        const int64_t i = static_cast<int64_t>(v);
        std::memcpy(bytes, &i, 8);  // little-endian: the low bytes are the narrow value
        break;
      }
    }
    scalar_ = aclCreateScalar(bytes, t);
  }
  ~Scalar() { aclDestroyScalar(scalar_); }
  // The value a scalar of dtype t created from v holds.
  static double Value(double v, aclDataType t) {
    if (IsFloatType(t)) return ToOutput(t, v);
    if (t == ACL_BOOL) return v != 0;
    return static_cast<double>(Wrap(t, static_cast<int64_t>(v)));
  }
  Scalar(const Scalar&) = delete;
  Scalar& operator=(const Scalar&) = delete;
  aclScalar* get() const { return scalar_; }

 private:
  aclScalar* scalar_ = nullptr;
};

using Phase2 = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

// Runs phase 1 (a call that fills workspace size and executor) and phase 2 on `stream`.
inline aclnnStatus RunOp(aclrtStream stream,
                         const std::function<aclnnStatus(uint64_t*, aclOpExecutor**)>& phase1,
                         Phase2 phase2) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  const aclnnStatus s = phase1(&ws, &ex);
  return RunTwoPhase(s, ws, ex, stream, phase2);
}

// The fixture of every pointwise suite: runtime, device and one stream.
class PointwiseTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    unsetenv("OPENACLNN_FORCE_IMPL");
    RuntimeTest::TearDown();
  }
  aclrtStream stream_ = nullptr;
};

// The layouts each vs-reference case runs its operands in.
inline std::vector<TensorLayout> Layouts(int rank) {
  std::vector<TensorLayout> l = {TensorLayout::Contiguous(), TensorLayout::Offset(3),
                                 TensorLayout::Padded(2)};
  if (rank >= 2) {
    std::vector<int> order;
    for (int d = rank - 1; d >= 0; --d) order.push_back(d);
    l.push_back(TensorLayout::Permuted(order));
    l.push_back(TensorLayout::Scrambled(rank));
  }
  return l;
}

}  // namespace openaclnn::test::pw

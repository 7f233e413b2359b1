// aclnnInplaceCopy: every source dtype into every destination dtype, broadcast sources, transposed
// and strided layouts, conversion edge cases, empty tensors, errors and determinism.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "aclnnop/aclnn_copy.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "util/pointwise_convert_test.h"

namespace openaclnn::test::pw {
namespace {

class CopyTest : public PointwiseTest {
 protected:
  aclnnStatus Copy(aclTensor* self, aclTensor* src) {
    return RunOp(
        stream_,
        [&](uint64_t* w, aclOpExecutor** e) {
          return aclnnInplaceCopyGetWorkspaceSize(self, src, w, e);
        },
        aclnnInplaceCopy);
  }
  // Copies src (dims, layout) into self (dims, layout) and checks every element and canary.
  void Check(const std::vector<int64_t>& src_dims, aclDataType from, const TensorLayout& src_layout,
             const std::vector<int64_t>& self_dims, aclDataType to, const TensorLayout& self_layout,
             uint32_t seed) {
    SCOPED_TRACE(std::string(DTypeName(from)) + " -> " + DTypeName(to));
    std::mt19937 rng(seed);
    DeviceTensor src(src_dims, from, src_layout), self(self_dims, to, self_layout);
    src.FillDouble(RandomValues(from, std::max<int64_t>(src.numel(), 1), &rng));
    const std::vector<double> s = src.ValuesDouble();
    ASSERT_EQ(Copy(self.get(), src.get()), ACLNN_SUCCESS) << RecentError();
    std::vector<int64_t> shape;
    ASSERT_TRUE(BroadcastTo(src_dims, self_dims, &shape));
    std::vector<double> golden(static_cast<size_t>(self.numel()));
    const int rank = static_cast<int>(self_dims.size());
    for (int64_t i = 0; i < self.numel(); ++i) {
      int64_t is = 0, rest = i, mul = 1;
      for (int d = rank - 1; d >= 0; --d) {
        const int64_t idx = rest % self_dims[d];
        rest /= self_dims[d];
        const int ds = d - (rank - static_cast<int>(src_dims.size()));
        if (ds >= 0) {
          if (src_dims[ds] != 1) is += idx * mul;
          mul *= src_dims[ds];
        }
      }
      golden[static_cast<size_t>(i)] = Converted(from, to, s[static_cast<size_t>(is)]);
    }
    ExpectMatches(self, golden, "copy", true);
    EXPECT_EQ(self.DamagedCanaries(), 0);
    EXPECT_EQ(src.DamagedCanaries(), 0);
  }
};

TEST_F(CopyTest, EveryDtypePair) {
  uint32_t seed = 1;
  for (aclDataType from : AllTypes()) {
    for (aclDataType to : AllTypes()) {
      Check({4, 37}, from, TensorLayout::Contiguous(), {4, 37}, to, TensorLayout::Contiguous(),
            seed++);
      Check({37}, from, TensorLayout::Offset(2), {3, 37}, to, TensorLayout::Permuted({1, 0}),
            seed++);
    }
  }
}

// The float64 reference (OPENACLNN_FORCE_IMPL=copy=reference) on every dtype pair.
TEST_F(CopyTest, ReferenceEveryDtypePair) {
  setenv("OPENACLNN_FORCE_IMPL", "copy=reference", 1);
  uint32_t seed = 500;
  for (aclDataType from : AllTypes()) {
    for (aclDataType to : AllTypes()) {
      Check({37}, from, TensorLayout::Offset(2), {3, 37}, to, TensorLayout::Permuted({1, 0}),
            seed++);
    }
  }
}

TEST_F(CopyTest, LayoutsAndBroadcasting) {
  uint32_t seed = 50;
  for (aclDataType t : {ACL_FLOAT, ACL_BF16, ACL_FLOAT16, ACL_INT64}) {
    for (aclDataType to : {ACL_FLOAT, ACL_BF16}) {
      for (const TensorLayout& lo : Layouts(3)) {
        Check({5, 6, 33}, t, lo, {5, 6, 33}, to, TensorLayout::Contiguous(), seed++);
        Check({5, 6, 33}, t, TensorLayout::Contiguous(), {5, 6, 33}, to, lo, seed++);
        Check({6, 1}, t, TensorLayout::Contiguous(), {5, 6, 33}, to, lo, seed++);
        Check({5, 6, 33}, t, TensorLayout::Broadcast({1}), {5, 6, 33}, to, lo, seed++);
      }
      Check({}, t, TensorLayout::Contiguous(), {}, to, TensorLayout::Contiguous(), seed++);
      Check({}, t, TensorLayout::Contiguous(), {2, 3, 4, 1, 2, 1, 2, 3}, to,
            TensorLayout::Scrambled(8), seed++);
      // Into a transposed destination (the tile buffer's scatter), ragged tile edges.
      Check({130, 200}, t, TensorLayout::Contiguous(), {130, 200}, to,
            TensorLayout::Permuted({1, 0}), seed++);
      // A transposed copy large enough for several chunks.
      Check({300, 700}, t, TensorLayout::Permuted({1, 0}), {300, 700}, to,
            TensorLayout::Contiguous(), seed++);
    }
  }
}

TEST_F(CopyTest, ConversionEdgeCases) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  DeviceTensor f({6}, ACL_FLOAT), i8({6}, ACL_INT8), b({6}, ACL_BOOL), u8({6}, ACL_UINT8);
  f.FillDouble({-2.75, 2.75, 1000, -inf, nan, 0});
  ASSERT_EQ(Copy(i8.get(), f.get()), ACLNN_SUCCESS);
  EXPECT_EQ(i8.ValuesDouble(), (std::vector<double>{-2, 2, 127, -128, 0, 0}));
  ASSERT_EQ(Copy(b.get(), f.get()), ACLNN_SUCCESS);
  EXPECT_EQ(b.ValuesDouble(), (std::vector<double>{1, 1, 1, 1, 1, 0}));
  DeviceTensor i64({6}, ACL_INT64);
  i64.FillDouble({-1, 256, 257, 300, -129, 7});
  ASSERT_EQ(Copy(u8.get(), i64.get()), ACLNN_SUCCESS);  // integers wrap
  EXPECT_EQ(u8.ValuesDouble(), (std::vector<double>{255, 0, 1, 44, 127, 7}));
  DeviceTensor h({6}, ACL_FLOAT16);
  f.FillDouble({65520, 1.0 + 1.0 / 4096, 3, -0.0, inf, 1e-8});
  ASSERT_EQ(Copy(h.get(), f.get()), ACLNN_SUCCESS);  // round to nearest even, overflow to inf
  const std::vector<double> hv = h.ValuesDouble();
  EXPECT_EQ(hv[0], inf);
  EXPECT_EQ(hv[1], 1.0);
  EXPECT_EQ(hv[2], 3.0);
  EXPECT_EQ(hv[4], inf);
  EXPECT_EQ(hv[5], 0.0);
  // DOUBLE -> FLOAT: beyond the range to infinity, just above FLT_MAX (below the rounding
  // midpoint) to FLT_MAX.
  DeviceTensor d({3}, ACL_DOUBLE), f3({3}, ACL_FLOAT);
  const double flt_max = std::numeric_limits<float>::max();
  d.FillDouble({1e300, -1e300, flt_max + 0x1.0p100});
  ASSERT_EQ(Copy(f3.get(), d.get()), ACLNN_SUCCESS);
  EXPECT_EQ(f3.ValuesDouble(), (std::vector<double>{inf, -inf, flt_max}));
}

TEST_F(CopyTest, EmptyTensors) {
  DeviceTensor src({0, 4}, ACL_FLOAT), self({0, 4}, ACL_BF16);
  EXPECT_EQ(Copy(self.get(), src.get()), ACLNN_SUCCESS);
  EXPECT_TRUE(self.Untouched());
}

TEST_F(CopyTest, Errors) {
  DeviceTensor f({2, 3}, ACL_FLOAT), g({4}, ACL_FLOAT), c({2, 3}, ACL_COMPLEX64);
  DeviceTensor rank9({1, 1, 1, 1, 1, 1, 1, 1, 2}, ACL_FLOAT), big({3, 2, 3}, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  auto check = [&](aclnnStatus got, aclnnStatus code, const char* param) {
    EXPECT_EQ(got, code) << param;
    const std::string msg = RecentError();
    EXPECT_NE(msg.find(param), std::string::npos) << msg;
  };
  check(aclnnInplaceCopyGetWorkspaceSize(nullptr, f.get(), &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
        "selfRef");
  check(aclnnInplaceCopyGetWorkspaceSize(f.get(), nullptr, &ws, &ex), ACLNN_ERR_PARAM_NULLPTR,
        "src");
  check(aclnnInplaceCopyGetWorkspaceSize(rank9.get(), f.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "selfRef rank");
  check(aclnnInplaceCopyGetWorkspaceSize(f.get(), g.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "src shape");
  check(aclnnInplaceCopyGetWorkspaceSize(f.get(), big.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "src shape");
  check(aclnnInplaceCopyGetWorkspaceSize(f.get(), c.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "src dtype");
  check(aclnnInplaceCopyGetWorkspaceSize(c.get(), f.get(), &ws, &ex), ACLNN_ERR_PARAM_INVALID,
        "selfRef dtype");
}

TEST_F(CopyTest, Determinism) {
  std::mt19937 rng(3);
  DeviceTensor src({600, 500}, ACL_FLOAT, TensorLayout::Permuted({1, 0}));
  src.FillDouble(RandomValues(ACL_FLOAT, src.numel(), &rng));
  std::vector<double> first;
  for (const std::string& isa : cpu::AvailableIsas()) {
    ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
    for (int threads : {1, 2, 3}) {
      cpu::SetNumThreads(threads);
      DeviceTensor self({600, 500}, ACL_BF16);
      ASSERT_EQ(Copy(self.get(), src.get()), ACLNN_SUCCESS);
      const std::vector<double> v = self.ValuesDouble();
      if (first.empty()) first = v;
      EXPECT_EQ(0, std::memcmp(first.data(), v.data(), v.size() * sizeof(double)))
          << isa << " threads " << threads;
    }
  }
  cpu::SetNumThreads(0);
  ASSERT_TRUE(cpu::SetPlanningIsaCap(""));
}

}  // namespace
}  // namespace openaclnn::test::pw

// The strided-layout helpers at the edges of int64: products and stride magnitudes that overflow
// must be refused, never computed (a fuzzer found the negation of INT64_MIN).
#include "api/layout.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace openaclnn {
namespace {

TEST(LayoutTest, MulNoOverflowExactProducts) {
  int64_t out = -1;
  EXPECT_TRUE(MulNoOverflow(0, INT64_MIN, &out));
  EXPECT_EQ(out, 0);
  EXPECT_TRUE(MulNoOverflow(INT64_MIN, 1, &out));
  EXPECT_EQ(out, INT64_MIN);
  EXPECT_TRUE(MulNoOverflow(-(int64_t{1} << 31), int64_t{1} << 32, &out));
  EXPECT_EQ(out, INT64_MIN);
  EXPECT_TRUE(MulNoOverflow(INT64_MAX, -1, &out));
  EXPECT_EQ(out, -INT64_MAX);
  EXPECT_TRUE(MulNoOverflow(-3, -7, &out));
  EXPECT_EQ(out, 21);
  EXPECT_TRUE(MulNoOverflow(int64_t{3037000499}, int64_t{3037000499}, &out));
  EXPECT_EQ(out, int64_t{9223372030926249001});
}

TEST(LayoutTest, MulNoOverflowRefusesOverflow) {
  int64_t out = 42;
  EXPECT_FALSE(MulNoOverflow(INT64_MIN, -1, &out));
  EXPECT_FALSE(MulNoOverflow(-1, INT64_MIN, &out));
  EXPECT_FALSE(MulNoOverflow(INT64_MIN, 2, &out));
  EXPECT_FALSE(MulNoOverflow(INT64_MIN, INT64_MIN, &out));
  EXPECT_FALSE(MulNoOverflow(int64_t{1} << 32, int64_t{1} << 31, &out));  // 2^63
  EXPECT_FALSE(MulNoOverflow(INT64_MAX, 2, &out));
  EXPECT_FALSE(MulNoOverflow(int64_t{3037000500}, int64_t{3037000500}, &out));
  EXPECT_EQ(out, 42);  // untouched on refusal
}

TEST(LayoutTest, CollapseDoesNotMergeAcrossAnOverflowingStride) {
  // A (2, 2) view whose inner stride is INT64_MIN: the merge test multiplies it by the dim.
  const int64_t dims[2] = {2, 2};
  const int64_t strides0[2] = {0, INT64_MIN};
  const int64_t* strides[1] = {strides0};
  const MultiStrided<1> s = Collapse<1>(dims, 0, 2, strides);
  EXPECT_EQ(s.rank, 2);
}

TEST(LayoutTest, CertainlyDisjointAtInt64Edges) {
  const int64_t dims[2] = {2, 3};
  const int64_t min_strides[2] = {INT64_MIN, 1};
  EXPECT_TRUE(CertainlyDisjoint(2, dims, min_strides));
  const int64_t long_dims[2] = {2, 8};
  const int64_t wrapping[2] = {1, int64_t{1} << 62};  // 7 * 2^62 reaches beyond 2^64: may wrap
  EXPECT_FALSE(CertainlyDisjoint(2, long_dims, wrapping));
  const int64_t overlapping[2] = {2, 1};  // 3 * 1 reaches past the outer stride 2
  EXPECT_FALSE(CertainlyDisjoint(2, dims, overlapping));
  const int64_t disjoint[2] = {-3, 1};
  EXPECT_TRUE(CertainlyDisjoint(2, dims, disjoint));
}

}  // namespace
}  // namespace openaclnn

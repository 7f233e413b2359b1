// aclnnReduceSum against the float64 golden: random shapes of rank 0 to 5, random dim sets
// (inner, outer, middle, several, all, the empty list), keepDims both ways, every supported
// dtype pair, strided, permuted, offset and broadcast inputs and padded or permuted outputs,
// and problems large enough to split outputs over tasks. Every output is also checked for
// writes outside its view.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "ops/reduce_sum/rs_test_util.h"

namespace openaclnn::rs_test {
namespace {

class ReduceSumVsGolden : public test::RuntimeTest {};

struct Case {
  std::vector<int64_t> shape;
  std::vector<int64_t> dims;  // as passed (negatives allowed; empty: all)
  bool keep_dims = false;
  aclDataType in = ACL_FLOAT;
  aclDataType out = ACL_FLOAT;
  TensorLayout in_layout;
  TensorLayout out_layout;
};

std::string Describe(const Case& c) {
  std::string s = "shape [";
  for (int64_t d : c.shape) s += std::to_string(d) + " ";
  s += "] dims [";
  for (int64_t d : c.dims) s += std::to_string(d) + " ";
  s += "] keepDims " + std::to_string(c.keep_dims) + " in " + DTypeName(c.in) + " out " +
       DTypeName(c.out) + " in-layout gap " + std::to_string(c.in_layout.gap) + " order " +
       std::to_string(c.in_layout.order.size()) + " broadcast " +
       std::to_string(c.in_layout.broadcast.size()) + " offset " +
       std::to_string(c.in_layout.offset);
  return s;
}

// Values for the input dtype: floats in [-1, 1), integers in a small range, BOOL 0/1.
std::vector<double> RandomValues(int64_t n, aclDataType dt, std::mt19937* rng) {
  std::vector<double> v(static_cast<size_t>(n));
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> small(-100, 100), byte(0, 255), bit(0, 1);
  for (double& x : v) {
    switch (dt) {
      case ACL_UINT8:
        x = byte(*rng);
        break;
      case ACL_BOOL:
        x = bit(*rng);
        break;
      case ACL_INT8:
      case ACL_INT16:
      case ACL_INT32:
      case ACL_INT64:
        x = small(*rng);
        break;
      default:
        x = real(*rng) * 4.0;
        break;
    }
  }
  return v;
}

void RunCase(const Case& c, std::mt19937* rng) {
  SCOPED_TRACE(Describe(c));
  DeviceTensor self(c.shape, c.in, c.in_layout);
  self.FillDouble(RandomValues(self.numel(), c.in, rng));
  uint32_t mask = 0;
  const int rank = static_cast<int>(c.shape.size());
  // A 0-d self takes dim 0 or -1 and has no dim to reduce.
  for (int64_t d : c.dims) {
    if (rank > 0) mask |= 1u << (d < 0 ? d + rank : d);
  }
  if (c.dims.empty()) mask = (1u << rank) - 1;
  std::vector<int64_t> out_shape;
  for (int d = 0; d < rank; ++d) {
    if ((mask >> d) & 1u) {
      if (c.keep_dims) out_shape.push_back(1);
    } else {
      out_shape.push_back(c.shape[d]);
    }
  }
  TensorLayout out_layout = c.out_layout;
  if (!out_layout.order.empty() && out_layout.order.size() != out_shape.size()) {
    out_layout.order.clear();
  }
  DeviceTensor out(out_shape, c.out, out_layout);
  ASSERT_EQ(RunReduceSum(self.get(), c.dims, c.keep_dims, c.out, out.get()), ACLNN_SUCCESS)
      << test::RecentError();
  // The golden reads the stored values back (16-bit inputs are rounded on Fill).
  const Golden g = ComputeGolden(self.ValuesDouble(), c.shape, mask, c.in, c.out);
  EXPECT_EQ(CheckAgainstGolden(g, out.ValuesDouble(), c.out), "");
  EXPECT_EQ(out.DamagedCanaries(), 0);
}

const aclDataType kTypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,  ACL_DOUBLE, ACL_INT8,
                              ACL_UINT8, ACL_INT16,   ACL_INT32, ACL_INT64,  ACL_BOOL};

std::vector<int> RandomPermutation(int rank, std::mt19937* rng) {
  std::vector<int> order(static_cast<size_t>(rank));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), *rng);
  return order;
}

TensorLayout RandomLayout(int rank, std::mt19937* rng, bool allow_broadcast) {
  std::uniform_int_distribution<int> pick(0, allow_broadcast ? 5 : 4);
  switch (pick(*rng)) {
    case 1:
      return TensorLayout::Padded(2);
    case 2:
      return TensorLayout::Offset(3);
    case 3:
      return TensorLayout::Permuted(RandomPermutation(rank, rng));
    case 4:
      return TensorLayout::Scrambled(rank);
    case 5: {
      TensorLayout l;
      if (rank > 0) l.broadcast.push_back(std::uniform_int_distribution<int>(0, rank - 1)(*rng));
      return l;
    }
    default:
      return TensorLayout::Contiguous();
  }
}

// Random problems: rank 0..5, small dims (one possibly long), random dims lists in both
// spellings, random layouts; float types against each other and every dtype to every dtype.
TEST_F(ReduceSumVsGolden, RandomProblems) {
  std::mt19937 rng(20261204);
  for (int iter = 0; iter < 400; ++iter) {
    Case c;
    const int rank = std::uniform_int_distribution<int>(0, 5)(rng);
    for (int d = 0; d < rank; ++d) c.shape.push_back(std::uniform_int_distribution<int>(1, 6)(rng));
    if (rank > 0 && iter % 3 == 0) {
      c.shape[std::uniform_int_distribution<int>(0, rank - 1)(rng)] =
          std::uniform_int_distribution<int>(20, 300)(rng);
    }
    const int kind = std::uniform_int_distribution<int>(0, 5)(rng);
    if (kind == 0 || rank == 0) {
      // The empty list: every dim (a 0-d self keeps its one element).
      if (rank == 0 && iter % 2 == 0) c.dims = {iter % 4 == 0 ? 0 : -1};
    } else {
      for (int d = 0; d < rank; ++d) {
        if (std::uniform_int_distribution<int>(0, 1)(rng) == 1) {
          c.dims.push_back(std::uniform_int_distribution<int>(0, 1)(rng) ? d : d - rank);
        }
      }
      if (c.dims.empty()) c.dims.push_back(rank - 1);
      std::shuffle(c.dims.begin(), c.dims.end(), rng);
    }
    c.keep_dims = std::uniform_int_distribution<int>(0, 1)(rng) == 1;
    c.in = kTypes[std::uniform_int_distribution<int>(0, 9)(rng)];
    c.out = iter % 2 == 0 ? kTypes[std::uniform_int_distribution<int>(0, 2)(rng)]
                          : kTypes[std::uniform_int_distribution<int>(0, 9)(rng)];
    c.in_layout = RandomLayout(rank, &rng, true);
    c.out_layout = RandomLayout(rank, &rng, false);
    RunCase(c, &rng);
    if (HasFailure()) break;
  }
}

// Every input dtype into every output dtype, row sums and column sums, contiguous and permuted.
TEST_F(ReduceSumVsGolden, EveryDtypePair) {
  std::mt19937 rng(11);
  for (aclDataType in : kTypes) {
    for (aclDataType out : kTypes) {
      for (int variant = 0; variant < 4; ++variant) {
        Case c;
        c.shape = {5, 37};
        c.dims = {variant % 2 == 0 ? int64_t{1} : int64_t{-2}};
        c.keep_dims = variant >= 2;
        c.in = in;
        c.out = out;
        if (variant == 1 || variant == 2) c.in_layout = TensorLayout::Permuted({1, 0});
        RunCase(c, &rng);
      }
    }
  }
}

// Inner, outer and middle reductions large enough to split outputs over several tasks and leaf
// groups (run order with chunks of 8192, column order with partial sums per group).
TEST_F(ReduceSumVsGolden, SplitProblems) {
  std::mt19937 rng(7);
  const Case cases[] = {
      {{3, 20000}, {1}, false, ACL_FLOAT, ACL_FLOAT, {}, {}},
      {{2, 30000}, {-1}, true, ACL_BF16, ACL_FLOAT, {}, TensorLayout::Padded(1)},
      {{50000}, {}, false, ACL_FLOAT16, ACL_FLOAT16, {}, {}},
      {{3000, 7}, {0}, false, ACL_FLOAT, ACL_FLOAT, {}, {}},
      {{2500, 3}, {0}, true, ACL_BF16, ACL_BF16, TensorLayout::Offset(1), {}},
      {{40, 700, 3}, {1}, false, ACL_FLOAT, ACL_FLOAT, {}, {}},
      {{4, 300, 600}, {1}, false, ACL_FLOAT16, ACL_FLOAT, {}, {}},
      {{300, 600}, {0}, false, ACL_FLOAT, ACL_FLOAT, TensorLayout::Permuted({1, 0}), {}},
      {{300, 600}, {0, 1}, false, ACL_FLOAT, ACL_BF16, TensorLayout::Permuted({1, 0}), {}},
      {{600, 300}, {1}, false, ACL_FLOAT, ACL_FLOAT, TensorLayout::Padded(5), {}},
      {{9000, 2, 3}, {0, 2}, false, ACL_FLOAT, ACL_FLOAT, {}, {}},
      {{5000, 4}, {0}, false, ACL_FLOAT, ACL_DOUBLE, {}, {}},
      {{5000, 4}, {0}, false, ACL_INT32, ACL_INT64, {}, {}},
      {{20000, 3}, {1}, false, ACL_FLOAT, ACL_FLOAT16, {}, {}},
      {{2, 20000}, {1}, false, ACL_DOUBLE, ACL_DOUBLE, {}, {}},
      {{700, 90}, {0}, false, ACL_FLOAT, ACL_FLOAT, TensorLayout::Broadcast({0}), {}},
      {{90, 700}, {1}, false, ACL_BF16, ACL_FLOAT, TensorLayout::Broadcast({0}), {}},
  };
  for (const Case& c : cases) RunCase(c, &rng);
}

}  // namespace
}  // namespace openaclnn::rs_test

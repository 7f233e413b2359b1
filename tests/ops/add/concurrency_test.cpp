// Several host threads, each on its own stream, running multi-chunk pointwise problems at once
// (the engine's chunks and tiles from several stream workers share the one thread pool): every
// result is bitwise the one of a run alone.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "aclnnop/aclnn_copy.h"
#include "util/pointwise_binary_test.h"

namespace openaclnn::test::pw {
namespace {

// Add on a broadcast problem of several chunks, then a transposed copy of the sum (tiles).
std::vector<double> AddThenTransposedCopy(aclrtStream stream, const DeviceTensor& a,
                                          const DeviceTensor& b, aclScalar* alpha) {
  DeviceTensor sum({300, 700}, ACL_BF16),
      copy({300, 700}, ACL_FLOAT, TensorLayout::Permuted({1, 0}));
  if (CallBinary(stream, Arith::kAdd, Form::kTensor, a.get(), b.get(), nullptr, alpha, sum.get()) !=
      ACLNN_SUCCESS) {
    return {};
  }
  const aclnnStatus s = RunOp(
      stream,
      [&](uint64_t* w, aclOpExecutor** e) {
        return aclnnInplaceCopyGetWorkspaceSize(copy.get(), sum.get(), w, e);
      },
      aclnnInplaceCopy);
  if (s != ACLNN_SUCCESS) return {};
  return copy.ValuesDouble();
}

TEST(PointwiseConcurrency, FourStreamsMatchARunAlone) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream main_stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&main_stream), ACL_SUCCESS);
  {
    std::mt19937 rng(11);
    DeviceTensor a({300, 700}, ACL_FLOAT), b({700}, ACL_BF16);
    a.FillDouble(RandomValues(ACL_FLOAT, a.numel(), &rng));
    b.FillDouble(RandomValues(ACL_BF16, b.numel(), &rng));
    Scalar alpha(0.7, ACL_FLOAT);
    const std::vector<double> expected = AddThenTransposedCopy(main_stream, a, b, alpha.get());
    ASSERT_EQ(expected.size(), 300u * 700u);
    constexpr int kThreads = 4, kIterations = 5;
    std::vector<int> mismatches(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        aclrtSetDevice(0);
        aclrtStream stream = nullptr;
        aclrtCreateStream(&stream);
        for (int i = 0; i < kIterations; ++i) {
          const std::vector<double> got = AddThenTransposedCopy(stream, a, b, alpha.get());
          mismatches[t] += got.size() != expected.size() ||
                           std::memcmp(got.data(), expected.data(), got.size() * sizeof(double));
        }
        aclrtDestroyStream(stream);
        aclrtResetDevice(0);
      });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  }
  EXPECT_EQ(aclrtDestroyStream(main_stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

}  // namespace
}  // namespace openaclnn::test::pw

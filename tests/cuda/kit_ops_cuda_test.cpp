// The kit's operators (pointwise, copy, cast, fill, ReduceSum) on a GPU device. They have no CUDA
// implementation yet and run their CPU plans host-staged (docs/cuda.md): the same results as on
// the CPU, written only inside the output views of GPU memory. Inputs are small integers and
// halves, so every correct evaluation gives the same bits and the expectations are exact.
// Phase 1 runs before its outputs (workspace size, executor) are read: never in one call's
// arguments, whose order of evaluation is unspecified. Skips without a GPU.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "util/cuda_fixture.h"
#include "util/device_tensor.h"
#include "util/ops_fixtures.h"

namespace openaclnn::test {
namespace {

using KitOpsCudaTest = CudaTest;

std::vector<double> SmallIntegers(int64_t n, int salt) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = static_cast<double>((i * 7 + salt) % 13 - 6);
  return v;
}

TEST_F(KitOpsCudaTest, AddBroadcastsWithAlphaIntoAPermutedOutput) {
  constexpr int64_t kRows = 37, kCols = 129;
  DeviceTensor self({kRows, kCols}, ACL_FLOAT, TensorLayout::Padded(3));
  DeviceTensor other({kRows, kCols}, ACL_BF16, TensorLayout::Broadcast({0}));
  DeviceTensor out({kRows, kCols}, ACL_FLOAT, TensorLayout::Scrambled(2));
  self.FillDouble(SmallIntegers(kRows * kCols, 1));
  other.FillDouble(SmallIntegers(kCols, 5));
  float alpha_value = 2.0f;
  aclScalar* alpha = aclCreateScalar(&alpha_value, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus phase1 =
      aclnnAddGetWorkspaceSize(self.get(), other.get(), alpha, out.get(), &ws, &executor);
  ASSERT_EQ(RunTwoPhase(phase1, ws, executor, stream(), aclnnAdd), ACLNN_SUCCESS) << RecentError();
  aclDestroyScalar(alpha);
  const std::vector<double> a = self.ValuesDouble(), b = other.ValuesDouble(),
                            got = out.ValuesDouble();
  for (int64_t i = 0; i < kRows * kCols; ++i)
    ASSERT_EQ(got[static_cast<size_t>(i)],
              a[static_cast<size_t>(i)] + 2.0 * b[static_cast<size_t>(i)])
        << i;
  EXPECT_EQ(out.DamagedCanaries(), 0);
}

TEST_F(KitOpsCudaTest, InplaceMulsAndTransposedCopyWithConversion) {
  constexpr int64_t kRows = 65, kCols = 33;
  DeviceTensor x({kRows, kCols}, ACL_BF16);
  x.FillDouble(SmallIntegers(kRows * kCols, 3));
  float half = 0.5f;
  aclScalar* scale = aclCreateScalar(&half, ACL_FLOAT);
  uint64_t ws = 0;
  aclOpExecutor* executor = nullptr;
  {
    const aclnnStatus phase1 = aclnnInplaceMulsGetWorkspaceSize(x.get(), scale, &ws, &executor);
    ASSERT_EQ(RunTwoPhase(phase1, ws, executor, stream(), aclnnInplaceMuls), ACLNN_SUCCESS)
        << RecentError();
  }
  aclDestroyScalar(scale);
  DeviceTensor dst({kRows, kCols}, ACL_FLOAT, TensorLayout::Permuted({1, 0}));
  {
    const aclnnStatus phase1 = aclnnInplaceCopyGetWorkspaceSize(dst.get(), x.get(), &ws, &executor);
    ASSERT_EQ(RunTwoPhase(phase1, ws, executor, stream(), aclnnInplaceCopy), ACLNN_SUCCESS)
        << RecentError();
  }
  const std::vector<double> src = SmallIntegers(kRows * kCols, 3), got = dst.ValuesDouble();
  for (int64_t i = 0; i < kRows * kCols; ++i)
    ASSERT_EQ(got[static_cast<size_t>(i)], 0.5 * src[static_cast<size_t>(i)]) << i;
  EXPECT_EQ(dst.DamagedCanaries(), 0);
}

TEST_F(KitOpsCudaTest, CastAndFillScalar) {
  constexpr int64_t kN = 1000;
  DeviceTensor x({kN}, ACL_FLOAT, TensorLayout::Offset(7));
  x.FillDouble(SmallIntegers(kN, 2));
  DeviceTensor y({kN}, ACL_INT32, TensorLayout::Padded(1));
  uint64_t ws = 0;
  aclOpExecutor* executor = nullptr;
  {
    const aclnnStatus phase1 =
        aclnnCastGetWorkspaceSize(x.get(), ACL_INT32, y.get(), &ws, &executor);
    ASSERT_EQ(RunTwoPhase(phase1, ws, executor, stream(), aclnnCast), ACLNN_SUCCESS)
        << RecentError();
  }
  EXPECT_EQ(y.ValuesDouble(), SmallIntegers(kN, 2));
  EXPECT_EQ(y.DamagedCanaries(), 0);
  float value = -3.5f;
  aclScalar* fill = aclCreateScalar(&value, ACL_FLOAT);
  {
    const aclnnStatus phase1 =
        aclnnInplaceFillScalarGetWorkspaceSize(x.get(), fill, &ws, &executor);
    ASSERT_EQ(RunTwoPhase(phase1, ws, executor, stream(), aclnnInplaceFillScalar), ACLNN_SUCCESS)
        << RecentError();
  }
  aclDestroyScalar(fill);
  EXPECT_EQ(x.ValuesDouble(), std::vector<double>(kN, -3.5));
  EXPECT_EQ(x.DamagedCanaries(), 0);
}

TEST_F(KitOpsCudaTest, ReduceSumOverTheMiddleDim) {
  constexpr int64_t kA = 9, kB = 301, kC = 17;
  DeviceTensor x({kA, kB, kC}, ACL_BF16, TensorLayout::Padded(2));
  x.FillDouble(SmallIntegers(kA * kB * kC, 4));
  DeviceTensor y({kA, 1, kC}, ACL_FLOAT, TensorLayout::Offset(3));
  const int64_t dim = 1;
  aclIntArray* dims = aclCreateIntArray(&dim, 1);
  uint64_t ws = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus phase1 =
      aclnnReduceSumGetWorkspaceSize(x.get(), dims, true, ACL_FLOAT, y.get(), &ws, &executor);
  ASSERT_EQ(RunTwoPhase(phase1, ws, executor, stream(), aclnnReduceSum), ACLNN_SUCCESS)
      << RecentError();
  aclDestroyIntArray(dims);
  const std::vector<double> in = x.ValuesDouble(), got = y.ValuesDouble();
  for (int64_t a = 0; a < kA; ++a) {
    for (int64_t c = 0; c < kC; ++c) {
      double sum = 0;
      for (int64_t b = 0; b < kB; ++b) sum += in[static_cast<size_t>((a * kB + b) * kC + c)];
      ASSERT_EQ(got[static_cast<size_t>(a * kC + c)], sum) << a << "," << c;
    }
  }
  EXPECT_EQ(y.DamagedCanaries(), 0);
}

}  // namespace
}  // namespace openaclnn::test

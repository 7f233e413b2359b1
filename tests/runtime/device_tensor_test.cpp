// test::DeviceTensor, the suites' one tensor helper: the strides each TensorLayout gives, the
// values stored and read back, and the canary checks the suites rely on to catch writes outside
// a view.
#include "util/device_tensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "aclnn/opdev/op_errno.h"
#include "api/dtype.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

class DeviceTensorTest : public RuntimeTest {};

// The strides and offset the aclTensor reports.
std::vector<int64_t> ViewStrides(const DeviceTensor& t) {
  int64_t* strides = nullptr;
  uint64_t rank = 0;
  EXPECT_EQ(aclGetViewStrides(t.get(), &strides, &rank), ACLNN_SUCCESS);
  std::vector<int64_t> v(strides, strides + rank);
  delete[] strides;
  return v;
}

TEST_F(DeviceTensorTest, LayoutsGiveTheirStrides) {
  const std::vector<int64_t> dims = {2, 3, 4};
  EXPECT_EQ(ViewStrides(DeviceTensor(dims, ACL_FLOAT)), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_EQ(ViewStrides(DeviceTensor(dims, ACL_FLOAT, TensorLayout::Padded(1))),
            (std::vector<int64_t>{20, 5, 1}));
  EXPECT_EQ(ViewStrides(DeviceTensor(dims, ACL_FLOAT, TensorLayout::Strided(2, 1))),
            (std::vector<int64_t>{24, 8, 2}));
  // Rows of the last two dims (12 elements) followed by 3 spare elements each.
  EXPECT_EQ(ViewStrides(DeviceTensor(dims, ACL_FLOAT, TensorLayout::PaddedRows(2, 3))),
            (std::vector<int64_t>{15, 4, 1}));
  // Each innermost line followed by 3 spare elements.
  EXPECT_EQ(ViewStrides(DeviceTensor(dims, ACL_FLOAT, TensorLayout::PaddedRows(1, 3))),
            (std::vector<int64_t>{21, 7, 1}));
  EXPECT_EQ(ViewStrides(DeviceTensor(dims, ACL_FLOAT, TensorLayout::Permuted({2, 0, 1}))),
            (std::vector<int64_t>{3, 1, 6}));
  EXPECT_EQ(ViewStrides(DeviceTensor(dims, ACL_FLOAT, TensorLayout::Explicit({-1, 0, 5}, 1))),
            (std::vector<int64_t>{-1, 0, 5}));
  DeviceTensor nd(dims, ACL_FLOAT, TensorLayout::Contiguous().WithFormat(ACL_FORMAT_NCL));
  aclFormat format = ACL_FORMAT_ND;
  ASSERT_EQ(aclGetFormat(nd.get(), &format), ACLNN_SUCCESS);
  EXPECT_EQ(format, ACL_FORMAT_NCL);
}

TEST_F(DeviceTensorTest, NegativeStridesStoreEachElementWhereTheViewSays) {
  // [3, 2] with the rows in reverse order: row r at element 2 * (2 - r) of the buffer.
  DeviceTensor t({3, 2}, ACL_FLOAT, TensorLayout::Explicit({-2, 1}, 4));
  t.Fill({0, 1, 2, 3, 4, 5});
  EXPECT_EQ(t.Values(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  const std::vector<uint8_t> bytes = t.Bytes();
  ASSERT_EQ(bytes.size(), 6 * sizeof(float));
  std::vector<float> buffer(6);
  std::memcpy(buffer.data(), bytes.data(), bytes.size());
  EXPECT_EQ(buffer, (std::vector<float>{4, 5, 2, 3, 0, 1}));
  // A view that would reach below its buffer is refused.
  EXPECT_THROW(DeviceTensor({3, 2}, ACL_FLOAT, TensorLayout::Explicit({-2, 1}, 3)),
               std::invalid_argument);
}

TEST_F(DeviceTensorTest, CanariesCatchWritesBesideTheView) {
  DeviceTensor t({4, 3}, ACL_BF16, TensorLayout::Strided(2, 1).WithTail(2));
  EXPECT_TRUE(t.Untouched());
  t.Fill({1.0f, -2.0f, 0.5f});
  EXPECT_FALSE(t.Untouched());
  EXPECT_EQ(t.DamagedCanaries(), 0);
  // One byte of the gap between elements 0 and 1 (element 2 of the buffer).
  const uint8_t junk = 0;
  ASSERT_EQ(aclrtMemcpy(static_cast<uint8_t*>(t.data()) + 2 * 2 + 1, 1, &junk, 1,
                        ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  EXPECT_EQ(t.DamagedCanaries(), 1);
  t.Reset();
  EXPECT_TRUE(t.Untouched());
}

TEST_F(DeviceTensorTest, NanCanaryReadsAsNanInEveryFloatType) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    DeviceTensor t({5}, dtype, TensorLayout::Padded(0).WithNanCanary());
    for (double v : t.ValuesDouble()) EXPECT_TRUE(std::isnan(v)) << DTypeName(dtype);
    t.FillDouble({1.0});
    EXPECT_EQ(t.DamagedCanaries(), 0);
    t.Reset();
    EXPECT_TRUE(t.Untouched());
  }
}

TEST_F(DeviceTensorTest, FillUniformReturnsTheStoredValues) {
  std::mt19937 a(3), b(3);
  DeviceTensor t({7, 5}, ACL_BF16, TensorLayout::Permuted({1, 0}).WithOffset(3));
  const std::vector<double> stored = t.FillUniform(&a, -2.0f, 2.0f);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  ASSERT_EQ(stored.size(), 35u);
  for (size_t i = 0; i < stored.size(); ++i) {
    EXPECT_EQ(stored[i], RoundThroughBFloat16(dist(b))) << i;
    EXPECT_EQ(stored[i], t.Get(static_cast<int64_t>(i))) << i;
  }
  EXPECT_EQ(t.Set(4, 1.0f + 1.0f / 512), 1.0);  // rounded to BF16's 8 bits of precision
  EXPECT_EQ(t.DamagedCanaries(), 0);
}

TEST_F(DeviceTensorTest, SelfOverlappingViewsKeepTheLastElementWritten) {
  DeviceTensor t({3, 2}, ACL_FLOAT, TensorLayout::Explicit({0, 1}));
  t.Fill({1, 2, 3, 4, 5, 6});
  EXPECT_EQ(t.Values(), (std::vector<float>{5, 6, 5, 6, 5, 6}));
  EXPECT_EQ(t.DamagedCanaries(), 0);
}

}  // namespace
}  // namespace openaclnn::test

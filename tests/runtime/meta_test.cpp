// aclTensor, arrays, scalars, lists and their getters.

#include "runtime/meta.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "aclnn/acl_meta.h"
#include "api/tensor_desc.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

TEST(TensorTest, CreateAndReadBack) {
  float storage[100];
  std::vector<int64_t> view{6, 5}, strides{10, 1}, storage_dims{10, 10};
  aclTensor* t = aclCreateTensor(view.data(), 2, ACL_FLOAT, strides.data(), 22, ACL_FORMAT_NCL,
                                 storage_dims.data(), 2, storage);
  ASSERT_NE(t, nullptr);
  int64_t* dims = nullptr;
  uint64_t n = 0;
  ASSERT_EQ(aclGetViewShape(t, &dims, &n), 0);
  EXPECT_EQ(std::vector<int64_t>(dims, dims + n), view);
  delete[] dims;
  ASSERT_EQ(aclGetViewStrides(t, &dims, &n), 0);
  EXPECT_EQ(std::vector<int64_t>(dims, dims + n), strides);
  delete[] dims;
  ASSERT_EQ(aclGetStorageShape(t, &dims, &n), 0);
  EXPECT_EQ(std::vector<int64_t>(dims, dims + n), storage_dims);
  delete[] dims;
  int64_t offset = 0;
  EXPECT_EQ(aclGetViewOffset(t, &offset), 0);
  EXPECT_EQ(offset, 22);
  aclFormat format = ACL_FORMAT_ND;
  EXPECT_EQ(aclGetFormat(t, &format), 0);
  EXPECT_EQ(format, ACL_FORMAT_NCL);
  aclDataType dtype = ACL_DT_UNDEFINED;
  EXPECT_EQ(aclGetDataType(t, &dtype), 0);
  EXPECT_EQ(dtype, ACL_FLOAT);
  void* addr = nullptr;
  EXPECT_EQ(aclGetRawTensorAddr(t, &addr), 0);
  EXPECT_EQ(addr, storage);
  EXPECT_EQ(aclSetRawTensorAddr(t, storage + 1), 0);
  EXPECT_EQ(aclGetRawTensorAddr(t, &addr), 0);
  EXPECT_EQ(addr, storage + 1);
  TensorDesc desc;
  DescribeTensor(*t, &desc);
  EXPECT_EQ(desc.First(storage), static_cast<void*>(storage + 22));
  EXPECT_FALSE(desc.IsContiguous());
  EXPECT_EQ(desc.Numel(), 30);
  EXPECT_EQ(aclDestroyTensor(t), 0);
}

TEST(TensorTest, NullArgumentsAndContiguousDefault) {
  int64_t dims[3] = {2, 0, 4};
  EXPECT_EQ(aclCreateTensor(nullptr, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 3, nullptr),
            nullptr);
  EXPECT_NE(RecentError().find("viewDims is nullptr"), std::string::npos);
  EXPECT_EQ(aclCreateTensor(dims, 3, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 3, nullptr),
            nullptr);
  // A 0-d tensor, and a null data pointer, are fine.
  aclTensor* scalar_like =
      aclCreateTensor(nullptr, 0, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
  ASSERT_NE(scalar_like, nullptr);
  EXPECT_EQ(Numel(*scalar_like), 1);
  aclDestroyTensor(scalar_like);
  aclTensor* t = aclCreateTensor(dims, 3, ACL_BF16, nullptr, 0, ACL_FORMAT_ND, dims, 3, nullptr);
  ASSERT_NE(t, nullptr);
  int64_t* strides = nullptr;
  uint64_t n = 0;
  ASSERT_EQ(aclGetViewStrides(t, &strides, &n), 0);
  EXPECT_EQ(std::vector<int64_t>(strides, strides + n), (std::vector<int64_t>{4, 4, 1}));
  delete[] strides;
  int64_t* out = nullptr;
  EXPECT_EQ(aclGetViewShape(nullptr, &out, &n), 161001);
  EXPECT_EQ(aclGetViewShape(t, nullptr, &n), 161001);
  EXPECT_EQ(aclGetViewShape(t, &out, nullptr), 161001);
  EXPECT_EQ(aclGetStorageShape(t, nullptr, &n), 161001);
  EXPECT_EQ(aclGetViewStrides(nullptr, &out, &n), 161001);
  EXPECT_EQ(aclGetViewOffset(t, nullptr), 161001);
  EXPECT_EQ(aclGetFormat(nullptr, nullptr), 161001);
  EXPECT_EQ(aclGetDataType(t, nullptr), 161001);
  EXPECT_EQ(aclSetRawTensorAddr(nullptr, dims), 161001);
  EXPECT_EQ(aclGetRawTensorAddr(t, nullptr), 161001);
  EXPECT_NE(RecentError().find("aclGetRawTensorAddr"), std::string::npos);
  EXPECT_EQ(aclDestroyTensor(t), 0);
  EXPECT_EQ(aclDestroyTensor(nullptr), 0);
}

TEST(TensorTest, InitTensorReplacesEverything) {
  int64_t a[2] = {3, 4};
  int64_t b[1] = {5};
  aclTensor* t = aclCreateTensor(a, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, a, 2, nullptr);
  ASSERT_NE(t, nullptr);
  float data[5];
  ASSERT_EQ(aclInitTensor(t, b, 1, ACL_FLOAT16, nullptr, 2, ACL_FORMAT_NC, b, 1, data), 0);
  EXPECT_EQ(t->view_dims, std::vector<int64_t>{5});
  EXPECT_EQ(t->strides, std::vector<int64_t>{1});
  EXPECT_EQ(t->dtype, ACL_FLOAT16);
  EXPECT_EQ(t->offset, 2);
  EXPECT_EQ(t->data, data);
  EXPECT_EQ(aclInitTensor(nullptr, b, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, b, 1, data), 161001);
  aclDestroyTensor(t);
}

TEST(TensorTest, ExtentChecks) {
  int64_t dims[2] = {4, 4};
  int64_t strides[2] = {4, 1};
  void* block = nullptr;
  ASSERT_EQ(aclrtMalloc(&block, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  aclTensor* fits = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, block);
  EXPECT_TRUE(CheckTensorExtent(*fits, "x").ok());
  aclTensor* past = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 1, ACL_FORMAT_ND, dims, 2, block);
  Status s = CheckTensorExtent(*past, "x");
  EXPECT_EQ(s.code(), 161002);
  EXPECT_NE(s.message().find("aclrtMalloc block"), std::string::npos) << s.message();
  int64_t negative[2] = {4, -1};
  aclTensor* neg =
      aclCreateTensor(negative, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, block);
  EXPECT_EQ(CheckTensorExtent(*neg, "x").code(), 161002);
  int64_t huge[2] = {INT64_MAX / 2, 4};
  aclTensor* overflow =
      aclCreateTensor(huge, 2, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 2, block);
  s = CheckTensorExtent(*overflow, "x");
  EXPECT_EQ(s.code(), 161002);
  EXPECT_NE(s.message().find("overflows"), std::string::npos) << s.message();
  int64_t back_strides[2] = {-4, 1};
  aclTensor* before =
      aclCreateTensor(dims, 2, ACL_FLOAT, back_strides, 0, ACL_FORMAT_ND, dims, 2, block);
  EXPECT_EQ(CheckTensorExtent(*before, "x").code(), 161002);
  aclTensor* back_ok =
      aclCreateTensor(dims, 2, ACL_FLOAT, back_strides, 12, ACL_FORMAT_ND, dims, 2, block);
  EXPECT_TRUE(CheckTensorExtent(*back_ok, "x").ok());
  int64_t empty[2] = {0, 1000000};
  aclTensor* none =
      aclCreateTensor(empty, 2, ACL_FLOAT, nullptr, 99999, ACL_FORMAT_ND, dims, 2, block);
  EXPECT_TRUE(CheckTensorExtent(*none, "x").ok());
  float host[16];
  aclTensor* host_view =
      aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, dims, 2, host);
  EXPECT_TRUE(CheckTensorExtent(*host_view, "x").ok());  // plain host memory is accepted
  for (aclTensor* t : {fits, past, neg, overflow, before, back_ok, none, host_view}) {
    aclDestroyTensor(t);
  }
  aclrtFree(block);
}

TEST(ArrayTest, ArraysScalarsAndLists) {
  const int64_t iv[3] = {4, 5, 6};
  aclIntArray* ia = aclCreateIntArray(iv, 3);
  ASSERT_NE(ia, nullptr);
  uint64_t size = 0;
  EXPECT_EQ(aclGetIntArraySize(ia, &size), 0);
  EXPECT_EQ(size, 3u);
  EXPECT_EQ(ia->values, (std::vector<int64_t>{4, 5, 6}));
  EXPECT_EQ(aclGetIntArraySize(nullptr, &size), 161001);
  EXPECT_EQ(aclDestroyIntArray(ia), 0);
  EXPECT_EQ(aclCreateIntArray(nullptr, 2), nullptr);
  aclIntArray* empty = aclCreateIntArray(nullptr, 0);
  ASSERT_NE(empty, nullptr);
  aclDestroyIntArray(empty);

  const float fv[2] = {1.5f, -2.f};
  aclFloatArray* fa = aclCreateFloatArray(fv, 2);
  ASSERT_NE(fa, nullptr);
  EXPECT_EQ(aclGetFloatArraySize(fa, &size), 0);
  EXPECT_EQ(size, 2u);
  EXPECT_EQ(fa->values[1], -2.f);
  aclDestroyFloatArray(fa);

  const bool bv[3] = {true, false, true};
  aclBoolArray* ba = aclCreateBoolArray(bv, 3);
  ASSERT_NE(ba, nullptr);
  EXPECT_EQ(aclGetBoolArraySize(ba, &size), 0);
  EXPECT_EQ(size, 3u);
  EXPECT_FALSE(ba->values[1]);
  aclDestroyBoolArray(ba);

  double value = 2.5;
  aclScalar* s = aclCreateScalar(&value, ACL_DOUBLE);
  ASSERT_NE(s, nullptr);
  value = 0;  // the value was copied
  double stored = 0;
  std::memcpy(&stored, s->value, sizeof(stored));
  EXPECT_EQ(stored, 2.5);
  EXPECT_EQ(aclCreateScalar(nullptr, ACL_FLOAT), nullptr);
  EXPECT_EQ(aclCreateScalar(&value, ACL_STRING), nullptr);

  int64_t dims[1] = {3};
  const aclTensor* tensors[2] = {
      aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr),
      aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr)};
  aclTensorList* tl = aclCreateTensorList(tensors, 2);
  ASSERT_NE(tl, nullptr);
  EXPECT_EQ(aclGetTensorListSize(tl, &size), 0);
  EXPECT_EQ(size, 2u);
  EXPECT_EQ(aclDestroyTensorList(tl), 0);  // owns and frees its tensors

  const aclScalar* scalars[1] = {s};
  aclScalarList* sl = aclCreateScalarList(scalars, 1);
  ASSERT_NE(sl, nullptr);
  EXPECT_EQ(aclGetScalarListSize(sl, &size), 0);
  EXPECT_EQ(size, 1u);
  EXPECT_EQ(aclDestroyScalarList(sl), 0);  // owns and frees its scalars
  EXPECT_EQ(aclDestroyScalar(nullptr), 0);
  EXPECT_EQ(aclDestroyTensorList(nullptr), 0);
}

TEST(DataTypeSizeTest, MatchesCann) {
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT), 4u);
  EXPECT_EQ(aclDataTypeSize(ACL_FLOAT16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_BF16), 2u);
  EXPECT_EQ(aclDataTypeSize(ACL_INT64), 8u);
  EXPECT_EQ(aclDataTypeSize(ACL_BOOL), 1u);
  EXPECT_EQ(aclDataTypeSize(ACL_STRING), 0u);
}

}  // namespace
}  // namespace openaclnn::test

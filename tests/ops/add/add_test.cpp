// aclnnAdd, aclnnAdds, aclnnInplaceAdd, aclnnInplaceAdds: values against the test's golden model
// (every dtype pair, layouts, broadcasting, random shapes, the float64 reference), crafted exact
// cases, empty and 0-d tensors, overlapping operands, the error matrix and bitwise determinism.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "util/pointwise_binary_test.h"

namespace openaclnn::test::pw {
namespace {

class AddTest : public PointwiseTest {};

TEST_F(AddTest, EveryDtypePair) { SweepDtypePairs(stream_, Arith::kAdd); }
// The float64 reference (OPENACLNN_FORCE_IMPL=add=reference) on every dtype pair.
TEST_F(AddTest, ReferenceEveryDtypePair) {
  setenv("OPENACLNN_FORCE_IMPL", "add=reference", 1);
  SweepDtypePairs(stream_, Arith::kAdd);
}
TEST_F(AddTest, LayoutsAndBroadcasting) { SweepLayouts(stream_, Arith::kAdd); }
TEST_F(AddTest, RandomShapesAndReference) { SweepRandomShapes(stream_, Arith::kAdd, "add", 24); }

// Operands transposed on dims of 64 and more take the engine's tile buffers: transposed inputs,
// a transposed output, and a transposed selfRef updated in place, with ragged tile edges.
TEST_F(AddTest, LargeTransposedOperands) {
  uint32_t seed = 300;
  for (aclDataType t : {ACL_FLOAT, ACL_BF16, ACL_INT8, ACL_DOUBLE}) {
    BinaryCase c;
    c.self_dims = {3, 130, 200};
    c.other_dims = {130, 200};
    c.self_type = c.other_type = c.out_type = t;
    c.alpha = 2;
    c.alpha_type = ACL_INT32;
    c.self_layout = TensorLayout::Permuted({0, 2, 1});
    c.other_layout = TensorLayout::Permuted({1, 0});
    RunBinaryCase(stream_, c, seed++);
    c.self_layout = TensorLayout::Contiguous();
    c.out_layout = TensorLayout::Scrambled(3);
    RunBinaryCase(stream_, c, seed++);
    c.form = Form::kInplaceTensor;
    c.self_layout = TensorLayout::Permuted({0, 2, 1});
    RunBinaryCase(stream_, c, seed++);
  }
}

TEST_F(AddTest, CraftedExactValues) {
  // INT8 wraps; alpha scales other; BOOL is "nonzero" of the integer sum.
  DeviceTensor a({4}, ACL_INT8), b({4}, ACL_INT8), out({4}, ACL_INT8);
  a.FillDouble({100, -100, 5, 0});
  b.FillDouble({100, -100, -3, 1});
  Scalar alpha(2, ACL_INT32);
  ASSERT_EQ(CallBinary(stream_, Arith::kAdd, Form::kTensor, a.get(), b.get(), nullptr, alpha.get(),
                       out.get()),
            ACLNN_SUCCESS);
  // 100 + 200 = 300 -> 44; -100 - 200 = -300 -> -44; 5 - 6 = -1; 0 + 2 = 2.
  EXPECT_EQ(out.ValuesDouble(), (std::vector<double>{44, -44, -1, 2}));

  DeviceTensor x({3}, ACL_BOOL), y({3}, ACL_BOOL), z({3}, ACL_BOOL);
  x.FillDouble({0, 1, 0});
  y.FillDouble({0, 1, 1});
  Scalar one(1, ACL_BOOL);
  ASSERT_EQ(CallBinary(stream_, Arith::kAdd, Form::kTensor, x.get(), y.get(), nullptr, one.get(),
                       z.get()),
            ACLNN_SUCCESS);
  EXPECT_EQ(z.ValuesDouble(), (std::vector<double>{0, 1, 1}));

  // INT32 tensor + FLOAT scalar computes in FLOAT; into an INT32 out the sum is truncated.
  DeviceTensor i({3}, ACL_INT32), o({3}, ACL_INT32);
  i.FillDouble({1, -2, 7});
  Scalar s(0.75, ACL_FLOAT), alpha3(3, ACL_INT64);
  ASSERT_EQ(CallBinary(stream_, Arith::kAdd, Form::kScalar, i.get(), nullptr, s.get(), alpha3.get(),
                       o.get()),
            ACLNN_SUCCESS);
  EXPECT_EQ(o.ValuesDouble(), (std::vector<double>{3, 0, 9}));  // 3.25, 0.25, 9.25

  // FLOAT16 + FLOAT: FLOAT result, exact for these values.
  DeviceTensor h({2}, ACL_FLOAT16), f({2}, ACL_FLOAT), r({2}, ACL_FLOAT);
  h.FillDouble({0.5, 1024});
  f.FillDouble({0.25, 0.125});
  Scalar alpha1(1, ACL_FLOAT);
  ASSERT_EQ(CallBinary(stream_, Arith::kAdd, Form::kTensor, h.get(), f.get(), nullptr, alpha1.get(),
                       r.get()),
            ACLNN_SUCCESS);
  EXPECT_EQ(r.ValuesDouble(), (std::vector<double>{0.75, 1024.125}));
}

TEST_F(AddTest, EmptyAndZeroDim) {
  Scalar alpha(1, ACL_FLOAT);
  DeviceTensor a({0, 3}, ACL_FLOAT), b({3}, ACL_FLOAT), out({0, 3}, ACL_FLOAT);
  EXPECT_EQ(CallBinary(stream_, Arith::kAdd, Form::kTensor, a.get(), b.get(), nullptr, alpha.get(),
                       out.get()),
            ACLNN_SUCCESS);
  EXPECT_TRUE(out.Untouched());
  DeviceTensor s({}, ACL_FLOAT), t({}, ACL_FLOAT), u({}, ACL_FLOAT);
  s.FillDouble({1.5});
  t.FillDouble({2.25});
  EXPECT_EQ(CallBinary(stream_, Arith::kAdd, Form::kTensor, s.get(), t.get(), nullptr, alpha.get(),
                       u.get()),
            ACLNN_SUCCESS);
  EXPECT_EQ(u.GetDouble(0), 3.75);
  // A 0-d other broadcast over a matrix.
  DeviceTensor m({2, 3}, ACL_BF16), mo({2, 3}, ACL_BF16);
  m.FillDouble({1, 2, 3, 4, 5, 6});
  EXPECT_EQ(CallBinary(stream_, Arith::kAdd, Form::kTensor, m.get(), t.get(), nullptr, alpha.get(),
                       mo.get()),
            ACLNN_SUCCESS);
  EXPECT_EQ(mo.ValuesDouble(), (std::vector<double>{3.25, 4.25, 5.25, 6.25, 7.25, 8.25}));
}

// out shares memory with self shifted by one element: the engine reads a copy of self, so every
// output is the sum of the original inputs (as if out were a separate tensor).
TEST_F(AddTest, PartiallyOverlappingOutputIsComputedFromTheOriginalInputs) {
  const int64_t n = 1000;
  void* buffer = nullptr;
  ASSERT_EQ(aclrtMalloc(&buffer, (n + 1) * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
  std::vector<float> init(n + 1);
  for (int64_t i = 0; i <= n; ++i) init[i] = static_cast<float>(i);
  ASSERT_EQ(aclrtMemcpy(buffer, (n + 1) * sizeof(float), init.data(), (n + 1) * sizeof(float),
                        ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  const int64_t dims[1] = {n}, strides[1] = {1}, storage[1] = {n + 1};
  aclTensor* self =
      aclCreateTensor(dims, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, storage, 1, buffer);
  aclTensor* out =
      aclCreateTensor(dims, 1, ACL_FLOAT, strides, 1, ACL_FORMAT_ND, storage, 1, buffer);
  DeviceTensor other({n}, ACL_FLOAT);
  other.FillDouble({1000.0});
  Scalar alpha(1, ACL_FLOAT);
  ASSERT_EQ(
      CallBinary(stream_, Arith::kAdd, Form::kTensor, self, other.get(), nullptr, alpha.get(), out),
      ACLNN_SUCCESS)
      << RecentError();
  std::vector<float> got(n + 1);
  ASSERT_EQ(aclrtMemcpy(got.data(), (n + 1) * sizeof(float), buffer, (n + 1) * sizeof(float),
                        ACL_MEMCPY_DEVICE_TO_HOST),
            ACL_SUCCESS);
  EXPECT_EQ(got[0], 0.0f);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i + 1], static_cast<float>(i) + 1000.0f) << i;
  aclDestroyTensor(self);
  aclDestroyTensor(out);
  aclrtFree(buffer);
}

// Negative strides: a reversed vector, and a transposed matrix with reversed rows (the tile
// buffer's gather walking a column backwards), against values computed here.
TEST_F(AddTest, NegativeStrides) {
  const int64_t rows = 70, cols = 80, n = rows * cols;
  void* buffer = nullptr;
  ASSERT_EQ(aclrtMalloc(&buffer, n * sizeof(float), ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
  std::vector<float> init(n);
  for (int64_t i = 0; i < n; ++i) init[i] = static_cast<float>(i);
  ASSERT_EQ(aclrtMemcpy(buffer, n * sizeof(float), init.data(), n * sizeof(float),
                        ACL_MEMCPY_HOST_TO_DEVICE),
            ACL_SUCCESS);
  const int64_t storage[1] = {n};
  Scalar alpha(2, ACL_INT32);
  {
    // self[i] = storage[n - 1 - i]
    const int64_t dims[1] = {n}, strides[1] = {-1};
    aclTensor* self =
        aclCreateTensor(dims, 1, ACL_FLOAT, strides, n - 1, ACL_FORMAT_ND, storage, 1, buffer);
    DeviceTensor other({n}, ACL_FLOAT), out({n}, ACL_FLOAT);
    other.FillDouble({1.0, 2.0, 3.0});
    ASSERT_EQ(CallBinary(stream_, Arith::kAdd, Form::kTensor, self, other.get(), nullptr,
                         alpha.get(), out.get()),
              ACLNN_SUCCESS)
        << RecentError();
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(out.GetDouble(i), static_cast<double>(n - 1 - i) + 2.0 * (1 + i % 3)) << i;
    }
    aclDestroyTensor(self);
  }
  {
    // self[r][c] = storage[(rows - 1 - r) + c * rows]
    const int64_t dims[2] = {rows, cols}, strides[2] = {-1, rows};
    aclTensor* self =
        aclCreateTensor(dims, 2, ACL_FLOAT, strides, rows - 1, ACL_FORMAT_ND, storage, 1, buffer);
    DeviceTensor other({cols}, ACL_FLOAT), out({rows, cols}, ACL_FLOAT);
    other.FillDouble({0.5, -1.0});
    ASSERT_EQ(CallBinary(stream_, Arith::kAdd, Form::kTensor, self, other.get(), nullptr,
                         alpha.get(), out.get()),
              ACLNN_SUCCESS)
        << RecentError();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const double want =
            static_cast<double>((rows - 1 - r) + c * rows) + 2.0 * (c % 2 ? -1.0 : 0.5);
        ASSERT_EQ(out.GetDouble(r * cols + c), want) << r << "," << c;
      }
    }
    EXPECT_EQ(out.DamagedCanaries(), 0);
    aclDestroyTensor(self);
  }
  aclrtFree(buffer);
}

// The error matrix of the pages: each documented failure, its code and the parameter named.
TEST_F(AddTest, Errors) {
  DeviceTensor f({2, 3}, ACL_FLOAT), g({3}, ACL_FLOAT), out({2, 3}, ACL_FLOAT);
  DeviceTensor bad_shape({4}, ACL_FLOAT), out_wrong({3, 2}, ACL_FLOAT);
  DeviceTensor boolean({2, 3}, ACL_BOOL), uint16({2, 3}, ACL_UINT16);
  DeviceTensor rank9({1, 1, 1, 1, 1, 1, 1, 1, 2}, ACL_FLOAT);
  Scalar alpha(1, ACL_FLOAT), fscalar(1.5, ACL_FLOAT), bool_alpha(1, ACL_BOOL);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  struct Expect {
    aclnnStatus code;
    const char* param;
  };
  auto check = [&](aclnnStatus got, Expect want, const char* what) {
    EXPECT_EQ(got, want.code) << what;
    const std::string msg = RecentError();
    EXPECT_NE(msg.find(want.param), std::string::npos) << what << ": " << msg;
  };
  check(aclnnAddGetWorkspaceSize(nullptr, g.get(), alpha.get(), out.get(), &ws, &ex),
        {ACLNN_ERR_PARAM_NULLPTR, "self"}, "null self");
  check(aclnnAddGetWorkspaceSize(f.get(), nullptr, alpha.get(), out.get(), &ws, &ex),
        {ACLNN_ERR_PARAM_NULLPTR, "other"}, "null other");
  check(aclnnAddGetWorkspaceSize(f.get(), g.get(), nullptr, out.get(), &ws, &ex),
        {ACLNN_ERR_PARAM_NULLPTR, "alpha"}, "null alpha");
  check(aclnnAddGetWorkspaceSize(f.get(), g.get(), alpha.get(), nullptr, &ws, &ex),
        {ACLNN_ERR_PARAM_NULLPTR, "out"}, "null out");
  check(aclnnAddGetWorkspaceSize(uint16.get(), g.get(), alpha.get(), out.get(), &ws, &ex),
        {ACLNN_ERR_PARAM_INVALID, "self dtype"}, "unsupported self dtype");
  check(aclnnAddGetWorkspaceSize(f.get(), uint16.get(), alpha.get(), out.get(), &ws, &ex),
        {ACLNN_ERR_PARAM_INVALID, "other dtype"}, "unsupported other dtype");
  check(aclnnAddGetWorkspaceSize(f.get(), g.get(), alpha.get(), boolean.get(), &ws, &ex),
        {ACLNN_ERR_PARAM_INVALID, "out dtype"}, "FLOAT cannot convert to BOOL");
  check(aclnnAddGetWorkspaceSize(boolean.get(), boolean.get(), fscalar.get(), boolean.get(), &ws,
                                 &ex),
        {ACLNN_ERR_PARAM_INVALID, "alpha"}, "float alpha with a BOOL promotion");
  check(aclnnAddGetWorkspaceSize(f.get(), bad_shape.get(), alpha.get(), out.get(), &ws, &ex),
        {ACLNN_ERR_PARAM_INVALID, "cannot broadcast"}, "shapes that do not broadcast");
  check(aclnnAddGetWorkspaceSize(f.get(), g.get(), alpha.get(), out_wrong.get(), &ws, &ex),
        {ACLNN_ERR_PARAM_INVALID, "out shape"}, "out not the broadcast shape");
  check(aclnnAddGetWorkspaceSize(rank9.get(), g.get(), alpha.get(), out.get(), &ws, &ex),
        {ACLNN_ERR_PARAM_INVALID, "self rank"}, "rank 9 self");
  check(aclnnInplaceAddGetWorkspaceSize(nullptr, g.get(), alpha.get(), &ws, &ex),
        {ACLNN_ERR_PARAM_NULLPTR, "selfRef"}, "null selfRef");
  check(aclnnInplaceAddGetWorkspaceSize(g.get(), f.get(), alpha.get(), &ws, &ex),
        {ACLNN_ERR_PARAM_INVALID, "selfRef shape"}, "broadcast shape is not selfRef's");
  check(aclnnInplaceAddGetWorkspaceSize(f.get(), g.get(), nullptr, &ws, &ex),
        {ACLNN_ERR_PARAM_NULLPTR, "alpha"}, "inplace null alpha");
  check(aclnnAddsGetWorkspaceSize(f.get(), nullptr, alpha.get(), out.get(), &ws, &ex),
        {ACLNN_ERR_PARAM_NULLPTR, "other"}, "null scalar other");
  check(aclnnAddsGetWorkspaceSize(f.get(), fscalar.get(), alpha.get(), out_wrong.get(), &ws, &ex),
        {ACLNN_ERR_PARAM_INVALID, "out shape"}, "Adds out shape");
  check(aclnnAddsGetWorkspaceSize(boolean.get(), bool_alpha.get(), fscalar.get(), boolean.get(),
                                  &ws, &ex),
        {ACLNN_ERR_PARAM_INVALID, "alpha"}, "Adds float alpha with BOOL");
  check(aclnnInplaceAddsGetWorkspaceSize(boolean.get(), fscalar.get(), alpha.get(), &ws, &ex),
        {ACLNN_ERR_PARAM_INVALID, "selfRef dtype"}, "FLOAT result into a BOOL selfRef");
  check(aclnnAddGetWorkspaceSize(f.get(), g.get(), alpha.get(), out.get(), nullptr, &ex),
        {ACLNN_ERR_PARAM_NULLPTR, "workspaceSize"}, "null workspaceSize");
}

// Bitwise the same output for 1, 2 and 3 threads and every SIMD target, on problems of several
// chunks: contiguous, broadcast and strided, FLOAT, BFLOAT16 and FLOAT16.
TEST_F(AddTest, Determinism) {
  struct Case {
    std::vector<int64_t> self, other;
    aclDataType type;
    TensorLayout layout;
  };
  const Case cases[] = {
      {{300001}, {300001}, ACL_FLOAT, TensorLayout::Contiguous()},
      {{513, 400}, {400}, ACL_BF16, TensorLayout::Contiguous()},
      {{400, 513}, {400, 1}, ACL_FLOAT16, TensorLayout::Permuted({1, 0})},
      {{70, 3, 1001}, {3, 1}, ACL_FLOAT, TensorLayout::Scrambled(3)},
  };
  for (const Case& c : cases) {
    std::vector<std::vector<uint8_t>> results;
    std::mt19937 rng(5);
    DeviceTensor a(c.self, c.type, c.layout), b(c.other, c.type);
    a.FillDouble(RandomValues(c.type, a.numel(), &rng));
    b.FillDouble(RandomValues(c.type, b.numel(), &rng));
    Scalar alpha(0.3, ACL_FLOAT);
    for (const std::string& isa : cpu::AvailableIsas()) {
      ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
      for (int threads : {1, 2, 3}) {
        cpu::SetNumThreads(threads);
        DeviceTensor out(c.self, c.type, c.layout);
        ASSERT_EQ(CallBinary(stream_, Arith::kAdd, Form::kTensor, a.get(), b.get(), nullptr,
                             alpha.get(), out.get()),
                  ACLNN_SUCCESS);
        const std::vector<double> v = out.ValuesDouble();
        std::vector<uint8_t> bytes(v.size() * sizeof(double));
        std::memcpy(bytes.data(), v.data(), bytes.size());
        results.push_back(bytes);
        EXPECT_EQ(results.front(), results.back()) << isa << " threads " << threads;
      }
    }
    cpu::SetNumThreads(0);
    ASSERT_TRUE(cpu::SetPlanningIsaCap(""));
  }
}

}  // namespace
}  // namespace openaclnn::test::pw

// The API matrix of aclnnReduceSum: one case per documented error (code, and a message naming the
// parameter), the empty-tensor and 0-d rules, crafted exact sums for every output dtype, and the
// float64 reference forced through OPENACLNN_FORCE_IMPL.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "backend/cpu/thread_pool.h"
#include "ops/reduce_sum/rs_test_util.h"

namespace openaclnn::rs_test {
namespace {

using test::RecentError;

class ReduceSumApi : public test::RuntimeTest {
 protected:
  // Phase 1 only, on fresh tensors; returns its status and leaves the message in `message`.
  aclnnStatus Phase1(const std::vector<int64_t>& shape, aclDataType in,
                     const std::vector<int64_t>& dims, bool keep, aclDataType dtype,
                     const std::vector<int64_t>& out_shape, aclDataType out_type,
                     std::string* message, bool null_self = false, bool null_dims = false,
                     bool null_out = false) {
    DeviceTensor self(shape, in == ACL_COMPLEX64 ? ACL_FLOAT : in);
    DeviceTensor out(out_shape, out_type == ACL_COMPLEX64 ? ACL_FLOAT : out_type);
    // Complex dtypes: the tensor helper does not address them, so describe the same memory.
    aclTensor* self_t = self.get();
    aclTensor* out_t = out.get();
    aclTensor* complex_self = nullptr;
    aclTensor* complex_out = nullptr;
    if (in == ACL_COMPLEX64) {
      const std::vector<int64_t> one = {1};
      static float storage[4];
      complex_self = aclCreateTensor(one.data(), 1, ACL_COMPLEX64, nullptr, 0, ACL_FORMAT_ND,
                                     one.data(), 1, storage);
      self_t = complex_self;
    }
    if (out_type == ACL_COMPLEX64) {
      const std::vector<int64_t> one = {1};
      static float storage[4];
      complex_out = aclCreateTensor(one.data(), 1, ACL_COMPLEX64, nullptr, 0, ACL_FORMAT_ND,
                                    one.data(), 1, storage);
      out_t = complex_out;
    }
    aclIntArray* dims_array = aclCreateIntArray(dims.data(), dims.size());
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    const aclnnStatus st = aclnnReduceSumGetWorkspaceSize(
        null_self ? nullptr : self_t, null_dims ? nullptr : dims_array, keep, dtype,
        null_out ? nullptr : out_t, &ws, &ex);
    *message = RecentError();
    if (st == ACLNN_SUCCESS) aclDestroyAclOpExecutor(ex);
    aclDestroyIntArray(dims_array);
    if (complex_self != nullptr) aclDestroyTensor(complex_self);
    if (complex_out != nullptr) aclDestroyTensor(complex_out);
    return st;
  }

  void ExpectError(aclnnStatus code, const std::vector<std::string>& words,
                   const std::vector<int64_t>& shape, aclDataType in,
                   const std::vector<int64_t>& dims, bool keep, aclDataType dtype,
                   const std::vector<int64_t>& out_shape, aclDataType out_type,
                   bool null_self = false, bool null_dims = false, bool null_out = false) {
    std::string message;
    EXPECT_EQ(Phase1(shape, in, dims, keep, dtype, out_shape, out_type, &message, null_self,
                     null_dims, null_out),
              code);
    for (const std::string& w : words) {
      EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
    }
  }
};

TEST_F(ReduceSumApi, ValidCallSucceeds) {
  std::string message;
  EXPECT_EQ(Phase1({2, 4}, ACL_FLOAT, {0}, false, ACL_FLOAT, {4}, ACL_FLOAT, &message),
            ACLNN_SUCCESS);
}

TEST_F(ReduceSumApi, NullPointers) {
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"self"}, {2, 4}, ACL_FLOAT, {0}, false, ACL_FLOAT, {4},
              ACL_FLOAT, true);
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"dims"}, {2, 4}, ACL_FLOAT, {0}, false, ACL_FLOAT, {4},
              ACL_FLOAT, false, true);
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"out"}, {2, 4}, ACL_FLOAT, {0}, false, ACL_FLOAT, {4},
              ACL_FLOAT, false, false, true);
}

TEST_F(ReduceSumApi, Dtypes) {
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"self dtype", "UINT16"}, {2, 4}, ACL_UINT16, {0}, false,
              ACL_FLOAT, {4}, ACL_FLOAT);
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"self dtype", "COMPLEX64", "not implement"}, {1},
              ACL_COMPLEX64, {0}, false, ACL_FLOAT, {1}, ACL_FLOAT);
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out dtype", "UINT32"}, {2, 4}, ACL_FLOAT, {0}, false,
              ACL_FLOAT, {4}, ACL_UINT32);
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"dtype must be one of", "UINT64"}, {2, 4}, ACL_FLOAT, {0},
              false, ACL_UINT64, {4}, ACL_FLOAT);
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out dtype must equal dtype INT32", "got FLOAT"}, {2, 4},
              ACL_FLOAT, {0}, false, ACL_INT32, {4}, ACL_FLOAT);
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out dtype", "COMPLEX64"}, {1}, ACL_FLOAT, {0}, false,
              ACL_FLOAT, {1}, ACL_COMPLEX64);
}

TEST_F(ReduceSumApi, Ranks) {
  const std::vector<int64_t> nine(9, 1);
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"self rank", "at most 8", "got 9"}, nine, ACL_FLOAT, {0},
              false, ACL_FLOAT, std::vector<int64_t>(8, 1), ACL_FLOAT);
}

TEST_F(ReduceSumApi, Dims) {
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"dims[0]", "[-2, 1]", "got 2"}, {2, 4}, ACL_FLOAT, {2},
              false, ACL_FLOAT, {2}, ACL_FLOAT);
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"dims[1]", "got -3"}, {2, 4}, ACL_FLOAT, {0, -3}, false,
              ACL_FLOAT, {2}, ACL_FLOAT);
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"dims", "twice", "dim 0"}, {2, 4}, ACL_FLOAT, {0, -2},
              false, ACL_FLOAT, {}, ACL_FLOAT);
  // A 0-d self takes dims in [-1, 0].
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"dims[0]", "[-1, 0]", "got 1"}, {}, ACL_FLOAT, {1}, false,
              ACL_FLOAT, {}, ACL_FLOAT);
  std::string message;
  EXPECT_EQ(Phase1({}, ACL_FLOAT, {-1}, true, ACL_FLOAT, {}, ACL_FLOAT, &message), ACLNN_SUCCESS);
}

TEST_F(ReduceSumApi, OutShape) {
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape must be [4]", "got [1, 4]", "keepDims false"},
              {2, 4}, ACL_FLOAT, {0}, false, ACL_FLOAT, {1, 4}, ACL_FLOAT);
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape must be [1, 4]", "got [4]"}, {2, 4}, ACL_FLOAT,
              {0}, true, ACL_FLOAT, {4}, ACL_FLOAT);
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape must be []", "got [2]"}, {2, 4}, ACL_FLOAT, {},
              false, ACL_FLOAT, {2}, ACL_FLOAT);
  // CANN accepts any one-element out for a one-element result.
  std::string message;
  EXPECT_EQ(Phase1({2, 4}, ACL_FLOAT, {}, false, ACL_FLOAT, {1, 1}, ACL_FLOAT, &message),
            ACLNN_SUCCESS);
  EXPECT_EQ(Phase1({2, 4}, ACL_FLOAT, {0, 1}, true, ACL_FLOAT, {1}, ACL_FLOAT, &message),
            ACLNN_SUCCESS);
}

// CANN's empty self: out filled with zeros whatever its shape (its own test passes [2, 4] for a
// [2, 0, 4] self reduced over dim 1 with keepDims).
TEST_F(ReduceSumApi, EmptySelfFillsZeros) {
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16, ACL_INT32, ACL_BOOL, ACL_DOUBLE}) {
    DeviceTensor self({2, 0, 4}, ACL_FLOAT);
    DeviceTensor out({2, 4}, dt, TensorLayout::Padded(1));
    out.FillDouble(std::vector<double>(8, 1.0));
    ASSERT_EQ(RunReduceSum(self.get(), {1}, true, dt, out.get()), ACLNN_SUCCESS) << RecentError();
    for (double v : out.ValuesDouble()) EXPECT_EQ(v, 0.0);
    EXPECT_EQ(out.DamagedCanaries(), 0);
  }
  // Empty kept extent: an empty out, nothing written.
  DeviceTensor self({0, 3}, ACL_FLOAT);
  DeviceTensor out({0}, ACL_FLOAT);
  EXPECT_EQ(RunReduceSum(self.get(), {1}, false, ACL_FLOAT, out.get()), ACLNN_SUCCESS);
  EXPECT_TRUE(out.Untouched());
}

TEST_F(ReduceSumApi, ZeroDimSelfIsItsOwnSum) {
  DeviceTensor self({}, ACL_FLOAT);
  self.FillDouble({-2.75});
  DeviceTensor out({}, ACL_FLOAT);
  ASSERT_EQ(RunReduceSum(self.get(), {0}, false, ACL_FLOAT, out.get()), ACLNN_SUCCESS);
  EXPECT_EQ(out.GetDouble(0), -2.75);
  DeviceTensor as_int({1}, ACL_INT32);
  ASSERT_EQ(RunReduceSum(self.get(), {}, true, ACL_INT32, as_int.get()), ACLNN_SUCCESS);
  EXPECT_EQ(as_int.GetDouble(0), -2.0);
}

// Small integers sum exactly in every output dtype; integer outputs wrap, floating inputs
// truncate toward zero into integer outputs, BOOL outputs say whether any element is non-zero.
TEST_F(ReduceSumApi, CraftedExactSums) {
  DeviceTensor self({3, 5}, ACL_FLOAT);
  std::vector<double> v;
  for (int i = 0; i < 15; ++i) v.push_back(i - 4);
  self.FillDouble(v);  // rows: -4..0, 1..5, 6..10
  for (aclDataType dt :
       {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64}) {
    DeviceTensor rows({3}, dt);
    ASSERT_EQ(RunReduceSum(self.get(), {1}, false, dt, rows.get()), ACLNN_SUCCESS);
    EXPECT_EQ(rows.ValuesDouble(), (std::vector<double>{-10, 15, 40})) << DTypeName(dt);
    DeviceTensor cols({1, 5}, dt);
    ASSERT_EQ(RunReduceSum(self.get(), {-2}, true, dt, cols.get()), ACLNN_SUCCESS);
    EXPECT_EQ(cols.ValuesDouble(), (std::vector<double>{3, 6, 9, 12, 15})) << DTypeName(dt);
  }
  DeviceTensor any({3}, ACL_BOOL);
  DeviceTensor zeros({3, 2}, ACL_FLOAT);
  zeros.FillDouble({0, 0, 0, -0.5, 0, 0});
  ASSERT_EQ(RunReduceSum(zeros.get(), {1}, false, ACL_BOOL, any.get()), ACLNN_SUCCESS);
  EXPECT_EQ(any.ValuesDouble(), (std::vector<double>{0, 1, 0}));

  DeviceTensor bytes({4}, ACL_INT8);
  bytes.FillDouble({100, 100, 27, 1});
  DeviceTensor wrapped({}, ACL_INT8);
  ASSERT_EQ(RunReduceSum(bytes.get(), {0}, false, ACL_INT8, wrapped.get()), ACLNN_SUCCESS);
  EXPECT_EQ(wrapped.GetDouble(0), 228.0 - 256.0);
  DeviceTensor widened({}, ACL_INT64);
  ASSERT_EQ(RunReduceSum(bytes.get(), {0}, false, ACL_INT64, widened.get()), ACLNN_SUCCESS);
  EXPECT_EQ(widened.GetDouble(0), 228.0);

  // INT64 wraps too (2^62 + 2^62 = -2^63), in the engine and in the reference.
  DeviceTensor big({2}, ACL_INT64);
  big.FillDouble({4611686018427387904.0, 4611686018427387904.0});
  DeviceTensor big_sum({}, ACL_INT64);
  ASSERT_EQ(RunReduceSum(big.get(), {0}, false, ACL_INT64, big_sum.get()), ACLNN_SUCCESS);
  EXPECT_EQ(big_sum.GetDouble(0), -9223372036854775808.0);
  setenv("OPENACLNN_FORCE_IMPL", "reduce_sum=reference", 1);
  DeviceTensor big_reference({}, ACL_INT64);
  ASSERT_EQ(RunReduceSum(big.get(), {0}, false, ACL_INT64, big_reference.get()), ACLNN_SUCCESS);
  unsetenv("OPENACLNN_FORCE_IMPL");
  EXPECT_EQ(big_reference.GetDouble(0), -9223372036854775808.0);

  DeviceTensor flags({2, 3}, ACL_BOOL);
  flags.FillDouble({1, 1, 0, 0, 0, 1});
  DeviceTensor counts({2}, ACL_INT64);
  ASSERT_EQ(RunReduceSum(flags.get(), {1}, false, ACL_INT64, counts.get()), ACLNN_SUCCESS);
  EXPECT_EQ(counts.ValuesDouble(), (std::vector<double>{2, 1}));

  DeviceTensor fractions({4}, ACL_FLOAT);
  fractions.FillDouble({2.7, -2.7, 0.9, 1e10});
  DeviceTensor truncated({1}, ACL_INT32);
  ASSERT_EQ(RunReduceSum(fractions.get(), {}, true, ACL_INT32, truncated.get()), ACLNN_SUCCESS);
  // 2 - 2 + 0 + 2147483647 (1e10 saturates at INT32_MAX).
  EXPECT_EQ(truncated.GetDouble(0), 2147483647.0);
}

// BFLOAT16 input summed into FLOAT: no rounding of the input; 16-bit outputs round once.
TEST_F(ReduceSumApi, SixteenBitRoundsOnce) {
  DeviceTensor self({1, 257}, ACL_BF16);
  std::vector<double> v(257, 1.0);
  self.FillDouble(v);
  DeviceTensor f32({1}, ACL_FLOAT);
  ASSERT_EQ(RunReduceSum(self.get(), {1}, false, ACL_FLOAT, f32.get()), ACLNN_SUCCESS);
  EXPECT_EQ(f32.GetDouble(0), 257.0);
  DeviceTensor bf16({1}, ACL_BF16);
  ASSERT_EQ(RunReduceSum(self.get(), {1}, false, ACL_BF16, bf16.get()), ACLNN_SUCCESS);
  EXPECT_EQ(bf16.GetDouble(0), 256.0);  // 257 rounds to even in bfloat16, once
}

// An out view whose indices share one address (stride 0) is written in a fixed order, one output
// after the other, so the result does not depend on the thread count: the last row's sum.
TEST_F(ReduceSumApi, SelfOverlappingOutIsWrittenInOrder) {
  DeviceTensor self({300, 1000}, ACL_FLOAT);
  std::vector<double> v(300 * 1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i / 1000);  // row r holds r
  self.FillDouble(v);
  for (int threads : {1, 3}) {
    cpu::SetNumThreads(threads);
    DeviceTensor out({300}, ACL_FLOAT, TensorLayout::Broadcast({0}));
    ASSERT_EQ(RunReduceSum(self.get(), {1}, false, ACL_FLOAT, out.get()), ACLNN_SUCCESS);
    EXPECT_EQ(out.GetDouble(0), 299000.0) << threads << " threads";
    EXPECT_EQ(out.DamagedCanaries(), 0);
  }
  cpu::SetNumThreads(0);
}

TEST_F(ReduceSumApi, ForcedReferenceAgreesWithEngine) {
  DeviceTensor self({37, 129}, ACL_BF16, TensorLayout::Padded(3));
  std::vector<double> v(37 * 129);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 17) - 8.0;
  self.FillDouble(v);
  DeviceTensor engine({129}, ACL_FLOAT), reference({129}, ACL_FLOAT);
  ASSERT_EQ(RunReduceSum(self.get(), {0}, false, ACL_FLOAT, engine.get()), ACLNN_SUCCESS);
  setenv("OPENACLNN_FORCE_IMPL", "reduce_sum=reference", 1);
  const aclnnStatus st = RunReduceSum(self.get(), {0}, false, ACL_FLOAT, reference.get());
  setenv("OPENACLNN_FORCE_IMPL", "reduce_sum=nonexistent", 1);
  DeviceTensor unused({129}, ACL_FLOAT);
  const aclnnStatus bogus = RunReduceSum(self.get(), {0}, false, ACL_FLOAT, unused.get());
  unsetenv("OPENACLNN_FORCE_IMPL");
  ASSERT_EQ(st, ACLNN_SUCCESS);
  EXPECT_EQ(bogus, ACLNN_ERR_INNER_FIND_KERNEL_ERROR);
  // Small integers: both exact.
  EXPECT_EQ(engine.ValuesDouble(), reference.ValuesDouble());
  EXPECT_EQ(reference.DamagedCanaries(), 0);
}

}  // namespace
}  // namespace openaclnn::rs_test

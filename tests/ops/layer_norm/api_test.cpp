// The API matrix of the LayerNorm forward: one case per documented error (code and message), the
// empty-tensor rules, and the interplay of the three variants' phase-1 and phase-2 functions.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ops/layer_norm/ln_test_util.h"
#include "util/runtime_fixture.h"

namespace openaclnn::fwd_test {
namespace {

using test::RecentError;

// A valid call: input (2, 3, 4) normalised over (3, 4); each test spoils one argument.
class LayerNormApiTest : public test::RuntimeTest {
 protected:
  struct Args {
    std::vector<int64_t> shape = {2, 3, 4};
    std::vector<int64_t> norm = {3, 4};
    aclDataType in = ACL_FLOAT;
    std::vector<int64_t> w_shape = {3, 4};
    aclDataType w = ACL_FLOAT;
    std::vector<int64_t> b_shape = {3, 4};
    aclDataType b = ACL_FLOAT;
    bool has_w = true, has_b = true, has_mean = true, has_rstd = true;
    std::vector<int64_t> out_shape = {2, 3, 4};
    aclDataType out = ACL_FLOAT;
    std::vector<int64_t> mean_shape = {2, 1, 1};
    aclDataType mean = ACL_FLOAT;
    std::vector<int64_t> rstd_shape = {2, 1, 1};
    aclDataType rstd = ACL_FLOAT;
    int32_t impl_mode = 0;
    bool null_input = false, null_norm = false, null_out = false;
    bool null_ws = false, null_ex = false;
  };

  // Phase 1 of `variant`; phase 2 runs when it succeeds. Returns phase 1's status.
  aclnnStatus Phase1(const Args& a, Variant variant = Variant::kWithImplMode) {
    DeviceTensor x(a.shape, a.in);
    DeviceTensor w(a.w_shape, a.w);
    DeviceTensor b(a.b_shape, a.b);
    DeviceTensor out(a.out_shape, a.out);
    DeviceTensor mean(a.mean_shape, a.mean);
    DeviceTensor rstd(a.rstd_shape, a.rstd);
    aclIntArray* ns = aclCreateIntArray(a.norm.data(), a.norm.size());
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    const aclTensor* xp = a.null_input ? nullptr : x.get();
    const aclIntArray* nsp = a.null_norm ? nullptr : ns;
    const aclTensor* wp = a.has_w ? w.get() : nullptr;
    const aclTensor* bp = a.has_b ? b.get() : nullptr;
    aclTensor* op = a.null_out ? nullptr : out.get();
    aclTensor* mp = a.has_mean ? mean.get() : nullptr;
    aclTensor* rp = a.has_rstd ? rstd.get() : nullptr;
    uint64_t* wsp = a.null_ws ? nullptr : &ws;
    aclOpExecutor** exp = a.null_ex ? nullptr : &ex;
    aclnnStatus st;
    if (variant == Variant::kLayerNorm) {
      st = aclnnLayerNormGetWorkspaceSize(xp, nsp, wp, bp, 1e-5, op, mp, rp, wsp, exp);
    } else if (variant == Variant::kFast) {
      st = aclnnFastLayerNormGetWorkspaceSize(xp, nsp, wp, bp, 1e-5, op, mp, rp, wsp, exp);
    } else {
      st = aclnnLayerNormWithImplModeGetWorkspaceSize(xp, nsp, wp, bp, 1e-5, op, mp, rp,
                                                      a.impl_mode, wsp, exp);
    }
    message_ = RecentError();
    if (st == ACLNN_SUCCESS) {
      ScopedStream stream;
      EXPECT_EQ(RunPhase2AndSync(aclnnLayerNorm, ws, ex, stream.get()), ACLNN_SUCCESS);
    }
    aclDestroyIntArray(ns);
    return st;
  }

  // Expects `code` and a message that names `param`.
  void ExpectError(const Args& a, aclnnStatus code, const std::string& param) {
    for (Variant v : {Variant::kLayerNorm, Variant::kWithImplMode, Variant::kFast}) {
      if (v != Variant::kWithImplMode && a.impl_mode != 0) continue;
      EXPECT_EQ(Phase1(a, v), code) << VariantName(v) << " " << param;
      EXPECT_NE(message_.find(param), std::string::npos)
          << VariantName(v) << ": message \"" << message_ << "\" does not name " << param;
    }
  }

  std::string message_;
};

TEST_F(LayerNormApiTest, ValidCallSucceedsInEveryVariant) {
  Args a;
  for (Variant v : {Variant::kLayerNorm, Variant::kWithImplMode, Variant::kFast}) {
    EXPECT_EQ(Phase1(a, v), ACLNN_SUCCESS) << VariantName(v) << ": " << message_;
  }
  for (int mode : {1, 2}) {
    Args b;
    b.impl_mode = mode;
    if (mode == 2) b.in = b.w = b.b = ACL_FLOAT16;
    EXPECT_EQ(Phase1(b), ACLNN_SUCCESS) << "implMode " << mode << ": " << message_;
  }
}

TEST_F(LayerNormApiTest, NullWorkspaceSizeOrExecutor) {
  Args a;
  a.null_ws = true;
  ExpectError(a, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize");
  a = Args();
  a.null_ex = true;
  ExpectError(a, ACLNN_ERR_PARAM_NULLPTR, "executor");
}

TEST_F(LayerNormApiTest, NullRequiredParameters) {
  Args a;
  a.null_input = true;
  ExpectError(a, ACLNN_ERR_PARAM_NULLPTR, "input");
  a = Args();
  a.null_norm = true;
  ExpectError(a, ACLNN_ERR_PARAM_NULLPTR, "normalizedShape");
  a = Args();
  a.null_out = true;
  ExpectError(a, ACLNN_ERR_PARAM_NULLPTR, "out");
}

TEST_F(LayerNormApiTest, InputDtypes) {
  Args a;
  a.in = ACL_INT32;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "input dtype");
  a = Args();
  a.w = ACL_DOUBLE;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "weightOptional dtype");
  a = Args();  // FLOAT16 weight with BFLOAT16 input: neither FLOAT nor the input's dtype
  a.in = ACL_BF16;
  a.w = ACL_FLOAT16;
  a.has_b = false;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "weightOptional dtype");
  a = Args();
  a.b = ACL_INT8;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "biasOptional dtype");
  a = Args();
  a.in = ACL_FLOAT16;
  a.b = ACL_BF16;
  a.has_w = false;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "biasOptional dtype");
  a = Args();  // both allowed alone, but they differ
  a.in = ACL_FLOAT16;
  a.w = ACL_FLOAT;
  a.b = ACL_FLOAT16;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "biasOptional dtype");
}

TEST_F(LayerNormApiTest, OutputDtypes) {
  Args a;
  a.out = ACL_INT32;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "out dtype");
  a = Args();
  a.mean = ACL_DOUBLE;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "meanOutOptional dtype");
  a = Args();
  a.rstd = ACL_INT8;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "rstdOutOptional dtype");
}

TEST_F(LayerNormApiTest, RanksAboveEight) {
  const std::vector<int64_t> nine = {1, 1, 1, 1, 1, 1, 1, 3, 4};
  Args a;
  a.shape = a.out_shape = nine;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "input rank");
  a = Args();
  a.out_shape = nine;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "out rank");
  a = Args();
  a.w_shape = nine;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "weightOptional rank");
  a = Args();
  a.b_shape = nine;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "biasOptional rank");
  a = Args();
  a.mean_shape = {2, 1, 1, 1, 1, 1, 1, 1, 1};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "meanOutOptional rank");
  a = Args();
  a.rstd_shape = {2, 1, 1, 1, 1, 1, 1, 1, 1};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "rstdOutOptional rank");
  a = Args();
  a.norm = {1, 1, 1, 1, 1, 1, 1, 3, 4};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "normalizedShape length");
}

TEST_F(LayerNormApiTest, Shapes) {
  Args a;
  a.norm = {};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "normalizedShape length");
  a = Args();
  a.shape = a.out_shape = {4};
  a.norm = {3, 4};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "input rank");
  a = Args();
  a.w_shape = {12};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "weightOptional rank");
  a = Args();
  a.b_shape = {1, 3, 4};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "biasOptional rank");
  a = Args();  // every dimension is compared (decision D4), not only some
  a.norm = {2, 4};
  a.w_shape = a.b_shape = {2, 4};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "normalizedShape");
  a = Args();
  a.w_shape = {3, 5};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "weightOptional shape");
  a = Args();
  a.b_shape = {4, 4};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "biasOptional shape");
  a = Args();
  a.out_shape = {2, 12};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "out shape");
}

TEST_F(LayerNormApiTest, StatisticShapes) {
  Args a;
  a.mean_shape = {3, 1, 1};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "meanOutOptional");
  a = Args();
  a.rstd_shape = {1};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "rstdOutOptional");
  a = Args();  // both have M elements but differ in shape
  a.rstd_shape = {2};
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "rstdOutOptional shape");
  a = Args();  // any shape with M elements is accepted (decision E1)
  a.mean_shape = a.rstd_shape = {2};
  EXPECT_EQ(Phase1(a), ACLNN_SUCCESS) << message_;
  a.mean_shape = a.rstd_shape = {1, 2, 1};
  EXPECT_EQ(Phase1(a), ACLNN_SUCCESS) << message_;
}

TEST_F(LayerNormApiTest, ImplMode) {
  Args a;
  a.impl_mode = 3;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "implMode");
  a.impl_mode = -1;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "implMode");
  a = Args();  // 2 needs every input in FLOAT16
  a.impl_mode = 2;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, "implMode");
  a.in = a.w = ACL_FLOAT16;
  a.b = ACL_FLOAT16;
  EXPECT_EQ(Phase1(a), ACLNN_SUCCESS) << message_;
}

TEST_F(LayerNormApiTest, ExtentOutsideAllocation) {
  // A view that reaches past the end of its aclrtMalloc block.
  Args a;
  DeviceTensor x(a.shape, ACL_FLOAT);
  DeviceTensor out(a.shape, ACL_FLOAT);
  const int64_t strides[3] = {24, 4, 1};
  const int64_t storage = 24;
  void* block = nullptr;
  ASSERT_EQ(aclrtMalloc(&block, 24 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  aclTensor* bad =
      aclCreateTensor(a.shape.data(), 3, ACL_FLOAT, strides, 12, ACL_FORMAT_ND, &storage, 1, block);
  aclIntArray* ns = aclCreateIntArray(a.norm.data(), a.norm.size());
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  EXPECT_EQ(aclnnLayerNormGetWorkspaceSize(bad, ns, nullptr, nullptr, 1e-5, out.get(), nullptr,
                                           nullptr, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find("input"), std::string::npos) << RecentError();
  EXPECT_EQ(aclnnLayerNormGetWorkspaceSize(x.get(), ns, nullptr, nullptr, 1e-5, bad, nullptr,
                                           nullptr, &ws, &ex),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find("out"), std::string::npos) << RecentError();
  aclDestroyIntArray(ns);
  aclDestroyTensor(bad);
  aclrtFree(block);
}

TEST_F(LayerNormApiTest, EmptyRowsWriteNothing) {
  // M == 0: success, nothing written (mean/rstd as torch_npu passes them: 1-D {0}).
  DeviceTensor x({0, 5}, ACL_FLOAT);
  DeviceTensor out({0, 5}, ACL_FLOAT);
  DeviceTensor mean({0}, ACL_FLOAT);
  DeviceTensor rstd({0}, ACL_FLOAT);
  uint64_t ws = 1;
  for (Variant v : {Variant::kLayerNorm, Variant::kWithImplMode, Variant::kFast}) {
    EXPECT_EQ(RunLayerNorm(v, x.get(), {5}, nullptr, nullptr, 1e-5, out.get(), mean.get(),
                           rstd.get(), 0, &ws),
              ACLNN_SUCCESS)
        << RecentError();
    EXPECT_EQ(ws, 0u);
  }
}

TEST_F(LayerNormApiTest, EmptyNormalizedDimsWriteZeroMeanAndNanRstd) {
  // N == 0, M == 3 (decision E4).
  for (aclDataType stat : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    DeviceTensor x({3, 0}, ACL_FLOAT);
    DeviceTensor out({3, 0}, ACL_FLOAT);
    DeviceTensor mean({3, 1}, stat, Strided());
    DeviceTensor rstd({3, 1}, stat);
    for (Variant v : {Variant::kLayerNorm, Variant::kFast}) {
      ASSERT_EQ(
          RunLayerNorm(v, x.get(), {0}, nullptr, nullptr, 1e-5, out.get(), mean.get(), rstd.get()),
          ACLNN_SUCCESS)
          << RecentError();
      for (int64_t i = 0; i < 3; ++i) {
        EXPECT_EQ(mean.Get(i), 0.0f);
        EXPECT_TRUE(std::isnan(rstd.Get(i)));
      }
      EXPECT_EQ(mean.DamagedCanaries(), 0);
    }
  }
}

TEST_F(LayerNormApiTest, PhaseTwoOfAnyVariantRunsAnExecutorOfAnyVariant) {
  // CANN's three phase-2 functions are one common runner.
  using Phase2 = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);
  const Phase2 phase2s[3] = {aclnnLayerNorm, aclnnLayerNormWithImplMode, aclnnFastLayerNorm};
  DeviceTensor x({2, 4}, ACL_FLOAT);
  DeviceTensor out({2, 4}, ACL_FLOAT);
  for (int64_t i = 0; i < 8; ++i) x.Set(i, static_cast<float>(i % 4));
  const std::vector<int64_t> norm = {4};
  aclIntArray* ns = aclCreateIntArray(norm.data(), 1);
  for (int first = 0; first < 3; ++first) {
    for (int second = 0; second < 3; ++second) {
      uint64_t ws = 0;
      aclOpExecutor* ex = nullptr;
      aclnnStatus st =
          first == 0 ? aclnnLayerNormGetWorkspaceSize(x.get(), ns, nullptr, nullptr, 0.0, out.get(),
                                                      nullptr, nullptr, &ws, &ex)
          : first == 1
              ? aclnnLayerNormWithImplModeGetWorkspaceSize(x.get(), ns, nullptr, nullptr, 0.0,
                                                           out.get(), nullptr, nullptr, 1, &ws, &ex)
              : aclnnFastLayerNormGetWorkspaceSize(x.get(), ns, nullptr, nullptr, 0.0, out.get(),
                                                   nullptr, nullptr, &ws, &ex);
      ASSERT_EQ(st, ACLNN_SUCCESS);
      ScopedStream stream;
      ASSERT_EQ(RunPhase2AndSync(phase2s[second], ws, ex, stream.get()), ACLNN_SUCCESS)
          << first << " " << second << ": " << RecentError();
      // Row 0..3 has mean 1.5 and variance 1.25.
      EXPECT_FLOAT_EQ(out.Get(0), static_cast<float>(-1.5 / std::sqrt(1.25)));
    }
  }
  aclDestroyIntArray(ns);
}

TEST_F(LayerNormApiTest, PhaseTwoArguments) {
  EXPECT_EQ(aclnnLayerNorm(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_FALSE(RecentError().empty());
  EXPECT_EQ(aclnnFastLayerNorm(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  // A workspace smaller than phase 1 reported (decision D5).
  DeviceTensor x({2, 4}, ACL_BF16);
  DeviceTensor out({2, 4}, ACL_FLOAT);
  const std::vector<int64_t> norm = {4};
  aclIntArray* ns = aclCreateIntArray(norm.data(), 1);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnLayerNormGetWorkspaceSize(x.get(), ns, nullptr, nullptr, 1e-5, out.get(), nullptr,
                                           nullptr, &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_GT(ws, 0u);
  void* block = nullptr;
  ASSERT_EQ(aclrtMalloc(&block, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ScopedStream stream;
  EXPECT_EQ(aclnnLayerNorm(block, ws - 1, ex, stream.get()), ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(RecentError().find("workspaceSize"), std::string::npos) << RecentError();
  aclrtFree(block);
  aclDestroyIntArray(ns);
}

}  // namespace
}  // namespace openaclnn::fwd_test

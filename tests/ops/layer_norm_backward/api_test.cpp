// The API matrix: one case per documented error (code and message), the no-op and empty cases,
// and the phase-2 argument checks.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ops/layer_norm_backward/lnb_test_util.h"

namespace openaclnn::lnb_test {
namespace {

// A valid call on a [2, 3, 4] input normalised over [3, 4], with every tensor replaceable.
struct Args {
  std::vector<std::unique_ptr<DeviceTensor>> keep;
  const aclTensor* dy;
  const aclTensor* x;
  std::vector<int64_t> norm = {3, 4};
  bool null_norm = false;
  const aclTensor* mean;
  const aclTensor* rstd;
  const aclTensor* w;
  const aclTensor* b;
  std::vector<bool> mask = {true, true, true};
  bool null_mask = false;
  aclTensor* dx;
  aclTensor* gw;
  aclTensor* gb;

  Args() {
    dy = Make({2, 3, 4});
    x = Make({2, 3, 4});
    mean = Make({2, 1, 1});
    rstd = Make({2, 1, 1});
    w = Make({3, 4});
    b = Make({3, 4});
    dx = Make({2, 3, 4});
    gw = Make({3, 4});
    gb = Make({12});
  }
  aclTensor* Make(std::vector<int64_t> shape, aclDataType dtype = ACL_FLOAT) {
    keep.push_back(std::make_unique<DeviceTensor>(shape, dtype));
    return keep.back()->get();
  }
  aclnnStatus Call(uint64_t* ws, aclOpExecutor** ex) const {
    aclIntArray* na = null_norm ? nullptr : aclCreateIntArray(norm.data(), norm.size());
    bool m[8];
    for (size_t i = 0; i < mask.size(); ++i) m[i] = mask[i];
    aclBoolArray* ma = null_mask ? nullptr : aclCreateBoolArray(m, mask.size());
    const aclnnStatus s =
        aclnnLayerNormBackwardGetWorkspaceSize(dy, x, na, mean, rstd, w, b, ma, dx, gw, gb, ws, ex);
    aclDestroyIntArray(na);
    aclDestroyBoolArray(ma);
    return s;
  }
};

struct ErrorCase {
  const char* name;
  std::function<void(Args*)> mutate;
  aclnnStatus code;
  const char* message_part;  // the message must contain this
};

void ExpectError(const ErrorCase& c) {
  Args a;
  c.mutate(&a);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  const aclnnStatus s = a.Call(&ws, &ex);
  EXPECT_EQ(s, c.code) << c.name;
  const char* msg = aclGetRecentErrMsg();
  ASSERT_NE(msg, nullptr) << c.name;
  EXPECT_NE(std::string(msg).find(c.message_part), std::string::npos)
      << c.name << ": message \"" << msg << "\" lacks \"" << c.message_part << "\"";
  EXPECT_EQ(ex, nullptr) << c.name;
}

constexpr aclnnStatus kNull = ACLNN_ERR_PARAM_NULLPTR;
constexpr aclnnStatus kInvalid = ACLNN_ERR_PARAM_INVALID;

TEST(LayerNormBackwardApi, ValidCallSucceeds) {
  Args a;
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(a.Call(&ws, &ex), ACLNN_SUCCESS);
  ASSERT_NE(ex, nullptr);
  void* workspace = nullptr;
  if (ws > 0) aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  EXPECT_EQ(aclnnLayerNormBackward(workspace, ws, ex, TestStream()), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(TestStream()), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
}

TEST(LayerNormBackwardApi, NullPointers) {
  Args a;
  aclOpExecutor* ex = nullptr;
  uint64_t ws = 0;
  EXPECT_EQ(a.Call(nullptr, &ex), kNull);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("workspaceSize"), std::string::npos);
  EXPECT_EQ(a.Call(&ws, nullptr), kNull);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("executor"), std::string::npos);
  const ErrorCase cases[] = {
      {"null gradOut", [](Args* a) { a->dy = nullptr; }, kNull, "gradOut"},
      {"null input", [](Args* a) { a->x = nullptr; }, kNull, "input"},
      {"null normalizedShape", [](Args* a) { a->null_norm = true; }, kNull, "normalizedShape"},
      {"null mean", [](Args* a) { a->mean = nullptr; }, kNull, "mean"},
      {"null rstd", [](Args* a) { a->rstd = nullptr; }, kNull, "rstd"},
      {"null outputMask", [](Args* a) { a->null_mask = true; }, kNull, "outputMask"},
      {"masked null gradInput", [](Args* a) { a->dx = nullptr; }, kNull, "gradInputOut"},
      {"masked null gradWeight", [](Args* a) { a->gw = nullptr; }, kNull, "gradWeightOut"},
      {"masked null gradBias", [](Args* a) { a->gb = nullptr; }, kNull, "gradBiasOut"},
      // Order: a null required input is reported before a bad mask size.
      {"null input before mask size",
       [](Args* a) {
         a->x = nullptr;
         a->mask = {true};
       },
       kNull, "input"},
      // Order: a masked null output is reported before a bad dtype.
      {"null output before dtype",
       [](Args* a) {
         a->gb = nullptr;
         a->mean = a->Make({2, 1, 1}, ACL_INT32);
       },
       kNull, "gradBiasOut"},
  };
  for (const ErrorCase& c : cases) ExpectError(c);
}

TEST(LayerNormBackwardApi, MaskSize) {
  const ErrorCase cases[] = {
      {"mask of 2",
       [](Args* a) {
         a->mask = {true, true};
       },
       kInvalid, "outputMask size must be 3, got 2"},
      {"mask of 4",
       [](Args* a) {
         a->mask = {true, true, true, false};
       },
       kInvalid, "got 4"},
      {"mask of 0", [](Args* a) { a->mask = {}; }, kInvalid, "got 0"},
  };
  for (const ErrorCase& c : cases) ExpectError(c);
}

TEST(LayerNormBackwardApi, Dtypes) {
  const ErrorCase cases[] = {
      {"gradOut int32",
       [](Args* a) {
         a->dy = a->Make({2, 3, 4}, ACL_INT32);
       },
       kInvalid, "gradOut dtype must be FLOAT, FLOAT16 or BFLOAT16, got INT32"},
      {"input double",
       [](Args* a) {
         a->dy = a->Make({2, 3, 4}, ACL_DOUBLE);
         a->x = a->Make({2, 3, 4}, ACL_DOUBLE);
       },
       kInvalid, "gradOut dtype"},
      {"input double only",
       [](Args* a) {
         a->x = a->Make({2, 3, 4}, ACL_DOUBLE);
       },
       kInvalid, "input dtype must be"},
      {"gradOut f16 vs input f32",
       [](Args* a) {
         a->dy = a->Make({2, 3, 4}, ACL_FLOAT16);
       },
       kInvalid, "gradOut dtype FLOAT16 must equal input dtype FLOAT"},
      {"mean int64",
       [](Args* a) {
         a->mean = a->Make({2, 1, 1}, ACL_INT64);
       },
       kInvalid, "mean dtype"},
      {"rstd double",
       [](Args* a) {
         a->rstd = a->Make({2, 1, 1}, ACL_DOUBLE);
       },
       kInvalid, "rstd dtype"},
      {"weight int32",
       [](Args* a) {
         a->w = a->Make({3, 4}, ACL_INT32);
       },
       kInvalid, "weightOptional dtype"},
      {"weight f16 with f32 input",
       [](Args* a) {
         a->w = a->Make({3, 4}, ACL_FLOAT16);
       },
       kInvalid, "weightOptional dtype must be FLOAT or the input dtype FLOAT, got FLOAT16"},
      {"weight bf16 with f16 input",
       [](Args* a) {
         a->dy = a->Make({2, 3, 4}, ACL_FLOAT16);
         a->x = a->Make({2, 3, 4}, ACL_FLOAT16);
         a->w = a->Make({3, 4}, ACL_BF16);
       },
       kInvalid, "weightOptional dtype"},
      {"bias int8",
       [](Args* a) {
         a->b = a->Make({3, 4}, ACL_INT8);
       },
       kInvalid, "biasOptional dtype"},
      {"gradInput double",
       [](Args* a) {
         a->dx = a->Make({2, 3, 4}, ACL_DOUBLE);
       },
       kInvalid, "gradInputOut dtype"},
      {"gradWeight double",
       [](Args* a) {
         a->gw = a->Make({3, 4}, ACL_DOUBLE);
       },
       kInvalid, "gradWeightOut dtype"},
      {"gradBias int32", [](Args* a) { a->gb = a->Make({12}, ACL_INT32); }, kInvalid,
       "gradBiasOut dtype"},
      // An unmasked but non-null output is still dtype-checked.
      {"unmasked gradWeight double",
       [](Args* a) {
         a->mask = {true, false, true};
         a->gw = a->Make({3, 4}, ACL_DOUBLE);
       },
       kInvalid, "gradWeightOut dtype"},
      // Order: a dtype error is reported before a shape error.
      {"dtype before shape",
       [](Args* a) {
         a->rstd = a->Make({5}, ACL_FLOAT);
         a->b = a->Make({3, 4}, ACL_INT8);
       },
       kInvalid, "biasOptional dtype"},
  };
  for (const ErrorCase& c : cases) ExpectError(c);
}

TEST(LayerNormBackwardApi, Shapes) {
  const std::vector<int64_t> rank9 = {1, 1, 1, 1, 1, 1, 2, 3, 4};
  const ErrorCase cases[] = {
      {"gradOut rank 9", [&](Args* a) { a->dy = a->Make(rank9); }, kInvalid,
       "gradOut rank must be at most 8, got 9"},
      {"input rank 9", [&](Args* a) { a->x = a->Make(rank9); }, kInvalid, "input rank"},
      {"mean rank 9",
       [&](Args* a) {
         a->mean = a->Make({2, 1, 1, 1, 1, 1, 1, 1, 1});
       },
       kInvalid, "mean rank"},
      {"rstd rank 9",
       [&](Args* a) {
         a->rstd = a->Make({2, 1, 1, 1, 1, 1, 1, 1, 1});
       },
       kInvalid, "rstd rank"},
      {"gradInput rank 9", [&](Args* a) { a->dx = a->Make(rank9); }, kInvalid, "gradInputOut rank"},
      {"gradWeight rank 9",
       [&](Args* a) {
         a->gw = a->Make({1, 1, 1, 1, 1, 1, 1, 3, 4});
       },
       kInvalid, "gradWeightOut rank"},
      {"normalizedShape empty", [](Args* a) { a->norm = {}; }, kInvalid,
       "normalizedShape length must be between 1 and 8, got 0"},
      {"normalizedShape of 9", [](Args* a) { a->norm = {1, 1, 1, 1, 1, 1, 1, 1, 4}; }, kInvalid,
       "got 9"},
      {"input rank below normalizedShape",
       [](Args* a) {
         a->norm = {1, 2, 3, 4};
       },
       kInvalid, "input rank must be at least"},
      {"trailing dim mismatch (D4)",
       [](Args* a) {
         a->norm = {5, 4};
       },
       kInvalid, "input trailing dims of shape [2, 3, 4] must equal normalizedShape [5, 4]"},
      {"trailing dim mismatch, last",
       [](Args* a) {
         a->norm = {3, 5};
       },
       kInvalid, "normalizedShape[1] is 5"},
      {"weight rank", [](Args* a) { a->w = a->Make({12}); }, kInvalid,
       "weightOptional rank must equal the length of normalizedShape"},
      {"weight shape",
       [](Args* a) {
         a->w = a->Make({4, 3});
       },
       kInvalid, "weightOptional shape [4, 3] must equal normalizedShape [3, 4]"},
      {"bias shape",
       [](Args* a) {
         a->b = a->Make({3, 5});
       },
       kInvalid, "biasOptional shape"},
      {"gradOut shape",
       [](Args* a) {
         a->dy = a->Make({1, 3, 4});
       },
       kInvalid, "gradOut shape [1, 3, 4] must equal input shape [2, 3, 4]"},
      {"mean vs rstd shape", [](Args* a) { a->rstd = a->Make({2}); }, kInvalid,
       "rstd shape [2] must equal mean shape [2, 1, 1]"},
      {"mean numel",
       [](Args* a) {
         a->mean = a->Make({3});
         a->rstd = a->Make({3});
       },
       kInvalid, "mean element count must equal M = 2"},
      {"gradInput shape",
       [](Args* a) {
         a->dx = a->Make({2, 12});
       },
       kInvalid, "gradInputOut shape [2, 12] must equal input shape [2, 3, 4]"},
      {"gradWeight numel", [](Args* a) { a->gw = a->Make({11}); }, kInvalid,
       "gradWeightOut element count must equal N = 12"},
      {"gradBias numel",
       [](Args* a) {
         a->gb = a->Make({3, 5});
       },
       kInvalid, "gradBiasOut element count must equal N = 12"},
  };
  for (const ErrorCase& c : cases) ExpectError(c);
}

TEST(LayerNormBackwardApi, ViewOutsideItsBlock) {
  Args a;
  // A [2, 3, 4] view on a 24-element block, starting at element 1: its last element is outside.
  DeviceTensor block({24}, ACL_FLOAT);
  void* data = nullptr;
  int64_t* dims = nullptr;
  uint64_t rank = 0;
  ASSERT_EQ(aclGetViewShape(block.get(), &dims, &rank), ACLNN_SUCCESS);
  delete[] dims;
  ASSERT_EQ(aclGetRawTensorAddr(block.get(), &data), ACLNN_SUCCESS);
  const int64_t shape[3] = {2, 3, 4};
  const int64_t storage[1] = {24};
  aclTensor* shifted =
      aclCreateTensor(shape, 3, ACL_FLOAT, nullptr, 1, ACL_FORMAT_ND, storage, 1, data);
  a.dx = shifted;
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  EXPECT_EQ(a.Call(&ws, &ex), kInvalid);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("gradInputOut"), std::string::npos)
      << aclGetRecentErrMsg();
  aclDestroyTensor(shifted);
}

// Unmasked outputs: may be null, are not shape-checked, and are never written.
TEST(LayerNormBackwardApi, UnmaskedOutputs) {
  Args a;
  a.mask = {false, true, false};
  a.dx = nullptr;
  DeviceTensor wrong_shape({7, 7}, ACL_BF16);  // only dtype-checked
  a.gb = wrong_shape.get();
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(a.Call(&ws, &ex), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  void* workspace = nullptr;
  if (ws > 0) aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  EXPECT_EQ(aclnnLayerNormBackward(workspace, ws, ex, TestStream()), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(TestStream()), ACL_SUCCESS);
  if (workspace != nullptr) aclrtFree(workspace);
  EXPECT_TRUE(wrong_shape.Untouched());
}

TEST(LayerNormBackwardApi, AllMasksFalseIsANoOp) {
  Args a;
  a.mask = {false, false, false};
  a.dx = nullptr;
  a.gw = nullptr;
  a.gb = nullptr;
  uint64_t ws = 123;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(a.Call(&ws, &ex), ACLNN_SUCCESS);
  EXPECT_EQ(ws, 0u);
  ASSERT_NE(ex, nullptr);
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, 0, ex, TestStream()), ACLNN_SUCCESS);
  EXPECT_EQ(aclrtSynchronizeStream(TestStream()), ACL_SUCCESS);
}

TEST(LayerNormBackwardApi, EmptyTensors) {
  // M == 0: gradWeight and gradBias are zeros, gradInput (empty) untouched.
  {
    DeviceTensor dy({0, 5}, ACL_FLOAT);
    DeviceTensor x({0, 5}, ACL_FLOAT);
    DeviceTensor mean({0, 1}, ACL_FLOAT);
    DeviceTensor rstd({0, 1}, ACL_FLOAT);
    DeviceTensor dx({0, 5}, ACL_FLOAT);
    DeviceTensor gw({5}, ACL_BF16, RowLayout(Layout::kStrided, {5}, 0));
    DeviceTensor gb({5}, ACL_FLOAT16);
    const bool mask[3] = {true, true, true};
    ASSERT_EQ(RunLayerNormBackward(dy.get(), x.get(), {5}, mean.get(), rstd.get(), nullptr, nullptr,
                                   mask, dx.get(), gw.get(), gb.get()),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    for (float v : gw.Values()) EXPECT_EQ(v, 0.0f);
    for (float v : gb.Values()) EXPECT_EQ(v, 0.0f);
    EXPECT_EQ(gw.DamagedCanaries(), 0);
  }
  // N == 0: nothing is written, no workspace.
  {
    DeviceTensor dy({3, 0}, ACL_FLOAT);
    DeviceTensor x({3, 0}, ACL_FLOAT);
    DeviceTensor mean({3}, ACL_FLOAT);
    DeviceTensor rstd({3}, ACL_FLOAT);
    DeviceTensor dx({3, 0}, ACL_FLOAT);
    DeviceTensor gw({0}, ACL_FLOAT);
    DeviceTensor gb({0}, ACL_FLOAT);
    const bool mask[3] = {true, true, true};
    uint64_t ws = 1;
    ASSERT_EQ(RunLayerNormBackward(dy.get(), x.get(), {0}, mean.get(), rstd.get(), nullptr, nullptr,
                                   mask, dx.get(), gw.get(), gb.get(), &ws),
              ACLNN_SUCCESS)
        << aclGetRecentErrMsg();
    EXPECT_EQ(ws, 0u);
    EXPECT_EQ(mean.DamagedCanaries(), 0);
  }
}

TEST(LayerNormBackwardApi, Phase2Arguments) {
  EXPECT_EQ(aclnnLayerNormBackward(nullptr, 0, nullptr, TestStream()), kNull);
  EXPECT_NE(aclGetRecentErrMsg(), nullptr);
  // Workspace smaller than phase 1 asked for (D5).
  DeviceTensor dy({64, 100}, ACL_FLOAT);
  DeviceTensor x({64, 100}, ACL_FLOAT);
  DeviceTensor mean({64}, ACL_FLOAT);
  DeviceTensor rstd({64}, ACL_FLOAT);
  DeviceTensor gw({100}, ACL_FLOAT);
  const int64_t norm[1] = {100};
  const bool mask[3] = {false, true, false};
  aclIntArray* na = aclCreateIntArray(norm, 1);
  aclBoolArray* ma = aclCreateBoolArray(mask, 3);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(
      aclnnLayerNormBackwardGetWorkspaceSize(dy.get(), x.get(), na, mean.get(), rstd.get(), nullptr,
                                             nullptr, ma, nullptr, gw.get(), nullptr, &ws, &ex),
      ACLNN_SUCCESS);
  ASSERT_GT(ws, 0u);
  void* workspace = nullptr;
  aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  EXPECT_EQ(aclnnLayerNormBackward(workspace, ws - 1, ex, TestStream()), kInvalid);
  EXPECT_NE(std::string(aclGetRecentErrMsg()).find("orkspace"), std::string::npos);
  EXPECT_TRUE(gw.Untouched());
  aclrtFree(workspace);
  aclDestroyIntArray(na);
  aclDestroyBoolArray(ma);
}

}  // namespace
}  // namespace openaclnn::lnb_test

// The API matrix of aclnnConvTbcBackward: one case per documented error, in CANN's order, each
// checking the code and the message; plus the accepted edge cases of decision D3.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "conv_tbc_test_util.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "message: " << (text)

// T_in=5, B=2, Cin=3, Cout=4, K=2, pad=1: T_out = 6.
class ConvTbcApiTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    self_ = Make({6, 2, 4});
    input_ = Make({5, 2, 3});
    weight_ = Make({2, 3, 4});
    bias_ = Make({4});
    gx_ = Make({5, 2, 3});
    gw_ = Make({2, 3, 4});
    gb_ = Make({4});
    std::mt19937 rng(1);
    for (DeviceTensor* t : {self_.get(), input_.get(), weight_.get()})
      t->FillUniform(&rng, -1.0f, 1.0f);
  }
  void TearDown() override {
    for (aclTensor* t : extra_) aclDestroyTensor(t);
    self_.reset(), input_.reset(), weight_.reset(), bias_.reset();
    gx_.reset(), gw_.reset(), gb_.reset();
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    RuntimeTest::TearDown();
  }
  static std::unique_ptr<DeviceTensor> Make(std::vector<int64_t> shape,
                                            aclDataType dtype = ACL_FLOAT) {
    return std::make_unique<DeviceTensor>(shape, dtype,
                                          ConvTbcLayout(Layout::kContiguous, shape, false));
  }
  // A new aclTensor over `base`'s memory with another shape, dtype or format.
  aclTensor* Relabel(const DeviceTensor& base, std::vector<int64_t> shape, aclDataType dtype,
                     aclFormat format = ACL_FORMAT_ND) {
    aclTensor* t = aclCreateTensor(shape.data(), shape.size(), dtype, nullptr, 0, format,
                                   shape.data(), shape.size(), base.data());
    extra_.push_back(t);
    return t;
  }
  aclTensor* Relabel(const DeviceTensor& base, aclDataType dtype,
                     aclFormat format = ACL_FORMAT_ND) {
    return Relabel(base, base.dims(), dtype, format);
  }

  struct Args {
    const aclTensor* self;
    const aclTensor* input;
    const aclTensor* weight;
    const aclTensor* bias;
    int64_t pad;
    int8_t cube;
    aclTensor* gx;
    aclTensor* gw;
    aclTensor* gb;
  };
  Args Valid() const {
    return {self_->get(), input_->get(), weight_->get(), bias_->get(), 1, 0,
            gx_->get(),   gw_->get(),    gb_->get()};
  }
  // Phase 1 only; returns the code and leaves the message in message_.
  aclnnStatus Phase1(const Args& a) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    const aclnnStatus s = aclnnConvTbcBackwardGetWorkspaceSize(
        a.self, a.input, a.weight, a.bias, a.pad, a.cube, a.gx, a.gw, a.gb, &ws, &ex);
    message_ = RecentError();
    if (s == ACLNN_SUCCESS) {
      // Single-use executors are released by phase 2; run it so nothing leaks.
      void* wsp = nullptr;
      if (ws > 0) aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST);
      EXPECT_EQ(aclnnConvTbcBackward(wsp, ws, ex, stream_), ACLNN_SUCCESS);
      EXPECT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
      if (wsp != nullptr) aclrtFree(wsp);
    }
    return s;
  }
  void ExpectError(const Args& a, aclnnStatus code, const std::vector<std::string>& parts) {
    EXPECT_EQ(Phase1(a), code);
    EXPECT_CONTAINS(message_, "aclnnConvTbcBackward");
    for (const std::string& part : parts) EXPECT_CONTAINS(message_, part);
  }

  aclrtStream stream_ = nullptr;
  std::unique_ptr<DeviceTensor> self_, input_, weight_, bias_, gx_, gw_, gb_;
  std::vector<aclTensor*> extra_;
  std::string message_;
};

TEST_F(ConvTbcApiTest, ValidCallSucceeds) { EXPECT_EQ(Phase1(Valid()), ACLNN_SUCCESS) << message_; }

TEST_F(ConvTbcApiTest, Check0NullWorkspaceSizeOrExecutor) {
  Args a = Valid();
  aclOpExecutor* ex = nullptr;
  uint64_t ws = 0;
  EXPECT_EQ(aclnnConvTbcBackwardGetWorkspaceSize(a.self, a.input, a.weight, a.bias, 1, 0, a.gx,
                                                 a.gw, a.gb, nullptr, &ex),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_CONTAINS(RecentError(), "workspaceSize");
  EXPECT_EQ(aclnnConvTbcBackwardGetWorkspaceSize(a.self, a.input, a.weight, a.bias, 1, 0, a.gx,
                                                 a.gw, a.gb, &ws, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_CONTAINS(RecentError(), "executor");
}

TEST_F(ConvTbcApiTest, Check2NullTensors) {
  const char* names[] = {"self", "input", "weight", "bias", "gradInput", "gradWeight", "gradBias"};
  for (int i = 0; i < 7; ++i) {
    SCOPED_TRACE(names[i]);
    Args a = Valid();
    const aclTensor** in[] = {&a.self, &a.input, &a.weight, &a.bias};
    aclTensor** out[] = {&a.gx, &a.gw, &a.gb};
    if (i < 4)
      *in[i] = nullptr;
    else
      *out[i - 4] = nullptr;
    ExpectError(a, ACLNN_ERR_PARAM_NULLPTR, {std::string(names[i]) + " must not be nullptr"});
  }
  // The first null in API order is reported, before any dtype problem.
  Args a = Valid();
  a.self = Relabel(*self_, ACL_DOUBLE);
  a.gb = nullptr;
  ExpectError(a, ACLNN_ERR_PARAM_NULLPTR, {"gradBias"});
}

TEST_F(ConvTbcApiTest, Check3Dtypes) {
  struct Case {
    int which;
    aclDataType dtype;
    const char* name;
  } cases[] = {{0, ACL_DOUBLE, "self"},           {1, ACL_INT32, "input"},
               {2, ACL_COMPLEX64, "weight"},      {3, ACL_DOUBLE, "bias"},
               {4, ACL_INT32, "gradInput"},       {5, ACL_COMPLEX128, "gradWeight"},
               {6, ACL_DT_UNDEFINED, "gradBias"}, {0, ACL_INT8, "self"}};
  const DeviceTensor* bases[] = {self_.get(), input_.get(), weight_.get(), bias_.get(),
                                 gx_.get(),   gw_.get(),    gb_.get()};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Args a = Valid();
    aclTensor* t = Relabel(*bases[c.which], c.dtype);
    const aclTensor** in[] = {&a.self, &a.input, &a.weight, &a.bias};
    aclTensor** out[] = {&a.gx, &a.gw, &a.gb};
    if (c.which < 4)
      *in[c.which] = t;
    else
      *out[c.which - 4] = t;
    ExpectError(a, ACLNN_ERR_PARAM_INVALID,
                {std::string(c.name) + " dtype " + DTypeName(c.dtype), "FLOAT, FLOAT16 or BF16"});
  }
}

TEST_F(ConvTbcApiTest, Check4Formats) {
  Args a = Valid();
  a.self = Relabel(*self_, ACL_FLOAT, ACL_FORMAT_NCHW);
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"self format NCHW", "expected ND or NCL"});
  a = Valid();
  a.gw = Relabel(*gw_, ACL_FLOAT, ACL_FORMAT_NHWC);
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"gradWeight format NHWC", "expected ND or NCL"});
  // bias and gradBias: ND only (NCL on them is CANN's unit-test failure case).
  a = Valid();
  a.bias = Relabel(*bias_, ACL_FLOAT, ACL_FORMAT_NCL);
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"bias format NCL", "expected ND"});
  a = Valid();
  a.gb = Relabel(*gb_, ACL_FLOAT, ACL_FORMAT_NCL);
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"gradBias format NCL", "expected ND"});
  // NCL on the 3-D tensors is accepted, as torch_npu passes it.
  a = Valid();
  a.self = Relabel(*self_, ACL_FLOAT, ACL_FORMAT_NCL);
  a.input = Relabel(*input_, ACL_FLOAT, ACL_FORMAT_NCL);
  a.gx = Relabel(*gx_, ACL_FLOAT, ACL_FORMAT_NCL);
  EXPECT_EQ(Phase1(a), ACLNN_SUCCESS) << message_;
  // dtype is checked before format.
  a = Valid();
  a.self = Relabel(*self_, ACL_FLOAT, ACL_FORMAT_NCHW);
  a.weight = Relabel(*weight_, ACL_INT32);
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"weight dtype INT32"});
}

TEST_F(ConvTbcApiTest, Check6Ranks) {
  Args a = Valid();
  a.self = Relabel(*self_, {10, 4}, ACL_FLOAT);
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"self rank 2 must be 3", "[10, 4]"});
  a = Valid();
  a.bias = Relabel(*bias_, {2, 2}, ACL_FLOAT);
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"bias rank 2 must be 1"});
  a = Valid();
  a.gw = Relabel(*gw_, {1, 2, 3, 4}, ACL_FLOAT);
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"gradWeight rank 4 must be 3"});
  a = Valid();
  a.gb = Relabel(*gb_, {1, 4}, ACL_FLOAT);
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"gradBias rank 2 must be 1"});
}

TEST_F(ConvTbcApiTest, Check6ShapeRelations) {
  DeviceTensor big = ConvTbcTensor({2, 4, 5}, ACL_FLOAT, Layout::kContiguous, false);
  Args a = Valid();
  a.weight = Relabel(big, {2, 4, 4}, ACL_FLOAT);
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"input dim 2 (3) must equal weight dim 1 (4)"});
  a = Valid();
  a.bias = Relabel(*bias_, {3}, ACL_FLOAT);
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"bias dim 0 (3) must equal weight dim 2 (4)"});
  a = Valid();
  a.pad = -1;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"pad must be >= 0, got -1"});
  a = Valid();
  a.pad = 0;  // T_out = 5 + 0 + 1 - 2 = 4, but self has 6 steps
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"self shape [6, 2, 4]", "[4, 2, 4]"});
  a = Valid();
  a.weight = Relabel(big, {8, 3, 4}, ACL_FLOAT);  // K = 8 (shapes fail before extents)
  a.gw = Relabel(big, {8, 3, 4}, ACL_FLOAT);
  a.pad = 1;  // T_out = 5 + 2 + 1 - 8 = 0 is valid, but self is [6, 2, 4]
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"self shape", "[0, 2, 4]"});
  a.pad = 0;  // 5 + 0 + 1 - 8 = -2
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"T_out", "= -2 must be >= 0"});
  a = Valid();
  a.self = Relabel(*self_, {6, 2, 4}, ACL_FLOAT);
  a.input = Relabel(*input_, {5, 2, 3}, ACL_FLOAT);
  a.gx = Relabel(*gx_, {5, 3, 2}, ACL_FLOAT);
  ExpectError(a, ACLNN_ERR_PARAM_INVALID,
              {"gradInput shape [5, 3, 2] must equal input shape [5, 2, 3]"});
  a = Valid();
  a.gw = Relabel(*gw_, {2, 4, 3}, ACL_FLOAT);
  ExpectError(a, ACLNN_ERR_PARAM_INVALID,
              {"gradWeight shape [2, 4, 3] must equal weight shape [2, 3, 4]"});
  a = Valid();
  a.gb = Relabel(*gb_, {3}, ACL_FLOAT);
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"gradBias shape [3] must equal bias shape [4]"});
  // Shapes are checked before cubeMathType.
  a.cube = 9;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"gradBias shape"});
}

TEST_F(ConvTbcApiTest, Check7CubeMathType) {
  for (int cube : {-1, 4, 7, 127}) {
    Args a = Valid();
    a.cube = static_cast<int8_t>(cube);
    ExpectError(a, ACLNN_ERR_PARAM_INVALID,
                {"cubeMathType must be 0", "got " + std::to_string(cube)});
  }
  for (int cube = 0; cube <= 3; ++cube) {
    Args a = Valid();
    a.cube = static_cast<int8_t>(cube);
    EXPECT_EQ(Phase1(a), ACLNN_SUCCESS) << message_;
  }
}

TEST_F(ConvTbcApiTest, ViewOutsideItsAllocationIsRejected) {
  Args a = Valid();
  std::vector<int64_t> shape{5, 2, 3};
  aclTensor* t = aclCreateTensor(shape.data(), 3, ACL_FLOAT, nullptr, 20, ACL_FORMAT_ND,
                                 shape.data(), 3, gx_->data());  // reaches past the end
  extra_.push_back(t);
  a.gx = t;
  ExpectError(a, ACLNN_ERR_PARAM_INVALID, {"gradInput"});
}

TEST_F(ConvTbcApiTest, Phase2Errors) {
  EXPECT_EQ(aclnnConvTbcBackward(nullptr, 0, nullptr, stream_), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_CONTAINS(RecentError(), "executor");
  // 16-bit inputs need fp32 panels: a workspace one byte short is refused (decision D5).
  DeviceTensor s = ConvTbcTensor({6, 2, 4}, ACL_BF16, Layout::kContiguous, false);
  Args a = Valid();
  a.self = s.get();
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnConvTbcBackwardGetWorkspaceSize(a.self, a.input, a.weight, a.bias, 1, 0, a.gx,
                                                 a.gw, a.gb, &ws, &ex),
            ACLNN_SUCCESS);
  ASSERT_GT(ws, 0u);
  void* wsp = nullptr;
  ASSERT_EQ(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclnnConvTbcBackward(wsp, ws - 1, ex, stream_), ACLNN_ERR_PARAM_INVALID);
  EXPECT_CONTAINS(RecentError(), "workspace");
  aclrtFree(wsp);
}

// Decision D3: an empty self is accepted; gradients are the true (empty) sums.
TEST_F(ConvTbcApiTest, EmptySelfGivesZeros) {
  // T_in = 2, K = 5, pad = 1: T_out = 0.
  DeviceTensor s = ConvTbcTensor({0, 2, 4}, ACL_FLOAT, Layout::kContiguous, false);
  DeviceTensor x = ConvTbcTensor({2, 2, 3}, ACL_FLOAT, Layout::kContiguous, false);
  DeviceTensor w = ConvTbcTensor({5, 3, 4}, ACL_FLOAT, Layout::kContiguous, false);
  DeviceTensor gx = ConvTbcTensor({2, 2, 3}, ACL_FLOAT, Layout::kContiguous, true);
  DeviceTensor gw = ConvTbcTensor({5, 3, 4}, ACL_FLOAT, Layout::kContiguous, true);
  std::mt19937 rng(3);
  x.FillUniform(&rng, -1.0f, 1.0f);
  w.FillUniform(&rng, -1.0f, 1.0f);
  CallResult r = CallConvTbcBackward(s.get(), x.get(), w.get(), bias_->get(), 1, 0, gx.get(),
                                     gw.get(), gb_->get(), stream_);
  ASSERT_EQ(r.phase1, ACLNN_SUCCESS) << r.message;
  ASSERT_EQ(r.phase2, ACLNN_SUCCESS) << r.message;
  for (float v : gx.Values()) EXPECT_EQ(v, 0.0f);
  for (float v : gw.Values()) EXPECT_EQ(v, 0.0f);
  for (float v : gb_->Values()) EXPECT_EQ(v, 0.0f);  // CANN would write B * T_out = 0 here too
}

TEST_F(ConvTbcApiTest, EmptyInputChannelsGiveTrueBiasSum) {
  // Cin = 0: no products; gradBias is still the sum of self (CANN writes B * T_out instead).
  DeviceTensor x = ConvTbcTensor({5, 2, 0}, ACL_FLOAT, Layout::kContiguous, false);
  DeviceTensor w = ConvTbcTensor({2, 0, 4}, ACL_FLOAT, Layout::kContiguous, false);
  DeviceTensor gx = ConvTbcTensor({5, 2, 0}, ACL_FLOAT, Layout::kContiguous, true);
  DeviceTensor gw = ConvTbcTensor({2, 0, 4}, ACL_FLOAT, Layout::kContiguous, true);
  std::vector<float> dy(48);
  for (int i = 0; i < 48; ++i) dy[i] = static_cast<float>(i % 7) - 3.0f;
  self_->Fill(dy);
  CallResult r = CallConvTbcBackward(self_->get(), x.get(), w.get(), bias_->get(), 1, 0, gx.get(),
                                     gw.get(), gb_->get(), stream_);
  ASSERT_EQ(r.phase1, ACLNN_SUCCESS) << r.message;
  std::vector<float> gb = gb_->Values();
  for (int co = 0; co < 4; ++co) {
    float sum = 0;
    for (int row = 0; row < 12; ++row) sum += dy[row * 4 + co];
    EXPECT_EQ(gb[co], sum) << co;
  }
}

}  // namespace
}  // namespace openaclnn::test

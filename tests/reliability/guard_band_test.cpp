// Guard bands: outputs inside larger canary-filled buffers with strided gaps. After every call each
// canary byte is intact, outputs whose mask is false are not touched at all, and the values equal,
// bit for bit, those written to plain contiguous outputs.

#include <gtest/gtest.h>

#include <cstring>

#include "util/ops_fixtures.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

class GuardBandTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
  }
  void TearDown() override {
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    RuntimeTest::TearDown();
  }
  aclrtStream stream_ = nullptr;
};

TEST_F(GuardBandTest, LayerNormBackwardEveryMaskAndDtype) {
  int cases = 0;
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (aclDataType out_dtype : {ACL_FLOAT, dtype}) {
      for (int bits = 0; bits < 8; ++bits) {
        const bool mask[3] = {(bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0};
        for (auto [lead, norm] :
             {std::pair<std::vector<int64_t>, std::vector<int64_t>>{{3, 5}, {7}},
              {{2}, {4, 33}},
              {{0, 3}, {5}},
              {{4}, {1}}}) {
          LayerNormCase padded(lead, norm, dtype, mask, {2, 3, 5}, out_dtype);
          LayerNormCase plain(lead, norm, dtype, mask, {0, 0, 0}, out_dtype);
          ASSERT_EQ(padded.Run(stream_), 0) << RecentError();
          ASSERT_EQ(plain.Run(stream_, false), 0) << RecentError();
          const DeviceTensor* outs[3] = {padded.gx.get(), padded.gw.get(), padded.gb.get()};
          const DeviceTensor* refs[3] = {plain.gx.get(), plain.gw.get(), plain.gb.get()};
          for (int o = 0; o < 3; ++o) {
            SCOPED_TRACE(testing::Message() << "dtype " << dtype << " out " << out_dtype << " mask "
                                            << bits << " output " << o);
            if (!mask[o]) {
              EXPECT_TRUE(outs[o]->Untouched());
              continue;
            }
            EXPECT_EQ(outs[o]->DamagedCanaries(), 0);
            const std::vector<float> got = outs[o]->Values(), want = refs[o]->Values();
            ASSERT_EQ(got.size(), want.size());
            for (size_t i = 0; i < got.size(); ++i) {
              ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(float)), 0) << i;
            }
          }
          ++cases;
        }
      }
    }
  }
  EXPECT_EQ(cases, 3 * 2 * 8 * 4);
}

TEST_F(GuardBandTest, ConvTbcBackwardShapesAndDtypes) {
  struct Shape {
    int64_t t_in, batch, c_in, c_out, k, pad;
  };
  const Shape shapes[] = {{6, 3, 5, 4, 3, 1},
                          {4, 1, 3, 7, 6, 5},
                          {9, 2, 17, 16, 1, 0},
                          {5, 2, 3, 3, 2, 0},
                          {0, 2, 3, 4, 1, 0}};
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (const Shape& s : shapes) {
      SCOPED_TRACE(testing::Message() << "dtype " << dtype << " t_in " << s.t_in << " k " << s.k);
      ConvTbcCase padded(s.t_in, s.batch, s.c_in, s.c_out, s.k, s.pad, dtype, {1, 2, 7});
      ConvTbcCase plain(s.t_in, s.batch, s.c_in, s.c_out, s.k, s.pad, dtype, {0, 0, 0});
      ASSERT_EQ(padded.Run(stream_), 0) << RecentError();
      ASSERT_EQ(plain.Run(stream_), 0) << RecentError();
      const DeviceTensor* outs[3] = {padded.gx.get(), padded.gw.get(), padded.gb.get()};
      const DeviceTensor* refs[3] = {plain.gx.get(), plain.gw.get(), plain.gb.get()};
      for (int o = 0; o < 3; ++o) {
        EXPECT_EQ(outs[o]->DamagedCanaries(), 0) << "output " << o;
        const std::vector<float> got = outs[o]->Values(), want = refs[o]->Values();
        for (size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(std::memcmp(&got[i], &want[i], sizeof(float)), 0) << "output " << o << " " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace openaclnn::test

namespace openaclnn::test {
namespace {

// Tensors the computation never touches (outputs whose mask is false, LayerNorm's bias, ConvTBC's
// bias) may come without an address; a used tensor without one is refused in phase 2.
TEST_F(GuardBandTest, UntouchedTensorsNeedNoAddress) {
  const bool mask[3] = {true, false, false};
  LayerNormCase c({4}, {8}, ACL_FLOAT, mask, {}, ACL_FLOAT);
  int64_t n = 8;
  std::vector<int64_t> dims{8};
  aclTensor* no_address = aclCreateTensor(dims.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND,
                                          dims.data(), 1, nullptr);
  aclIntArray* norm = aclCreateIntArray(&n, 1);
  aclBoolArray* m = aclCreateBoolArray(mask, 3);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  aclnnStatus s = aclnnLayerNormBackwardGetWorkspaceSize(
      c.dy->get(), c.x->get(), norm, c.mean->get(), c.rstd->get(), c.weight->get(), no_address, m,
      c.gx->get(), no_address, no_address, &ws, &ex);
  EXPECT_EQ(RunTwoPhase(s, ws, ex, stream_, aclnnLayerNormBackward), 0) << RecentError();
  // The same tensor as the weight, which is read: refused.
  s = aclnnLayerNormBackwardGetWorkspaceSize(c.dy->get(), c.x->get(), norm, c.mean->get(),
                                             c.rstd->get(), no_address, nullptr, m, c.gx->get(),
                                             nullptr, nullptr, &ws, &ex);
  EXPECT_EQ(RunTwoPhase(s, ws, ex, stream_, aclnnLayerNormBackward), 161001);
  EXPECT_NE(RecentError().find("no device address"), std::string::npos);
  aclDestroyIntArray(norm);
  aclDestroyBoolArray(m);

  ConvTbcCase conv(5, 2, 3, 4, 2, 1, ACL_FLOAT, {});
  std::vector<int64_t> bias_dims{4};
  aclTensor* bias = aclCreateTensor(bias_dims.data(), 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND,
                                    bias_dims.data(), 1, nullptr);
  s = aclnnConvTbcBackwardGetWorkspaceSize(conv.dy->get(), conv.x->get(), conv.w->get(), bias,
                                           conv.pad, 0, conv.gx->get(), conv.gw->get(),
                                           conv.gb->get(), &ws, &ex);
  EXPECT_EQ(RunTwoPhase(s, ws, ex, stream_, aclnnConvTbcBackward), 0) << RecentError();
  aclDestroyTensor(bias);
  aclDestroyTensor(no_address);
}

}  // namespace
}  // namespace openaclnn::test

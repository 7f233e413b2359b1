// Decision D6: with ACL_OPT_DETERMINISTIC set, outputs are bitwise identical for any thread count
// (and, on the CPU, without it too); a repeatable executor gives the same bits on every run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <vector>

#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "conv_tbc_test_util.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

using conv_tbc::ConvShape;

class ConvTbcDeterminismTest : public RuntimeTest, public ::testing::WithParamInterface<int64_t> {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
  }
  void TearDown() override {
    cpu::SetNumThreads(0);
    aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0);
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    RuntimeTest::TearDown();
  }
  aclrtStream stream_ = nullptr;
};

TEST_P(ConvTbcDeterminismTest, BitwiseEqualAcrossThreadCounts) {
  ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, GetParam()), ACL_SUCCESS);
  // Several gradInput and gradWeight tiles, long reductions, and BF16 outputs fed by panels;
  // the third shape runs in panel mode on AVX-512 (FLOAT) and AMX (BF16). Under emulation
  // (OPENACLNN_TEST_EMULATED, set by scripts/test_aarch64.sh for qemu-user) the same structure at
  // a tenth of the work: still several tiles and a BF16 panel path.
  const bool emulated = std::getenv("OPENACLNN_TEST_EMULATED") != nullptr;
  const std::vector<ConvShape> shapes =
      emulated ? std::vector<ConvShape>{{20, 4, 130, 200, 3, 1}, {60, 1, 40, 70, 6, 5}}
               : std::vector<ConvShape>{
                     {40, 16, 300, 600, 3, 1}, {200, 1, 90, 130, 6, 5}, {70, 8, 780, 1030, 2, 1}};
  for (const ConvShape& s : shapes) {
    for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
      DeviceTensor dy =
          ConvTbcTensor({s.t_out(), s.batch, s.c_out}, dt, Layout::kContiguous, false);
      DeviceTensor x = ConvTbcTensor({s.t_in, s.batch, s.c_in}, dt, Layout::kContiguous, false);
      DeviceTensor w = ConvTbcTensor({s.taps, s.c_in, s.c_out}, dt, Layout::kContiguous, false);
      DeviceTensor bias = ConvTbcTensor({s.c_out}, dt, Layout::kContiguous, false);
      DeviceTensor gx = ConvTbcTensor({s.t_in, s.batch, s.c_in}, dt, Layout::kContiguous, true);
      DeviceTensor gw = ConvTbcTensor({s.taps, s.c_in, s.c_out}, dt, Layout::kContiguous, true);
      DeviceTensor gb = ConvTbcTensor({s.c_out}, dt, Layout::kContiguous, true);
      std::mt19937 rng(11);
      dy.FillUniform(&rng, -1.0f, 1.0f);
      x.FillUniform(&rng, -1.0f, 1.0f);
      w.FillUniform(&rng, -1.0f, 1.0f);
      std::vector<uint8_t> first[3];
      for (int threads : {1, 2, 3, 1}) {
        cpu::SetNumThreads(threads);
        CallResult r = CallConvTbcBackward(dy.get(), x.get(), w.get(), bias.get(), s.pad, 0,
                                           gx.get(), gw.get(), gb.get(), stream_);
        ASSERT_EQ(r.phase1, 0) << r.message;
        ASSERT_EQ(r.phase2, 0) << r.message;
        const std::vector<uint8_t> now[3] = {gx.Bytes(), gw.Bytes(), gb.Bytes()};
        for (int i = 0; i < 3; ++i) {
          if (first[i].empty()) {
            first[i] = now[i];
          } else {
            EXPECT_TRUE(now[i] == first[i])
                << "output " << i << " differs with " << threads << " threads, dtype "
                << DTypeName(dt) << " T_in=" << s.t_in;
          }
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Mode, ConvTbcDeterminismTest, ::testing::Values(int64_t{1}, int64_t{0}));

// Every SIMD target gives the same bits (the conversions are exact on all of them, and the GEMM
// does its own dispatch): 16-bit inputs, cubeMathType 2 and 16-bit strided outputs exercise every
// conversion kernel.
TEST_F(ConvTbcDeterminismTest, BitwiseEqualAcrossIsas) {
  const ConvShape s{21, 6, 45, 70, 3, 1};
  for (int cube : {0, 2, 3}) {
    DeviceTensor dy =
        ConvTbcTensor({s.t_out(), s.batch, s.c_out}, ACL_FLOAT16, Layout::kContiguous, false);
    DeviceTensor x = ConvTbcTensor({s.t_in, s.batch, s.c_in}, ACL_BF16, Layout::kContiguous, false);
    DeviceTensor w =
        ConvTbcTensor({s.taps, s.c_in, s.c_out}, ACL_FLOAT, Layout::kContiguous, false);
    DeviceTensor bias = ConvTbcTensor({s.c_out}, ACL_FLOAT, Layout::kContiguous, false);
    DeviceTensor gx = ConvTbcTensor({s.t_in, s.batch, s.c_in}, ACL_BF16, Layout::kPadded, true);
    DeviceTensor gw = ConvTbcTensor({s.taps, s.c_in, s.c_out}, ACL_FLOAT16, Layout::kOffset, true);
    DeviceTensor gb = ConvTbcTensor({s.c_out}, ACL_BF16, Layout::kContiguous, true);
    std::mt19937 rng(13);
    dy.FillUniform(&rng, -1.0f, 1.0f);
    x.FillUniform(&rng, -1.0f, 1.0f);
    w.FillUniform(&rng, -1.0f, 1.0f);
    std::vector<uint8_t> first[3];
    for (const std::string& isa : cpu::AvailableIsas()) {
      ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
      CallResult r =
          CallConvTbcBackward(dy.get(), x.get(), w.get(), bias.get(), s.pad,
                              static_cast<int8_t>(cube), gx.get(), gw.get(), gb.get(), stream_);
      cpu::SetPlanningIsaCap("");
      ASSERT_EQ(r.phase1, 0) << r.message;
      ASSERT_EQ(r.phase2, 0) << r.message;
      const std::vector<uint8_t> now[3] = {gx.Bytes(), gw.Bytes(), gb.Bytes()};
      for (int i = 0; i < 3; ++i) {
        if (first[i].empty()) {
          first[i] = now[i];
        } else {
          EXPECT_TRUE(now[i] == first[i])
              << "output " << i << " differs on " << isa << ", cubeMathType " << cube;
        }
      }
    }
  }
}

TEST_F(ConvTbcDeterminismTest, RepeatableExecutorWithRebinding) {
  const ConvShape s{30, 8, 70, 90, 3, 1};
  DeviceTensor dy =
      ConvTbcTensor({s.t_out(), s.batch, s.c_out}, ACL_FLOAT, Layout::kContiguous, false);
  DeviceTensor x = ConvTbcTensor({s.t_in, s.batch, s.c_in}, ACL_FLOAT, Layout::kContiguous, false);
  DeviceTensor x2 = ConvTbcTensor({s.t_in, s.batch, s.c_in}, ACL_FLOAT, Layout::kContiguous, false);
  DeviceTensor w = ConvTbcTensor({s.taps, s.c_in, s.c_out}, ACL_FLOAT, Layout::kContiguous, false);
  DeviceTensor bias = ConvTbcTensor({s.c_out}, ACL_FLOAT, Layout::kContiguous, false);
  DeviceTensor gx = ConvTbcTensor({s.t_in, s.batch, s.c_in}, ACL_FLOAT, Layout::kContiguous, true);
  DeviceTensor gw = ConvTbcTensor({s.taps, s.c_in, s.c_out}, ACL_FLOAT, Layout::kContiguous, true);
  DeviceTensor gw2 = ConvTbcTensor({s.taps, s.c_in, s.c_out}, ACL_FLOAT, Layout::kContiguous, true);
  DeviceTensor gb = ConvTbcTensor({s.c_out}, ACL_FLOAT, Layout::kContiguous, true);
  std::mt19937 rng(5);
  dy.FillUniform(&rng, -1.0f, 1.0f);
  x.FillUniform(&rng, -1.0f, 1.0f);
  w.FillUniform(&rng, -1.0f, 1.0f);
  std::vector<float> xv = x.Values();
  for (float& v : xv) v *= 2.0f;  // exact: gradWeight doubles exactly
  x2.Fill(xv);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnConvTbcBackwardGetWorkspaceSize(dy.get(), x.get(), w.get(), bias.get(), s.pad, 0,
                                                 gx.get(), gw.get(), gb.get(), &ws, &ex),
            0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  void* wsp = nullptr;
  if (ws > 0) {
    ASSERT_EQ(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  }
  ASSERT_EQ(aclnnConvTbcBackward(wsp, ws, ex, stream_), 0);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), 0);
  const std::vector<float> gw_first = gw.Values();
  // Rebind input (index 1) and gradWeight (output index 1), run again.
  ASSERT_EQ(aclSetInputTensorAddr(ex, 1, x.get(), x2.data()), 0);
  ASSERT_EQ(aclSetOutputTensorAddr(ex, 1, gw.get(), gw2.data()), 0);
  ASSERT_EQ(aclnnConvTbcBackward(wsp, ws, ex, stream_), 0);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), 0);
  const std::vector<float> gw_second = gw2.Values();
  EXPECT_EQ(gw.Values(), gw_first);  // the old binding was not written again
  for (size_t i = 0; i < gw_first.size(); ++i) ASSERT_EQ(gw_second[i], 2.0f * gw_first[i]) << i;
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  if (wsp != nullptr) aclrtFree(wsp);
}

}  // namespace
}  // namespace openaclnn::test

// Concurrency: many threads running both operators on their own streams give results bitwise
// equal to a single-threaded run; an executor built on one thread runs on another; two streams
// on one device interleave correctly.

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "util/ops_fixtures.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

constexpr bool kAllMasks[3] = {true, true, true};

std::vector<float> LayerNormResult(aclrtStream stream, LayerNormCase& c) {
  if (c.Run(stream) != 0) return {};
  std::vector<float> r = c.gx->Values(), w = c.gw->Values(), b = c.gb->Values();
  r.insert(r.end(), w.begin(), w.end());
  r.insert(r.end(), b.begin(), b.end());
  return r;
}

std::vector<float> ConvResult(aclrtStream stream, ConvTbcCase& c) {
  if (c.Run(stream) != 0) return {};
  std::vector<float> r = c.gx->Values(), w = c.gw->Values(), b = c.gb->Values();
  r.insert(r.end(), w.begin(), w.end());
  r.insert(r.end(), b.begin(), b.end());
  return r;
}

bool BitwiseEqual(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && !a.empty() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(OpsConcurrencyTest, EightThreadsMatchASingleThread) {
  ASSERT_EQ(aclInit(nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream main_stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&main_stream), ACL_SUCCESS);
  LayerNormCase ln({24}, {96}, ACL_BF16, kAllMasks, {}, ACL_FLOAT);
  ConvTbcCase conv(12, 4, 24, 16, 3, 1, ACL_FLOAT, {});
  const std::vector<float> ln_expected = LayerNormResult(main_stream, ln);
  const std::vector<float> conv_expected = ConvResult(main_stream, conv);
  ASSERT_FALSE(ln_expected.empty());
  ASSERT_FALSE(conv_expected.empty());

  constexpr int kThreads = 8;
  constexpr int kIterations = 150;
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      aclrtSetDevice(0);
      aclrtStream stream = nullptr;
      aclrtCreateStream(&stream);
      LayerNormCase my_ln({24}, {96}, ACL_BF16, kAllMasks, {}, ACL_FLOAT);
      ConvTbcCase my_conv(12, 4, 24, 16, 3, 1, ACL_FLOAT, {});
      for (int i = 0; i < kIterations; ++i) {
        mismatches[t] += !BitwiseEqual(LayerNormResult(stream, my_ln), ln_expected);
        mismatches[t] += !BitwiseEqual(ConvResult(stream, my_conv), conv_expected);
      }
      aclrtDestroyStream(stream);
      aclrtResetDevice(0);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
  EXPECT_EQ(aclrtDestroyStream(main_stream), ACL_SUCCESS);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  EXPECT_EQ(aclFinalize(), ACL_SUCCESS);
}

class OpsThreadingTest : public RuntimeTest {};

TEST_F(OpsThreadingTest, ExecutorBuiltOnOneThreadRunsOnAnother) {
  // torch_npu runs phase 1 on the Python thread and phase 2 on its task-queue thread.
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  ConvTbcCase conv(10, 3, 8, 6, 3, 1, ACL_FLOAT, {});
  ConvTbcCase expected(10, 3, 8, 6, 3, 1, ACL_FLOAT, {});
  ASSERT_EQ(expected.Run(stream), 0);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnConvTbcBackwardGetWorkspaceSize(conv.dy->get(), conv.x->get(), conv.w->get(),
                                                 conv.bias->get(), conv.pad, 0, conv.gx->get(),
                                                 conv.gw->get(), conv.gb->get(), &ws, &ex),
            0);
  aclnnStatus status = -1;
  std::thread runner([&] {
    aclrtSetDevice(0);
    status = RunTwoPhase(0, ws, ex, stream, aclnnConvTbcBackward);
    aclrtResetDevice(0);
  });
  runner.join();
  EXPECT_EQ(status, 0);
  EXPECT_TRUE(BitwiseEqual(conv.gw->Values(), expected.gw->Values()));
  EXPECT_TRUE(BitwiseEqual(conv.gx->Values(), expected.gx->Values()));
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

TEST_F(OpsThreadingTest, TwoStreamsInterleave) {
  aclrtStream a = nullptr, b = nullptr;
  ASSERT_EQ(aclrtCreateStream(&a), ACL_SUCCESS);
  ASSERT_EQ(aclrtCreateStream(&b), ACL_SUCCESS);
  LayerNormCase ln_ref({16}, {40}, ACL_FLOAT, kAllMasks, {}, ACL_FLOAT);
  ConvTbcCase conv_ref(9, 2, 5, 7, 2, 1, ACL_FLOAT16, {});
  const std::vector<float> ln_expected = LayerNormResult(a, ln_ref);
  const std::vector<float> conv_expected = ConvResult(a, conv_ref);
  std::vector<std::unique_ptr<LayerNormCase>> lns;
  std::vector<std::unique_ptr<ConvTbcCase>> convs;
  for (int i = 0; i < 6; ++i) {
    lns.push_back(std::make_unique<LayerNormCase>(std::vector<int64_t>{16},
                                                  std::vector<int64_t>{40}, ACL_FLOAT, kAllMasks,
                                                  OutputLayout{}, ACL_FLOAT));
    convs.push_back(std::make_unique<ConvTbcCase>(9, 2, 5, 7, 2, 1, ACL_FLOAT16, OutputLayout{}));
  }
  // Queue everything first, alternating streams, then synchronise both.
  std::vector<void*> workspaces;
  for (int i = 0; i < 6; ++i) {
    for (int op = 0; op < 2; ++op) {
      uint64_t ws = 0;
      aclOpExecutor* ex = nullptr;
      aclnnStatus s;
      if (op == 0) {
        LayerNormCase& c = *lns[static_cast<size_t>(i)];
        aclIntArray* norm = aclCreateIntArray(c.norm.data(), 1);
        aclBoolArray* m = aclCreateBoolArray(kAllMasks, 3);
        s = aclnnLayerNormBackwardGetWorkspaceSize(c.dy->get(), c.x->get(), norm, c.mean->get(),
                                                   c.rstd->get(), c.weight->get(), nullptr, m,
                                                   c.gx->get(), c.gw->get(), c.gb->get(), &ws, &ex);
        aclDestroyIntArray(norm);
        aclDestroyBoolArray(m);
      } else {
        ConvTbcCase& c = *convs[static_cast<size_t>(i)];
        s = aclnnConvTbcBackwardGetWorkspaceSize(c.dy->get(), c.x->get(), c.w->get(), c.bias->get(),
                                                 c.pad, 0, c.gx->get(), c.gw->get(), c.gb->get(),
                                                 &ws, &ex);
      }
      ASSERT_EQ(s, 0) << RecentError();
      void* w = nullptr;
      if (ws > 0) {
        ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
      }
      workspaces.push_back(w);
      aclrtStream stream = (i + op) % 2 == 0 ? a : b;
      ASSERT_EQ(op == 0 ? aclnnLayerNormBackward(w, ws, ex, stream)
                        : aclnnConvTbcBackward(w, ws, ex, stream),
                0);
    }
  }
  ASSERT_EQ(aclrtSynchronizeStream(a), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(b), ACL_SUCCESS);
  for (void* w : workspaces) {
    if (w != nullptr) aclrtFree(w);
  }
  for (int i = 0; i < 6; ++i) {
    std::vector<float> r = lns[static_cast<size_t>(i)]->gx->Values();
    std::vector<float> w = lns[static_cast<size_t>(i)]->gw->Values();
    std::vector<float> bb = lns[static_cast<size_t>(i)]->gb->Values();
    r.insert(r.end(), w.begin(), w.end());
    r.insert(r.end(), bb.begin(), bb.end());
    EXPECT_TRUE(BitwiseEqual(r, ln_expected)) << i;
    std::vector<float> c = convs[static_cast<size_t>(i)]->gx->Values();
    std::vector<float> cw = convs[static_cast<size_t>(i)]->gw->Values();
    std::vector<float> cb = convs[static_cast<size_t>(i)]->gb->Values();
    c.insert(c.end(), cw.begin(), cw.end());
    c.insert(c.end(), cb.begin(), cb.end());
    EXPECT_TRUE(BitwiseEqual(c, conv_expected)) << i;
  }
  ASSERT_EQ(aclrtDestroyStream(a), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(b), ACL_SUCCESS);
}

}  // namespace
}  // namespace openaclnn::test

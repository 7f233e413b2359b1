// Hostile sizes: element counts that overflow int64, byte sizes that overflow size_t, views that
// reach outside their aclrtMalloc block, workspaces smaller than phase 1 asked for.

#include <gtest/gtest.h>

#include <climits>

#include "util/ops_fixtures.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

class HostileSizeTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    ASSERT_EQ(aclrtMalloc(&block_, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  void TearDown() override {
    for (aclTensor* t : tensors_) aclDestroyTensor(t);
    aclrtFree(block_);
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    RuntimeTest::TearDown();
  }
  aclTensor* Tensor(std::vector<int64_t> dims, aclDataType dtype = ACL_FLOAT, int64_t offset = 0,
                    void* data = nullptr) {
    aclTensor* t = aclCreateTensor(dims.data(), dims.size(), dtype, nullptr, offset, ACL_FORMAT_ND,
                                   dims.data(), dims.size(), data == nullptr ? block_ : data);
    tensors_.push_back(t);
    return t;
  }
  // LayerNorm backward phase 1 on input `shape` normalised over its last dim, every tensor built
  // the same way.
  aclnnStatus LayerNormPhase1(const std::vector<int64_t>& shape, aclDataType dtype,
                              int64_t offset = 0) {
    std::vector<int64_t> stats(shape.begin(), shape.end() - 1);
    stats.push_back(1);
    const int64_t n = shape.back();
    aclIntArray* norm = aclCreateIntArray(&n, 1);
    const bool mask[3] = {true, true, true};
    aclBoolArray* m = aclCreateBoolArray(mask, 3);
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    const aclnnStatus s = aclnnLayerNormBackwardGetWorkspaceSize(
        Tensor(shape, dtype, offset), Tensor(shape, dtype), norm, Tensor(stats), Tensor(stats),
        nullptr, nullptr, m, Tensor(shape, dtype), Tensor({n}), Tensor({n}), &ws, &ex);
    if (s == 0) aclDestroyAclOpExecutor(ex);
    aclDestroyIntArray(norm);
    aclDestroyBoolArray(m);
    return s;
  }
  // ConvTbc backward phase 1; `data` (default: the 4 KiB aclrtMalloc block) backs every tensor.
  aclnnStatus ConvPhase1(int64_t t_in, int64_t batch, int64_t c_in, int64_t c_out, int64_t k,
                         int64_t pad, int64_t x_offset = 0, void* data = nullptr,
                         aclDataType dtype = ACL_FLOAT) {
    const int64_t t_out = t_in + 2 * pad + 1 - k;
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    const aclnnStatus s = aclnnConvTbcBackwardGetWorkspaceSize(
        Tensor({t_out, batch, c_out}, dtype, 0, data),
        Tensor({t_in, batch, c_in}, dtype, x_offset, data),
        Tensor({k, c_in, c_out}, dtype, 0, data), Tensor({c_out}, dtype, 0, data), pad, 0,
        Tensor({t_in, batch, c_in}, dtype, 0, data), Tensor({k, c_in, c_out}, dtype, 0, data),
        Tensor({c_out}, dtype, 0, data), &ws, &ex);
    if (s == 0) aclDestroyAclOpExecutor(ex);
    return s;
  }

  aclrtStream stream_ = nullptr;
  void* block_ = nullptr;
  std::vector<aclTensor*> tensors_;
};

TEST_F(HostileSizeTest, ElementCountOverflowingInt64) {
  EXPECT_EQ(LayerNormPhase1({1LL << 62, 8}, ACL_FLOAT), 161002);
  EXPECT_FALSE(RecentError().empty());
  EXPECT_EQ(LayerNormPhase1({INT64_MAX, 2}, ACL_BF16), 161002);
  EXPECT_EQ(ConvPhase1(1LL << 40, 1LL << 20, 1LL << 10, 4, 1, 0), 161002);
  EXPECT_FALSE(RecentError().empty());
}

TEST_F(HostileSizeTest, ByteSizeOverflowingSizeT) {
  // 2^61 * 2 elements fit int64, their bytes (2^64 as FLOAT) do not fit size_t.
  EXPECT_EQ(LayerNormPhase1({1LL << 61, 2}, ACL_FLOAT), 161002);
  EXPECT_EQ(ConvPhase1(1LL << 31, 1LL << 30, 1, 1, 1, 0), 161002);
}

// Plain host memory is not checked against a block, so only the element limit stands between a
// huge view and phase 1.
TEST_F(HostileSizeTest, ViewsBeyondTwoToTheFortyElements) {
  static float host[16];
  // input and gradInput (2^20, 2^21, 1): 2^41 elements.
  EXPECT_EQ(ConvPhase1(1LL << 20, 1LL << 21, 1, 1, 1, 0, 0, host), 161002);
  EXPECT_NE(RecentError().find("2^40"), std::string::npos);
  // 2^39 elements are accepted: phase 1 holds no per-tile state.
  EXPECT_EQ(ConvPhase1(1LL << 20, 1LL << 19, 1, 1, 1, 0, 0, host), 0) << RecentError();
}

// Packed panels of huge but valid operands: no stride is formed from a product that overflows.
TEST_F(HostileSizeTest, HugeChannelCountsInPackedPanels) {
  static float host[16];
  // gradInput (1, 1, 2^32) BF16 goes through an fp32 panel: Cin^2 would overflow int64.
  EXPECT_EQ(ConvPhase1(1, 1, 1LL << 32, 1, 1, 0, 0, host, ACL_BF16), 0) << RecentError();
}

TEST_F(HostileSizeTest, ViewsReachingOutsideTheirBlock) {
  // 4096 bytes hold 1024 floats: 32 x 32 fits, 32 x 33 does not, nor does an offset of 1.
  EXPECT_EQ(LayerNormPhase1({32, 32}, ACL_FLOAT), 0) << RecentError();
  EXPECT_EQ(LayerNormPhase1({32, 33}, ACL_FLOAT), 161002);
  EXPECT_NE(RecentError().find("aclrtMalloc block"), std::string::npos);
  EXPECT_EQ(LayerNormPhase1({32, 32}, ACL_FLOAT, 1), 161002);
  EXPECT_EQ(ConvPhase1(16, 4, 16, 16, 1, 0), 0) << RecentError();
  EXPECT_EQ(ConvPhase1(16, 4, 17, 16, 1, 0), 161002);
  EXPECT_EQ(ConvPhase1(16, 4, 16, 16, 1, 0, 3), 161002);
}

TEST_F(HostileSizeTest, ImpossibleMallocIsAnError) {
  void* p = nullptr;
  EXPECT_EQ(aclrtMalloc(&p, SIZE_MAX / 2, ACL_MEM_MALLOC_HUGE_FIRST),
            ACL_ERROR_RT_MEMORY_ALLOCATION);
  EXPECT_EQ(p, nullptr);
}

TEST_F(HostileSizeTest, WorkspaceSmallerThanReportedReleasesTheExecutor) {
  const bool mask[3] = {true, true, true};
  LayerNormCase ln({512}, {64}, ACL_BF16, mask, {}, ACL_FLOAT);
  ConvTbcCase conv(8, 2, 8, 8, 3, 1, ACL_BF16, {});
  int checked = 0;
  for (int op = 0; op < 2; ++op) {
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    aclnnStatus s;
    aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream);
    if (op == 0) {
      aclIntArray* norm = aclCreateIntArray(ln.norm.data(), 1);
      aclBoolArray* m = aclCreateBoolArray(mask, 3);
      s = aclnnLayerNormBackwardGetWorkspaceSize(ln.dy->get(), ln.x->get(), norm, ln.mean->get(),
                                                 ln.rstd->get(), nullptr, nullptr, m, ln.gx->get(),
                                                 ln.gw->get(), ln.gb->get(), &ws, &ex);
      aclDestroyIntArray(norm);
      aclDestroyBoolArray(m);
      phase2 = aclnnLayerNormBackward;
    } else {
      s = aclnnConvTbcBackwardGetWorkspaceSize(conv.dy->get(), conv.x->get(), conv.w->get(),
                                               conv.bias->get(), conv.pad, 0, conv.gx->get(),
                                               conv.gw->get(), conv.gb->get(), &ws, &ex);
      phase2 = aclnnConvTbcBackward;
    }
    ASSERT_EQ(s, 0) << RecentError();
    if (ws == 0) {
      EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
      continue;  // nothing to undercut for this implementation
    }
    void* w = nullptr;
    ASSERT_EQ(aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(phase2(w, ws - 1, ex, stream_), 161002);
    EXPECT_NE(RecentError().find("workspaceSize must be at least"), std::string::npos);
    EXPECT_EQ(phase2(w, ws, ex, stream_), 161002);  // the executor is gone
    EXPECT_EQ(aclDestroyAclOpExecutor(ex), 161002);
    aclrtFree(w);
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

}  // namespace
}  // namespace openaclnn::test

// Bitwise determinism: thread counts 1, 2, 3 and every instruction-set target this CPU runs give
// the same output bytes; so do a contiguous and a strided layout of the same values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "ops/layer_norm_backward/lnb_test_util.h"

namespace openaclnn::lnb_test {
namespace {

struct Problem {
  std::vector<int64_t> shape;
  int norm_len;
  aclDataType in;
  aclDataType w;  // ACL_DT_UNDEFINED: no weight
  aclDataType dx;
  aclDataType param;
};

// Output values (as float bits, exactly as stored) of one run; with params_only, gradInput is not
// asked for.
std::vector<float> RunOnce(const Problem& p, Layout layout, bool params_only = false) {
  const int rank = static_cast<int>(p.shape.size());
  const int begin = rank - p.norm_len;
  int64_t m = 1;
  for (int i = 0; i < begin; ++i) m *= p.shape[i];
  const std::vector<int64_t> norm(p.shape.begin() + begin, p.shape.end());
  std::mt19937 rng(42);
  DeviceTensor dy(p.shape, p.in, RowLayout(layout, p.shape, begin));
  DeviceTensor x(p.shape, p.in, RowLayout(layout, p.shape, begin));
  DeviceTensor mean({m}, ACL_FLOAT);
  DeviceTensor rstd({m}, ACL_FLOAT);
  dy.FillUniform(&rng, -1.0f, 1.0f);
  x.FillUniform(&rng, -3.0f, 2.0f);
  mean.FillUniform(&rng, -0.6f, -0.4f);
  rstd.FillUniform(&rng, 0.6f, 0.7f);
  std::unique_ptr<DeviceTensor> w;
  if (p.w != ACL_DT_UNDEFINED) {
    w = std::make_unique<DeviceTensor>(norm, p.w);
    w->FillUniform(&rng, -1.0f, 1.0f);
  }
  DeviceTensor dx(p.shape, p.dx, RowLayout(layout, p.shape, begin));
  DeviceTensor gw(norm, p.param);
  DeviceTensor gb(norm, p.param);
  const bool mask[3] = {!params_only, true, true};
  EXPECT_EQ(
      RunLayerNormBackward(dy.get(), x.get(), norm, mean.get(), rstd.get(), w ? w->get() : nullptr,
                           nullptr, mask, params_only ? nullptr : dx.get(), gw.get(), gb.get()),
      ACLNN_SUCCESS);
  std::vector<float> out = params_only ? std::vector<float>() : dx.Values();
  for (float v : gw.Values()) out.push_back(v);
  for (float v : gb.Values()) out.push_back(v);
  return out;
}

bool BitwiseEqual(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Every problem has more than 2^17 elements, so that its row chunks go through the thread pool
// (fast.cpp runs smaller problems on one thread).
const Problem kProblems[] = {
    {{700, 1000}, 1, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT},
    {{1000, 4, 33}, 2, ACL_BF16, ACL_FLOAT, ACL_BF16, ACL_FLOAT},
    {{64, 5000}, 1, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16},
    {{5500, 24}, 1, ACL_FLOAT, ACL_DT_UNDEFINED, ACL_BF16, ACL_BF16},
    {{5, 70000}, 1, ACL_BF16, ACL_BF16, ACL_FLOAT, ACL_FLOAT16},
    // Rows shorter than a block: one, two, three and four vectors on AVX2 (ShortRows' kUsed).
    {{16500, 8}, 1, ACL_BF16, ACL_FLOAT, ACL_BF16, ACL_FLOAT},
    {{10200, 13}, 1, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT},
    {{6300, 21}, 1, ACL_BF16, ACL_BF16, ACL_FLOAT, ACL_BF16},
    {{4300, 31}, 1, ACL_FLOAT16, ACL_DT_UNDEFINED, ACL_FLOAT16, ACL_FLOAT},
    // Rows of one element: several chunks, the last one partial, and lanes left over.
    {{140003, 1}, 1, ACL_BF16, ACL_FLOAT, ACL_BF16, ACL_FLOAT},
    {{7, 19001, 1}, 1, ACL_FLOAT, ACL_DT_UNDEFINED, ACL_FLOAT, ACL_FLOAT},
};

TEST(LayerNormBackwardDeterminism, ThreadCountsAndIsas) {
  const std::vector<std::string> isas = cpu::AvailableIsas();
  ASSERT_FALSE(isas.empty());
  for (const Problem& p : kProblems) {
    cpu::SetNumThreads(1);
    ASSERT_TRUE(cpu::SetPlanningIsaCap(isas.front()));
    const std::vector<float> base = RunOnce(p, Layout::kContiguous);
    for (int threads : {2, 3}) {
      cpu::SetNumThreads(threads);
      EXPECT_TRUE(BitwiseEqual(base, RunOnce(p, Layout::kContiguous)))
          << threads << " threads, shape[0]=" << p.shape[0];
    }
    cpu::SetNumThreads(2);
    for (const std::string& isa : isas) {
      ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
      EXPECT_EQ(cpu::ActiveIsa(), isa);
      EXPECT_TRUE(BitwiseEqual(base, RunOnce(p, Layout::kContiguous)))
          << "isa " << isa << ", shape[0]=" << p.shape[0];
    }
    // The gathering path for strided rows computes the same bits as the contiguous path.
    EXPECT_TRUE(BitwiseEqual(base, RunOnce(p, Layout::kStrided))) << "strided layout";
    EXPECT_TRUE(BitwiseEqual(base, RunOnce(p, Layout::kPaddedRows))) << "padded rows";
    EXPECT_TRUE(BitwiseEqual(base, RunOnce(p, Layout::kTransposedLead))) << "transposed lead";
  }
  cpu::SetPlanningIsaCap("");
  cpu::SetNumThreads(0);
}

// 16-bit rows of up to 1024 columns keep pass 1's a and xhat for pass 2, except on the AVX-512
// target of CPUs with slow 64-byte stores (cpu::NarrowVectorStores), which recompute them: the
// same bits either way, on every target.
TEST(LayerNormBackwardDeterminism, KeptOrRecomputedRows) {
  const Problem problems[] = {
      {{300, 4, 33}, 2, ACL_BF16, ACL_FLOAT, ACL_BF16, ACL_FLOAT},
      {{257, 768}, 1, ACL_BF16, ACL_FLOAT, ACL_BF16, ACL_FLOAT},
      {{64, 1024}, 1, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16},
      {{100, 200}, 1, ACL_BF16, ACL_DT_UNDEFINED, ACL_FLOAT, ACL_FLOAT},
  };
  cpu::SetNumThreads(2);
  for (const std::string& isa : cpu::AvailableIsas()) {
    ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
    for (const Problem& p : problems) {
      cpu::SetNarrowVectorStoresForTest(0);
      const std::vector<float> kept = RunOnce(p, Layout::kContiguous);
      cpu::SetNarrowVectorStoresForTest(1);
      EXPECT_TRUE(BitwiseEqual(kept, RunOnce(p, Layout::kContiguous)))
          << "isa " << isa << ", shape[0]=" << p.shape[0];
    }
  }
  cpu::SetNarrowVectorStoresForTest(-1);
  cpu::SetPlanningIsaCap("");
  cpu::SetNumThreads(0);
}

// Prefetching the rows ahead into L2 (Zen 4's choice for FLOAT rows and 16-bit rows over 2 KiB)
// or into L1 runs its own instantiation of the row kernel on the AVX-512 target: both give the
// same bits, on every target, with all outputs and with the parameter gradients alone.
TEST(LayerNormBackwardDeterminism, RowsPrefetchedIntoL1OrL2) {
  const Problem problems[] = {
      {{300, 1024}, 1, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT},
      {{40, 4100}, 1, ACL_BF16, ACL_FLOAT, ACL_BF16, ACL_FLOAT},
      {{70, 3, 700}, 1, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT, ACL_FLOAT16},
      {{200, 6, 24}, 2, ACL_FLOAT, ACL_DT_UNDEFINED, ACL_FLOAT, ACL_FLOAT},
  };
  cpu::SetNumThreads(2);
  for (const std::string& isa : cpu::AvailableIsas()) {
    ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
    for (const Problem& p : problems) {
      for (bool params_only : {false, true}) {
        cpu::SetPrefetchRowsToL2ForTest(0);
        const std::vector<float> into_l1 = RunOnce(p, Layout::kContiguous, params_only);
        cpu::SetPrefetchRowsToL2ForTest(1);
        EXPECT_TRUE(BitwiseEqual(into_l1, RunOnce(p, Layout::kContiguous, params_only)))
            << "isa " << isa << ", shape[0]=" << p.shape[0] << ", params_only " << params_only;
      }
    }
  }
  cpu::SetPrefetchRowsToL2ForTest(-1);
  cpu::SetPlanningIsaCap("");
  cpu::SetNumThreads(0);
}

// gradInput in BFLOAT16 is the FLOAT gradInput rounded once (round to nearest even, NaN quieted)
// on every target, including the AVX512_BF16 conversion instructions, which flush denormal inputs
// and therefore must not be used for them: rows scaled from 2^100 (overflow to infinity) through
// the denormal range to 0, and rows holding an infinity or a NaN.
TEST(LayerNormBackwardDeterminism, Bf16GradInputAcrossTheFloatRange) {
  const int64_t m = 48, n = 100;  // three whole 32-element blocks and a partial one per row
  std::mt19937 rng(3);
  DeviceTensor dy({m, n}, ACL_BF16);
  DeviceTensor x({m, n}, ACL_BF16);
  DeviceTensor mean({m}, ACL_FLOAT);
  DeviceTensor rstd({m}, ACL_FLOAT);
  dy.FillUniform(&rng, -1.0f, 1.0f);
  x.FillUniform(&rng, -1.0f, 1.0f);
  for (int64_t r = 0; r < m; ++r) {
    mean.Set(r, 0.0f);
    rstd.Set(r, std::ldexp(1.0f, static_cast<int>(100 - 6 * r)));
  }
  dy.Set(5 * n + 40, std::numeric_limits<float>::infinity());
  dy.Set(7 * n + 3, std::numeric_limits<float>::quiet_NaN());
  const std::vector<int64_t> norm = {n};
  const bool mask[3] = {true, false, false};
  auto run = [&](aclDataType dx_type) {
    DeviceTensor dx({m, n}, dx_type);
    EXPECT_EQ(RunLayerNormBackward(dy.get(), x.get(), norm, mean.get(), rstd.get(), nullptr,
                                   nullptr, mask, dx.get(), nullptr, nullptr),
              ACLNN_SUCCESS);
    return dx.Values();
  };
  for (const std::string& isa : cpu::AvailableIsas()) {
    ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
    const std::vector<float> f32 = run(ACL_FLOAT);
    const std::vector<float> bf16 = run(ACL_BF16);
    ASSERT_EQ(f32.size(), bf16.size());
    int denormal = 0, special = 0;
    for (size_t i = 0; i < f32.size(); ++i) {
      const float expected = BFloat16ToFloat(FloatToBFloat16(f32[i]));
      uint32_t expected_bits = 0, actual_bits = 0;
      std::memcpy(&expected_bits, &expected, sizeof(float));
      std::memcpy(&actual_bits, &bf16[i], sizeof(float));
      ASSERT_EQ(expected_bits, actual_bits)
          << isa << ": element " << i << ", float " << f32[i] << ", bf16 " << bf16[i];
      denormal += std::fpclassify(f32[i]) == FP_SUBNORMAL;
      special += !std::isfinite(f32[i]);
    }
    // The data really reach the cases this test is about.
    EXPECT_GT(denormal, 50) << isa;
    EXPECT_GT(special, 50) << isa;
  }
  cpu::SetPlanningIsaCap("");
}

// Running the same executor many times (repeatable) gives the same bytes every time.
TEST(LayerNormBackwardDeterminism, RepeatableExecutor) {
  std::mt19937 rng(7);
  DeviceTensor dy({40, 300}, ACL_FLOAT);
  DeviceTensor x({40, 300}, ACL_FLOAT);
  DeviceTensor mean({40, 1}, ACL_FLOAT);
  DeviceTensor rstd({40, 1}, ACL_FLOAT);
  DeviceTensor dx({40, 300}, ACL_FLOAT);
  DeviceTensor gw({300}, ACL_FLOAT);
  for (DeviceTensor* t : {&dy, &x, &mean, &rstd}) t->FillUniform(&rng, 0.5f, 1.0f);
  const int64_t norm[1] = {300};
  const bool mask[3] = {true, true, false};
  aclIntArray* na = aclCreateIntArray(norm, 1);
  aclBoolArray* ma = aclCreateBoolArray(mask, 3);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(
      aclnnLayerNormBackwardGetWorkspaceSize(dy.get(), x.get(), na, mean.get(), rstd.get(), nullptr,
                                             nullptr, ma, dx.get(), gw.get(), nullptr, &ws, &ex),
      ACLNN_SUCCESS);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_SUCCESS);
  void* workspace = nullptr;
  if (ws > 0) aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST);
  std::vector<float> first;
  for (int run = 0; run < 3; ++run) {
    ASSERT_EQ(aclnnLayerNormBackward(workspace, ws, ex, TestStream()), ACLNN_SUCCESS);
    ASSERT_EQ(aclrtSynchronizeStream(TestStream()), ACL_SUCCESS);
    std::vector<float> out = dx.Values();
    for (float v : gw.Values()) out.push_back(v);
    if (run == 0) {
      first = out;
    } else {
      EXPECT_TRUE(BitwiseEqual(first, out)) << "run " << run;
    }
  }
  aclDestroyAclOpExecutor(ex);
  if (workspace != nullptr) aclrtFree(workspace);
  aclDestroyIntArray(na);
  aclDestroyBoolArray(ma);
}

// The caller's workspace may start at any address (a framework may hand out pieces of one block):
// every offset from an aclrtMalloc block runs, gives the bits of the aligned run, and writes
// nothing outside [workspace, workspace + workspaceSize). Before phase 2 aligned the workspace,
// offsets that were not a multiple of 32 crashed on AVX2 (aligned vector loads of the weight row).
TEST(LayerNormBackwardDeterminism, WorkspaceAtAnyAddress) {
  struct Case {
    int64_t m, n;
    aclDataType dtype;
  };
  for (const Case& c : {Case{2000, 8, ACL_BF16}, Case{300, 768, ACL_FLOAT},
                        Case{300, 768, ACL_BF16}, Case{40, 1000, ACL_FLOAT16}}) {
    SCOPED_TRACE(std::to_string(c.m) + " x " + std::to_string(c.n) + " " + DTypeName(c.dtype));
    std::mt19937 rng(11);
    DeviceTensor dy({c.m, c.n}, c.dtype);
    DeviceTensor x({c.m, c.n}, c.dtype);
    DeviceTensor mean({c.m, 1}, ACL_FLOAT);
    DeviceTensor rstd({c.m, 1}, ACL_FLOAT);
    DeviceTensor w({c.n}, ACL_FLOAT);
    DeviceTensor dx({c.m, c.n}, c.dtype);
    DeviceTensor gw({c.n}, ACL_FLOAT);
    DeviceTensor gb({c.n}, ACL_FLOAT);
    for (DeviceTensor* t : {&dy, &x, &mean, &w}) t->FillUniform(&rng, -1.0f, 1.0f);
    rstd.FillUniform(&rng, 0.5f, 2.0f);
    const int64_t norm[1] = {c.n};
    const bool mask[3] = {true, true, true};
    aclIntArray* na = aclCreateIntArray(norm, 1);
    aclBoolArray* ma = aclCreateBoolArray(mask, 3);
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    ASSERT_EQ(aclnnLayerNormBackwardGetWorkspaceSize(dy.get(), x.get(), na, mean.get(), rstd.get(),
                                                     w.get(), nullptr, ma, dx.get(), gw.get(),
                                                     gb.get(), &ws, &ex),
              ACLNN_SUCCESS);
    ASSERT_GT(ws, 0u);
    ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), ACLNN_SUCCESS);
    constexpr size_t kRoom = 64;
    const size_t block_bytes = static_cast<size_t>(ws) + 2 * kRoom;
    void* block = nullptr;
    ASSERT_EQ(aclrtMalloc(&block, block_bytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    const std::vector<unsigned char> canary(block_bytes, 0xA5);
    std::vector<float> aligned_run;
    for (const size_t offset : {size_t{0}, size_t{1}, size_t{4}, size_t{16}, size_t{36}, kRoom}) {
      SCOPED_TRACE("workspace offset " + std::to_string(offset));
      ASSERT_EQ(
          aclrtMemcpy(block, block_bytes, canary.data(), block_bytes, ACL_MEMCPY_HOST_TO_DEVICE),
          ACL_SUCCESS);
      void* workspace = static_cast<unsigned char*>(block) + offset;
      ASSERT_EQ(aclnnLayerNormBackward(workspace, ws, ex, TestStream()), ACLNN_SUCCESS);
      ASSERT_EQ(aclrtSynchronizeStream(TestStream()), ACL_SUCCESS);
      std::vector<float> out = dx.Values();
      for (float v : gw.Values()) out.push_back(v);
      for (float v : gb.Values()) out.push_back(v);
      if (offset == 0) {
        aligned_run = out;
      } else {
        EXPECT_TRUE(BitwiseEqual(aligned_run, out));
      }
      std::vector<unsigned char> after(block_bytes);
      ASSERT_EQ(
          aclrtMemcpy(after.data(), block_bytes, block, block_bytes, ACL_MEMCPY_DEVICE_TO_HOST),
          ACL_SUCCESS);
      for (size_t i = 0; i < block_bytes; ++i) {
        if (i >= offset && i < offset + ws) continue;
        ASSERT_EQ(after[i], 0xA5) << "byte " << i << " of the block, outside the workspace";
      }
    }
    aclDestroyAclOpExecutor(ex);
    aclrtFree(block);
    aclDestroyIntArray(na);
    aclDestroyBoolArray(ma);
  }
}

}  // namespace
}  // namespace openaclnn::lnb_test

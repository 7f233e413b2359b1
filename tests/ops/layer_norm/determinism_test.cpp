// Bitwise determinism of the LayerNorm forward: thread counts 1, 2, 3 and every instruction-set
// target this CPU runs give the same output bytes, and so does a strided layout of the same
// values.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "ops/layer_norm/ln_test_util.h"
#include "util/runtime_fixture.h"

namespace openaclnn::fwd_test {
namespace {

struct Problem {
  std::vector<int64_t> shape;
  aclDataType in;
  aclDataType param;
  aclDataType out;
  aclDataType stat;
};

std::vector<float> RunOnce(const Problem& p, const Layout& layout) {
  const int64_t m = p.shape[0];
  const std::vector<int64_t> norm(p.shape.begin() + 1, p.shape.end());
  std::mt19937 rng(7);
  DeviceTensor x(p.shape, p.in, layout);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> xv(static_cast<size_t>(x.numel()));
  for (float& v : xv) v = 3.0f + u(rng);
  x.Fill(xv);
  DeviceTensor w(norm, p.param);
  DeviceTensor b(norm, p.param);
  w.FillUniform(&rng, -1.0f, 1.0f);
  b.FillUniform(&rng, -1.0f, 1.0f);
  DeviceTensor out(p.shape, p.out, layout);
  DeviceTensor mean({m}, p.stat);
  DeviceTensor rstd({m}, p.stat);
  EXPECT_EQ(RunLayerNorm(Variant::kLayerNorm, x.get(), norm, w.get(), b.get(), 1e-5, out.get(),
                         mean.get(), rstd.get()),
            ACLNN_SUCCESS)
      << test::RecentError();
  std::vector<float> all = out.Values();
  for (float v : mean.Values()) all.push_back(v);
  for (float v : rstd.Values()) all.push_back(v);
  return all;
}

bool BitwiseEqual(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class LayerNormDeterminism : public test::RuntimeTest {
 protected:
  void TearDown() override {
    cpu::SetNumThreads(0);
    cpu::SetPlanningIsaCap("");
    test::RuntimeTest::TearDown();
  }
};

TEST_F(LayerNormDeterminism, ThreadCountsIsasAndLayouts) {
  const Problem problems[] = {
      {{700, 1000}, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT},
      {{300, 4, 33}, ACL_BF16, ACL_FLOAT, ACL_BF16, ACL_FLOAT},
      {{64, 5000}, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16},
      {{3000, 24}, ACL_FLOAT, ACL_FLOAT, ACL_BF16, ACL_BF16},
      {{5, 70000}, ACL_BF16, ACL_BF16, ACL_FLOAT, ACL_FLOAT},
  };
  const std::vector<std::string> isas = cpu::AvailableIsas();
  ASSERT_FALSE(isas.empty());
  for (const Problem& p : problems) {
    cpu::SetNumThreads(1);
    ASSERT_TRUE(cpu::SetPlanningIsaCap(isas.front()));
    const std::vector<float> expected = RunOnce(p, Contiguous());
    for (int threads : {2, 3}) {
      cpu::SetNumThreads(threads);
      EXPECT_TRUE(BitwiseEqual(RunOnce(p, Contiguous()), expected))
          << "threads " << threads << " shape[0] " << p.shape[0];
    }
    cpu::SetNumThreads(2);
    EXPECT_TRUE(BitwiseEqual(RunOnce(p, Strided()), expected)) << "strided layout";
    for (const std::string& isa : isas) {
      ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
      EXPECT_EQ(cpu::ActiveIsa(), isa);
      EXPECT_TRUE(BitwiseEqual(RunOnce(p, Contiguous()), expected)) << "isa " << isa;
    }
    cpu::SetPlanningIsaCap("");
  }
}

// Decision E3: every implMode, and every entry point, computes the same result.
TEST_F(LayerNormDeterminism, ImplModesAndVariantsGiveTheSameBits) {
  const std::vector<int64_t> shape = {37, 300};
  const std::vector<int64_t> norm = {300};
  std::mt19937 rng(3);
  DeviceTensor x(shape, ACL_FLOAT16);
  DeviceTensor w(norm, ACL_FLOAT16);
  DeviceTensor b(norm, ACL_FLOAT16);
  x.FillUniform(&rng, -2.0f, 2.0f);
  w.FillUniform(&rng, -1.0f, 1.0f);
  b.FillUniform(&rng, -1.0f, 1.0f);
  std::vector<float> expected;
  const std::pair<Variant, int> runs[] = {{Variant::kLayerNorm, 0},
                                          {Variant::kWithImplMode, 0},
                                          {Variant::kWithImplMode, 1},
                                          {Variant::kWithImplMode, 2},
                                          {Variant::kFast, 0}};
  for (const auto& [variant, mode] : runs) {
    DeviceTensor out(shape, ACL_FLOAT16);
    DeviceTensor mean({37, 1}, ACL_FLOAT);
    DeviceTensor rstd({37, 1}, ACL_FLOAT);
    ASSERT_EQ(RunLayerNorm(variant, x.get(), norm, w.get(), b.get(), 1e-5, out.get(), mean.get(),
                           rstd.get(), mode),
              ACLNN_SUCCESS)
        << test::RecentError();
    std::vector<float> all = out.Values();
    for (float v : mean.Values()) all.push_back(v);
    for (float v : rstd.Values()) all.push_back(v);
    if (expected.empty()) {
      expected = all;
    } else {
      EXPECT_TRUE(BitwiseEqual(all, expected)) << VariantName(variant) << " implMode " << mode;
    }
  }
}

}  // namespace
}  // namespace openaclnn::fwd_test

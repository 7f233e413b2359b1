// Bitwise determinism of aclnnConvTbc across thread counts 1, 2 and 3, and between a contiguous
// and a permuted layout of the same values.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "backend/cpu/thread_pool.h"
#include "ops/conv_tbc/ct_test_util.h"
#include "util/runtime_fixture.h"

namespace openaclnn::fwd_test {
namespace {

struct Problem {
  int64_t t_in, batch, c_in, c_out, taps, pad;
  aclDataType dtype;
  int cube;
};

std::vector<float> RunOnce(const Problem& p, const Layout& layout) {
  std::mt19937 rng(11);
  const int64_t t_out = p.t_in + 2 * p.pad + 1 - p.taps;
  DeviceTensor x({p.t_in, p.batch, p.c_in}, p.dtype, layout);
  DeviceTensor w({p.taps, p.c_in, p.c_out}, p.dtype);
  DeviceTensor b({p.c_out}, ACL_FLOAT);
  DeviceTensor y({t_out, p.batch, p.c_out}, p.dtype, layout);
  x.FillUniform(&rng, -1.0f, 1.0f);
  w.FillUniform(&rng, -1.0f, 1.0f);
  b.FillUniform(&rng, -1.0f, 1.0f);
  EXPECT_EQ(RunConvTbc(x.get(), w.get(), b.get(), p.pad, y.get(), static_cast<int8_t>(p.cube)),
            ACLNN_SUCCESS)
      << test::RecentError();
  return y.Values();
}

bool BitwiseEqual(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class ConvTbcDeterminism : public test::RuntimeTest {
 protected:
  void TearDown() override {
    cpu::SetNumThreads(0);
    test::RuntimeTest::TearDown();
  }
};

TEST_F(ConvTbcDeterminism, ThreadCountsAndLayouts) {
  const Problem problems[] = {
      {40, 16, 96, 640, 3, 1, ACL_FLOAT, 0},
      {33, 9, 70, 130, 4, 2, ACL_BF16, 0},
      {600, 2, 17, 9, 5, 4, ACL_FLOAT, 3},
      {20, 8, 64, 64, 3, 1, ACL_FLOAT16, 2},
  };
  for (const Problem& p : problems) {
    cpu::SetNumThreads(1);
    const std::vector<float> expected = RunOnce(p, Contiguous());
    for (int threads : {2, 3}) {
      cpu::SetNumThreads(threads);
      EXPECT_TRUE(BitwiseEqual(RunOnce(p, Contiguous()), expected))
          << "threads " << threads << " Cout " << p.c_out;
    }
    EXPECT_TRUE(BitwiseEqual(RunOnce(p, Permuted({1, 0, 2}, "BTC")), expected))
        << "permuted layout, Cout " << p.c_out;
  }
}

}  // namespace
}  // namespace openaclnn::fwd_test

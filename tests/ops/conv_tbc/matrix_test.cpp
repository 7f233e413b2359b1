// Every output element of aclnnConvTbc against a dense float64 golden under the mixed-tolerance
// rule, the golden fed the same emulation-rounded inputs: dtypes and bias dtypes x cubeMathType
// 0 to 4 x shapes (K = 1, K > T_in, pads, B = 1, odd channels, empty dimensions) x layouts, for
// the fast implementation and the reference. Bytes outside the output view stay untouched.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ops/conv_tbc/ct_test_util.h"
#include "util/precision.h"
#include "util/runtime_fixture.h"

namespace openaclnn::fwd_test {
namespace {

using test::CheckMixedTolerance;
using test::RecentError;

struct Shape {
  int64_t t_in, batch, c_in, c_out, taps, pad;
};

struct Case {
  Shape s;
  aclDataType dtype = ACL_FLOAT;
  aclDataType bias = ACL_FLOAT;
  int cube = 0;
  Layout x_layout, w_layout, y_layout;
};

std::string Describe(const Case& c) {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "T_in %lld B %lld Cin %lld Cout %lld K %lld pad %lld dtype %s bias %s cube %d "
                "layouts %s/%s/%s",
                static_cast<long long>(c.s.t_in), static_cast<long long>(c.s.batch),
                static_cast<long long>(c.s.c_in), static_cast<long long>(c.s.c_out),
                static_cast<long long>(c.s.taps), static_cast<long long>(c.s.pad),
                DTypeName(c.dtype), DTypeName(c.bias), c.cube, c.x_layout.name.c_str(),
                c.w_layout.name.c_str(), c.y_layout.name.c_str());
  return buf;
}

float Emulate(const Case& c, float v, bool is_bias) {
  if (c.cube == 2) return RoundThroughHalf(v);
  if (!is_bias && (c.cube == 1 || c.cube == 3) && c.dtype == ACL_FLOAT) return RoundToHf32(v);
  return v;
}

std::string RunCase(const Case& c, uint32_t seed) {
  const Shape& s = c.s;
  const int64_t t_out = s.t_in + 2 * s.pad + 1 - s.taps;
  std::mt19937 rng(seed);
  DeviceTensor x({s.t_in, s.batch, s.c_in}, c.dtype, c.x_layout);
  DeviceTensor w({s.taps, s.c_in, s.c_out}, c.dtype, c.w_layout);
  DeviceTensor b({s.c_out}, c.bias, Strided());
  DeviceTensor y({t_out, s.batch, s.c_out}, c.dtype, c.y_layout);
  std::vector<double> xv = x.FillUniform(&rng, -1.0f, 1.0f);
  std::vector<double> wv = w.FillUniform(&rng, -1.0f, 1.0f);
  std::vector<double> bv = b.FillUniform(&rng, -1.0f, 1.0f);
  for (double& v : xv) v = Emulate(c, static_cast<float>(v), false);
  for (double& v : wv) v = Emulate(c, static_cast<float>(v), false);
  for (double& v : bv) v = Emulate(c, static_cast<float>(v), true);
  const aclnnStatus st =
      RunConvTbc(x.get(), w.get(), b.get(), s.pad, y.get(), static_cast<int8_t>(c.cube));
  if (st != ACLNN_SUCCESS) return "status " + std::to_string(st) + ": " + RecentError();
  const std::vector<double> golden =
      GoldenConvTbc(s.t_in, s.batch, s.c_in, s.taps, s.c_out, s.pad, xv, wv, bv);
  // cubeMathType 2 rounds the result through FLOAT16: judge it by FLOAT16's tolerance at least.
  aclDataType tol = c.dtype;
  if (c.cube == 2 && c.dtype == ACL_FLOAT) tol = ACL_FLOAT16;
  const std::vector<float> got = y.Values();
  std::string failures = CheckMixedTolerance(tol, got.data(), golden.data(),
                                             static_cast<int64_t>(golden.size()), "out");
  if (y.DamagedCanaries() != 0) failures += "; out written outside its view";
  return failures;
}

class ConvTbcMatrix : public test::RuntimeTest, public ::testing::WithParamInterface<const char*> {
 protected:
  void SetUp() override {
    test::RuntimeTest::SetUp();
    if (GetParam()[0] != '\0') {
      setenv("OPENACLNN_FORCE_IMPL", GetParam(), 1);
    } else {
      unsetenv("OPENACLNN_FORCE_IMPL");
    }
  }
  void TearDown() override {
    unsetenv("OPENACLNN_FORCE_IMPL");
    test::RuntimeTest::TearDown();
  }
  void Expect(const Case& c, uint32_t seed = 3) { EXPECT_EQ(RunCase(c, seed), "") << Describe(c); }
};

TEST_P(ConvTbcMatrix, DtypesBiasDtypesAndCubeMathTypes) {
  const aclDataType all[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  for (aclDataType dtype : all) {
    for (aclDataType bias : all) {
      for (int cube = 0; cube <= 4; ++cube) {
        Case c;
        c.s = {9, 3, 13, 11, 3, 1};
        c.dtype = dtype;
        c.bias = bias;
        c.cube = cube;
        Expect(c);
      }
    }
  }
}

TEST_P(ConvTbcMatrix, Shapes) {
  std::vector<Shape> shapes;
  for (int64_t taps : {1, 2, 3, 5}) {
    for (int64_t pad : {int64_t{0}, (taps - 1) / 2, taps - 1, taps + 2}) {
      shapes.push_back({7, 2, 5, 3, taps, pad});
    }
  }
  shapes.push_back({2, 3, 4, 6, 5, 2});      // K > T_in
  shapes.push_back({1, 1, 3, 2, 3, 1});      // T_in = 1, pad 1, K = 3 (CANN rejects; E7)
  shapes.push_back({10, 1, 1, 1, 4, 0});     // B = 1, one channel
  shapes.push_back({6, 4, 17, 31, 3, 1});    // odd channel counts
  shapes.push_back({3, 2, 4, 5, 6, 1});      // T_out = 0
  shapes.push_back({4, 2, 0, 5, 3, 1});      // Cin = 0: the bias broadcast (E8)
  shapes.push_back({0, 2, 3, 5, 3, 2});      // T_in = 0 with 2 * pad >= K: the bias (E8)
  shapes.push_back({4, 2, 3, 5, 0, 0});      // K = 0: the bias (E8)
  shapes.push_back({5, 0, 3, 4, 3, 1});      // B = 0
  shapes.push_back({5, 2, 3, 0, 3, 1});      // Cout = 0
  shapes.push_back({40, 5, 70, 600, 3, 1});  // several output tiles
  shapes.push_back({300, 2, 20, 24, 4, 3});  // several row tiles, tile edges not aligned
  for (const Shape& s : shapes) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
      Case c;
      c.s = s;
      c.dtype = dtype;
      c.bias = ACL_FLOAT16;
      Expect(c);
    }
  }
}

TEST_P(ConvTbcMatrix, Layouts) {
  const std::vector<Layout> layouts = {
      Contiguous(), Permuted({1, 0, 2}, "BTC"), Permuted({2, 1, 0}, "CBT"), Padded(), Offset(),
      Strided()};
  for (size_t i = 0; i < layouts.size(); ++i) {
    for (size_t j = 0; j < layouts.size(); ++j) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16}) {
        Case c;
        c.s = {8, 3, 6, 7, 3, 2};
        c.dtype = dtype;
        c.x_layout = layouts[i];
        c.w_layout = layouts[j];
        c.y_layout = layouts[(i + j) % layouts.size()];
        Expect(c);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Implementations, ConvTbcMatrix,
                         ::testing::Values("", "conv_tbc=reference"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param[0] ? "Reference" : "Fast");
                         });

}  // namespace
}  // namespace openaclnn::fwd_test

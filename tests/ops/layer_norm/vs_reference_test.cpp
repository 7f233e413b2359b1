// Every output element of the LayerNorm forward (out, mean, rstd) against a dense float64 golden
// under the mixed-tolerance rule, over dtypes, mixed dtypes, shapes, layouts and strided outputs,
// for the fast implementation and the reference; bytes outside the output views stay untouched.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ops/layer_norm/ln_test_util.h"
#include "util/precision.h"
#include "util/runtime_fixture.h"

namespace openaclnn::fwd_test {
namespace {

using test::CheckMixedTolerance;
using test::RecentError;

constexpr aclDataType kNone = ACL_DT_UNDEFINED;

struct Case {
  std::vector<int64_t> shape;
  int norm_len = 1;
  aclDataType in = ACL_FLOAT;
  aclDataType w = ACL_FLOAT;  // kNone: no weight
  aclDataType b = ACL_FLOAT;  // kNone: no bias
  aclDataType out = ACL_FLOAT;
  aclDataType mean = ACL_FLOAT;  // kNone: no mean output
  aclDataType rstd = ACL_FLOAT;  // kNone: no rstd output
  Layout in_layout;
  Layout out_layout;
  bool flat_stats = false;  // mean/rstd shaped {M} rather than [A..., 1...]
  float center = 0.0f;      // inputs are center + U(-1, 1) * scale
  float scale = 1.0f;
  Variant variant = Variant::kLayerNorm;
  double eps = 1e-5;
};

std::string Describe(const Case& c) {
  std::string s = "shape [";
  for (size_t i = 0; i < c.shape.size(); ++i) s += (i ? "," : "") + std::to_string(c.shape[i]);
  s += "] norm_len " + std::to_string(c.norm_len) + " in " + DTypeName(c.in) + " w " +
       (c.w == kNone ? "none" : DTypeName(c.w)) + " b " + (c.b == kNone ? "none" : DTypeName(c.b)) +
       " out " + DTypeName(c.out) + " mean " + (c.mean == kNone ? "none" : DTypeName(c.mean)) +
       " rstd " + (c.rstd == kNone ? "none" : DTypeName(c.rstd)) + " layouts " + c.in_layout.name +
       "/" + c.out_layout.name + " center " + std::to_string(c.center) + " " +
       VariantName(c.variant);
  return s;
}

// Runs one case and returns "" or a description of every failure.
std::string RunCase(const Case& c, uint32_t seed) {
  const int rank = static_cast<int>(c.shape.size());
  const int begin = rank - c.norm_len;
  int64_t m = 1, n = 1;
  for (int i = 0; i < begin; ++i) m *= c.shape[i];
  for (int i = begin; i < rank; ++i) n *= c.shape[i];
  const std::vector<int64_t> norm(c.shape.begin() + begin, c.shape.end());
  std::vector<int64_t> stat_shape(c.shape.begin(), c.shape.begin() + begin);
  stat_shape.resize(rank, 1);
  if (c.flat_stats) stat_shape = {m};

  std::mt19937 rng(seed);
  DeviceTensor x(c.shape, c.in, c.in_layout);
  std::vector<double> xv;
  {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> drawn(static_cast<size_t>(x.numel()));
    for (float& v : drawn) v = c.center + c.scale * u(rng);
    x.Fill(drawn);
    xv = x.ValuesDouble();
  }
  std::unique_ptr<DeviceTensor> w, b, mean, rstd;
  std::vector<double> wv, bv;
  if (c.w != kNone) {
    w = std::make_unique<DeviceTensor>(norm, c.w, Strided());
    wv = w->FillUniform(&rng, -1.5f, 1.5f);
  }
  if (c.b != kNone) {
    b = std::make_unique<DeviceTensor>(norm, c.b);
    bv = b->FillUniform(&rng, -0.5f, 0.5f);
  }
  DeviceTensor out(c.shape, c.out, c.out_layout);
  if (c.mean != kNone) mean = std::make_unique<DeviceTensor>(stat_shape, c.mean, Offset());
  if (c.rstd != kNone) rstd = std::make_unique<DeviceTensor>(stat_shape, c.rstd, Strided());

  const aclnnStatus st =
      RunLayerNorm(c.variant, x.get(), norm, w ? w->get() : nullptr, b ? b->get() : nullptr, c.eps,
                   out.get(), mean ? mean->get() : nullptr, rstd ? rstd->get() : nullptr);
  if (st != ACLNN_SUCCESS) return "status " + std::to_string(st) + ": " + RecentError();

  std::vector<double> gy, gmean, grstd;
  GoldenLayerNorm(m, n, xv, wv, bv, c.eps, &gy, &gmean, &grstd);
  std::string failures;
  auto check = [&](const DeviceTensor& t, const std::vector<double>& golden, const char* what) {
    const std::vector<float> got = t.Values();
    const std::string f = CheckMixedTolerance(t.dtype(), got.data(), golden.data(),
                                              static_cast<int64_t>(golden.size()), what);
    if (!f.empty()) failures += f + "; ";
    if (t.DamagedCanaries() != 0) failures += std::string(what) + " wrote outside its view; ";
  };
  check(out, gy, "out");
  if (mean) check(*mean, gmean, "mean");
  if (rstd) check(*rstd, grstd, "rstd");
  if (x.DamagedCanaries() != 0) failures += "input storage changed; ";
  return failures;
}

class LayerNormVsReference : public test::RuntimeTest,
                             public ::testing::WithParamInterface<const char*> {
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
  bool reference() const { return GetParam()[0] != '\0'; }
  void Expect(const Case& c, uint32_t seed = 1) { EXPECT_EQ(RunCase(c, seed), "") << Describe(c); }
};

TEST_P(LayerNormVsReference, DtypesAndParameterDtypes) {
  const int64_t ns[] = {1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 127, 768, 1000};
  for (aclDataType in : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (int param = 0; param < 3; ++param) {
      const aclDataType pw = param == 0 ? kNone : param == 1 ? ACL_FLOAT : in;
      for (int64_t n : ns) {
        Case c;
        c.shape = {5, n};
        c.in = in;
        c.w = c.b = pw;
        c.out = in;
        c.mean = c.rstd = ACL_FLOAT;
        Expect(c, static_cast<uint32_t>(n));
      }
    }
  }
}

TEST_P(LayerNormVsReference, MixedOutputDtypes) {
  const aclDataType all[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  for (aclDataType in : all) {
    for (aclDataType out : all) {
      for (aclDataType stat : all) {
        Case c;
        c.shape = {9, 4, 37};
        c.norm_len = 2;
        c.in = in;
        c.w = ACL_FLOAT;
        c.b = ACL_FLOAT;
        c.out = out;
        c.mean = stat;
        c.rstd = stat == ACL_FLOAT ? ACL_BF16 : ACL_FLOAT;
        Expect(c);
      }
    }
  }
}

TEST_P(LayerNormVsReference, OptionalOutputsAndVariants) {
  for (Variant v : {Variant::kLayerNorm, Variant::kWithImplMode, Variant::kFast}) {
    for (int stats = 0; stats < 4; ++stats) {
      Case c;
      c.shape = {6, 65};
      c.variant = v;
      c.w = (stats & 1) ? ACL_FLOAT : kNone;
      c.b = (stats & 1) ? kNone : ACL_FLOAT;
      c.mean = (stats & 1) ? ACL_FLOAT : kNone;
      c.rstd = (stats & 2) ? ACL_FLOAT : kNone;
      c.flat_stats = stats == 3;
      Expect(c);
    }
  }
}

TEST_P(LayerNormVsReference, RanksAndNormalizedShapes) {
  const std::vector<std::vector<int64_t>> shapes = {{33},
                                                    {4, 5},
                                                    {2, 3, 5},
                                                    {3, 2, 2, 7},
                                                    {2, 1, 3, 1, 5},
                                                    {1, 2, 1, 2, 3, 4},
                                                    {2, 1, 2, 1, 2, 3, 2},
                                                    {1, 2, 1, 2, 1, 2, 3, 5}};
  for (const auto& shape : shapes) {
    const int rank = static_cast<int>(shape.size());
    for (int j = 1; j <= std::min(3, rank); ++j) {
      Case c;
      c.shape = shape;
      c.norm_len = j;
      c.in = ACL_BF16;
      c.out = ACL_FLOAT;
      c.w = c.b = ACL_BF16;
      c.flat_stats = (rank + j) % 2 == 0;
      Expect(c);
    }
  }
}

TEST_P(LayerNormVsReference, Layouts) {
  const std::vector<Layout> layouts = {Contiguous(), Permuted({1, 0, 2}, "transposed-lead"),
                                       Padded(),     Offset(),
                                       Strided(),    Permuted({0, 2, 1}, "transposed-rows")};
  for (const Layout& in_layout : layouts) {
    for (const Layout& out_layout : layouts) {
      for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16}) {
        Case c;
        c.shape = {7, 3, 45};
        c.norm_len = in_layout.name == "transposed-rows" ? 2 : 1;
        c.in = c.out = dtype;
        c.w = c.b = dtype;
        c.in_layout = in_layout;
        c.out_layout = out_layout;
        Expect(c);
      }
    }
  }
}

TEST_P(LayerNormVsReference, LargeMeanSmallSpreadAndScales) {
  // |mean| >> std: the statistics must not cancel.
  for (float center : {1000.0f, -300.0f, 1e5f}) {
    Case c;
    c.shape = {4, 4097};
    c.center = center;
    c.mean = ACL_FLOAT;
    Expect(c);
  }
  for (float scale : {1e-3f, 1e3f}) {
    Case c;
    c.shape = {3, 1000};
    c.scale = scale;
    c.eps = 1e-12;
    Expect(c);
  }
  Case constant;  // zero variance: rstd = 1 / sqrt(eps)
  constant.shape = {3, 50};
  constant.scale = 0.0f;
  constant.center = 2.5f;
  constant.eps = 1e-3;
  Expect(constant);
}

TEST_P(LayerNormVsReference, ManyRowsAndLongRows) {
  if (reference()) GTEST_SKIP() << "the reference is checked on the smaller cases";
  Case many;
  many.shape = {1000, 3, 24};
  many.norm_len = 1;
  Expect(many);
  Case bf;
  bf.shape = {16, 4097};
  bf.in = ACL_BF16;
  bf.out = ACL_BF16;
  bf.w = ACL_FLOAT;
  bf.b = ACL_FLOAT;
  Expect(bf);
  Case long_row;
  long_row.shape = {3, 65536};
  long_row.in = ACL_FLOAT16;
  long_row.out = ACL_FLOAT16;
  long_row.w = long_row.b = ACL_FLOAT16;
  long_row.center = 3.0f;
  Expect(long_row);
  Case strided_long;
  strided_long.shape = {2, 70000};
  strided_long.in_layout = Strided();
  strided_long.out_layout = Padded();
  Expect(strided_long);
}

INSTANTIATE_TEST_SUITE_P(Implementations, LayerNormVsReference,
                         ::testing::Values("", "layer_norm=reference"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param[0] ? "Reference" : "Fast");
                         });

}  // namespace
}  // namespace openaclnn::fwd_test

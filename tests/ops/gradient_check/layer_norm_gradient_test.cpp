// Forward/backward consistency of LayerNorm through the public API:
// - the gradients aclnnLayerNormBackward returns match central differences of aclnnLayerNorm's
//   output for the loss sum(gradOut * out), in float32 data and in float64-exact data (dyadic
//   values whose perturbations are exact in float32);
// - the mean and rstd that aclnnLayerNorm writes, fed to aclnnLayerNormBackward, give the
//   float64 reference's gradients within the mixed-tolerance rule.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "aclnnop/aclnn_layer_norm_backward.h"
#include "ops/layer_norm/ln_test_util.h"
#include "util/precision.h"
#include "util/runtime_fixture.h"

namespace openaclnn::fwd_test {
namespace {

using test::RecentError;

aclnnStatus RunBackward(const aclTensor* dy, const aclTensor* x, const std::vector<int64_t>& norm,
                        const aclTensor* mean, const aclTensor* rstd, const aclTensor* w,
                        aclTensor* dx, aclTensor* dw, aclTensor* db) {
  ScopedStream stream;
  aclIntArray* ns = aclCreateIntArray(norm.data(), norm.size());
  const bool mask[3] = {true, dw != nullptr, db != nullptr};
  aclBoolArray* m = aclCreateBoolArray(mask, 3);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  aclnnStatus st = aclnnLayerNormBackwardGetWorkspaceSize(dy, x, ns, mean, rstd, w, nullptr, m, dx,
                                                          dw, db, &ws, &ex);
  if (st == ACLNN_SUCCESS) st = RunPhase2AndSync(aclnnLayerNormBackward, ws, ex, stream.get());
  aclDestroyIntArray(ns);
  aclDestroyBoolArray(m);
  return st;
}

// Dense float64 LayerNorm backward from float64 statistics.
void GoldenBackward(int64_t m, int64_t n, const std::vector<double>& dy,
                    const std::vector<double>& x, const std::vector<double>& mean,
                    const std::vector<double>& rstd, const std::vector<double>& w,
                    std::vector<double>* dx, std::vector<double>* dw, std::vector<double>* db) {
  dx->assign(m * n, 0.0);
  dw->assign(n, 0.0);
  db->assign(n, 0.0);
  for (int64_t r = 0; r < m; ++r) {
    double c1 = 0, c2 = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double xh = (x[r * n + i] - mean[r]) * rstd[r];
      const double g = dy[r * n + i] * w[i];
      c1 += g;
      c2 += g * xh;
      (*dw)[i] += dy[r * n + i] * xh;
      (*db)[i] += dy[r * n + i];
    }
    c1 /= n;
    c2 /= n;
    for (int64_t i = 0; i < n; ++i) {
      const double xh = (x[r * n + i] - mean[r]) * rstd[r];
      (*dx)[r * n + i] = rstd[r] * (dy[r * n + i] * w[i] - c1 - xh * c2);
    }
  }
}

class LayerNormGradientCheck : public test::RuntimeTest {};

struct GradCase {
  std::vector<int64_t> shape;
  int norm_len;
  bool exact;  // float64-exact data: dyadic values, power-of-two steps
};

TEST_F(LayerNormGradientCheck, BackwardMatchesCentralDifferencesOfForward) {
  const GradCase cases[] = {{{3, 8}, 1, false},
                            {{2, 3, 4}, 2, false},
                            {{4, 5}, 1, true},
                            {{2, 2, 6}, 1, true},
                            {{1, 17}, 1, false}};
  for (const GradCase& gc : cases) {
    SCOPED_TRACE(std::string(gc.exact ? "exact" : "float32") + " N " +
                 std::to_string(gc.shape.back()));
    const int rank = static_cast<int>(gc.shape.size());
    const int begin = rank - gc.norm_len;
    const std::vector<int64_t> norm(gc.shape.begin() + begin, gc.shape.end());
    int64_t m = 1, n = 1;
    for (int i = 0; i < begin; ++i) m *= gc.shape[i];
    for (int i = begin; i < rank; ++i) n *= gc.shape[i];
    std::mt19937 rng(static_cast<uint32_t>(m * 31 + n));
    std::uniform_int_distribution<int> k(-64, 64);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    auto draw = [&](float scale, float center) {
      return gc.exact ? center + scale * static_cast<float>(k(rng)) / 64.0f
                      : center + scale * u(rng);
    };
    DeviceTensor x(gc.shape, ACL_FLOAT), out(gc.shape, ACL_FLOAT), dy(gc.shape, ACL_FLOAT);
    DeviceTensor w(norm, ACL_FLOAT), b(norm, ACL_FLOAT);
    DeviceTensor mean({m}, ACL_FLOAT), rstd({m}, ACL_FLOAT);
    DeviceTensor dx(gc.shape, ACL_FLOAT), dw(norm, ACL_FLOAT), db(norm, ACL_FLOAT);
    for (int64_t i = 0; i < x.numel(); ++i) x.Set(i, draw(1.0f, 0.25f));
    for (int64_t i = 0; i < n; ++i) {
      w.Set(i, draw(1.0f, 0.0f));
      b.Set(i, draw(0.5f, 0.0f));
    }
    std::vector<double> g(x.numel());
    for (int64_t i = 0; i < x.numel(); ++i) g[i] = dy.Set(i, draw(1.0f, 0.0f));

    auto loss = [&]() {
      EXPECT_EQ(RunLayerNorm(Variant::kLayerNorm, x.get(), norm, w.get(), b.get(), 1e-5, out.get(),
                             nullptr, nullptr),
                ACLNN_SUCCESS)
          << RecentError();
      const std::vector<float> y = out.Values();
      double l = 0;
      for (int64_t i = 0; i < out.numel(); ++i) l += g[i] * y[i];
      return l;
    };
    // Central differences with Richardson extrapolation: (4 D(h/2) - D(h)) / 3. The perturbed
    // values are read back, so the step is the one float32 actually stored.
    auto numeric = [&](DeviceTensor* t, int64_t i) {
      const float v = t->Get(i);
      auto diff = [&](float h) {
        const double up = t->Set(i, v + h);
        const double lp = loss();
        const double down = t->Set(i, v - h);
        const double lm = loss();
        t->Set(i, v);
        return (lp - lm) / (up - down);
      };
      const float h = gc.exact ? 1.0f / 32 : 1e-2f;
      return (4.0 * diff(h / 2) - diff(h)) / 3.0;
    };

    ASSERT_EQ(RunLayerNorm(Variant::kLayerNorm, x.get(), norm, w.get(), b.get(), 1e-5, out.get(),
                           mean.get(), rstd.get()),
              ACLNN_SUCCESS);
    ASSERT_EQ(RunBackward(dy.get(), x.get(), norm, mean.get(), rstd.get(), w.get(), dx.get(),
                          dw.get(), db.get()),
              ACLNN_SUCCESS)
        << RecentError();
    auto compare = [&](DeviceTensor* param, const DeviceTensor& grad, const char* what) {
      for (int64_t i = 0; i < param->numel(); ++i) {
        const double an = grad.Get(i);
        const double nu = numeric(param, i);
        EXPECT_NEAR(an, nu, 3e-3 + 1e-2 * std::fabs(nu)) << what << "[" << i << "]";
      }
    };
    compare(&x, dx, "gradInput");
    compare(&w, dw, "gradWeight");
    compare(&b, db, "gradBias");
  }
}

TEST_F(LayerNormGradientCheck, ForwardStatisticsFeedTheBackward) {
  struct Case {
    std::vector<int64_t> shape;
    aclDataType dtype;
    aclDataType stat;
    float center;
  };
  const Case cases[] = {{{64, 768}, ACL_FLOAT, ACL_FLOAT, 0.0f},
                        {{33, 4, 25}, ACL_FLOAT, ACL_FLOAT, 40.0f},
                        {{16, 1000}, ACL_BF16, ACL_FLOAT, 1.0f},
                        {{8, 4097}, ACL_FLOAT16, ACL_FLOAT, -2.0f}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(DTypeName(c.dtype)) + " N " + std::to_string(c.shape.back()));
    const std::vector<int64_t> norm = {c.shape.back()};
    const int64_t n = c.shape.back();
    int64_t m = 1;
    for (size_t i = 0; i + 1 < c.shape.size(); ++i) m *= c.shape[i];
    std::mt19937 rng(5);
    DeviceTensor x(c.shape, c.dtype), dy(c.shape, c.dtype), out(c.shape, c.dtype);
    DeviceTensor w(norm, ACL_FLOAT);
    DeviceTensor mean({m}, c.stat), rstd({m}, c.stat);
    DeviceTensor dx(c.shape, c.dtype), dw(norm, ACL_FLOAT), db(norm, ACL_FLOAT);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> x_drawn(static_cast<size_t>(x.numel())), dy_drawn(x_drawn.size());
    for (size_t i = 0; i < x_drawn.size(); ++i) {
      x_drawn[i] = c.center + u(rng);
      dy_drawn[i] = u(rng);
    }
    x.Fill(x_drawn);
    dy.Fill(dy_drawn);
    const std::vector<double> xv = x.ValuesDouble(), dyv = dy.ValuesDouble();
    const std::vector<double> wv = w.FillUniform(&rng, -1.0f, 1.0f);
    ASSERT_EQ(RunLayerNorm(Variant::kLayerNorm, x.get(), norm, w.get(), nullptr, 1e-5, out.get(),
                           mean.get(), rstd.get()),
              ACLNN_SUCCESS)
        << RecentError();
    ASSERT_EQ(RunBackward(dy.get(), x.get(), norm, mean.get(), rstd.get(), w.get(), dx.get(),
                          dw.get(), db.get()),
              ACLNN_SUCCESS)
        << RecentError();
    std::vector<double> gy, gmean, grstd, gdx, gdw, gdb;
    GoldenLayerNorm(m, n, xv, wv, {}, 1e-5, &gy, &gmean, &grstd);
    GoldenBackward(m, n, dyv, xv, gmean, grstd, wv, &gdx, &gdw, &gdb);
    const std::vector<float> adx = dx.Values(), adw = dw.Values(), adb = db.Values();
    EXPECT_EQ(test::CheckMixedTolerance(c.dtype, adx.data(), gdx.data(), m * n, "gradInput"), "");
    EXPECT_EQ(test::CheckMixedTolerance(ACL_FLOAT, adw.data(), gdw.data(), n, "gradWeight"), "");
    EXPECT_EQ(test::CheckMixedTolerance(ACL_FLOAT, adb.data(), gdb.data(), n, "gradBias"), "");
  }
}

}  // namespace
}  // namespace openaclnn::fwd_test

// Forward/backward consistency of ConvTbc through the public API: the gradients
// aclnnConvTbcBackward returns match central differences of aclnnConvTbc's output for the loss
// sum(gradOut * out). The loss is linear in each input, so with float64-exact data (multiples of
// 1/64, exact in every float32 product and sum) the differences are exact and the comparison is
// tight; with float32 data it is within float32 round-off.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "aclnnop/aclnn_convolution_backward.h"
#include "ops/conv_tbc/ct_test_util.h"
#include "util/runtime_fixture.h"

namespace openaclnn::fwd_test {
namespace {

using test::RecentError;

class ConvTbcGradientCheck : public test::RuntimeTest {};

struct GradCase {
  int64_t t_in, batch, c_in, c_out, taps, pad;
  bool exact;
};

TEST_F(ConvTbcGradientCheck, BackwardMatchesCentralDifferencesOfForward) {
  const GradCase cases[] = {{5, 2, 3, 4, 3, 1, true},  {4, 1, 2, 3, 2, 0, true},
                            {3, 2, 2, 2, 4, 2, true},  {6, 2, 3, 2, 3, 1, false},
                            {2, 3, 2, 3, 1, 0, false}, {4, 2, 3, 3, 2, 3, false}};
  for (const GradCase& gc : cases) {
    SCOPED_TRACE(std::string(gc.exact ? "exact" : "float32") + " K " + std::to_string(gc.taps) +
                 " pad " + std::to_string(gc.pad));
    const int64_t t_out = gc.t_in + 2 * gc.pad + 1 - gc.taps;
    std::mt19937 rng(static_cast<uint32_t>(gc.t_in * 7 + gc.taps));
    std::uniform_int_distribution<int> k(-64, 64);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    auto draw = [&]() { return gc.exact ? static_cast<float>(k(rng)) / 64.0f : u(rng); };
    DeviceTensor x({gc.t_in, gc.batch, gc.c_in}, ACL_FLOAT);
    DeviceTensor w({gc.taps, gc.c_in, gc.c_out}, ACL_FLOAT);
    DeviceTensor b({gc.c_out}, ACL_FLOAT);
    DeviceTensor y({t_out, gc.batch, gc.c_out}, ACL_FLOAT);
    DeviceTensor dy({t_out, gc.batch, gc.c_out}, ACL_FLOAT);
    DeviceTensor dx({gc.t_in, gc.batch, gc.c_in}, ACL_FLOAT);
    DeviceTensor dw({gc.taps, gc.c_in, gc.c_out}, ACL_FLOAT);
    DeviceTensor db({gc.c_out}, ACL_FLOAT);
    for (DeviceTensor* t : {&x, &w, &b}) {
      for (int64_t i = 0; i < t->numel(); ++i) t->Set(i, draw());
    }
    std::vector<double> g(dy.numel());
    for (int64_t i = 0; i < dy.numel(); ++i) g[i] = dy.Set(i, draw());

    auto loss = [&]() {
      EXPECT_EQ(RunConvTbc(x.get(), w.get(), b.get(), gc.pad, y.get(), 0), ACLNN_SUCCESS)
          << RecentError();
      const std::vector<float> y_now = y.Values();
      double l = 0;
      for (int64_t i = 0; i < y.numel(); ++i) l += g[i] * y_now[i];
      return l;
    };
    auto numeric = [&](DeviceTensor* t, int64_t i) {
      const float v = t->Get(i);
      const float h = gc.exact ? 0.25f : 1e-2f;
      const double up = t->Set(i, v + h);
      const double lp = loss();
      const double down = t->Set(i, v - h);
      const double lm = loss();
      t->Set(i, v);
      return (lp - lm) / (up - down);
    };

    ScopedStream stream;
    uint64_t ws = 0;
    aclOpExecutor* ex = nullptr;
    ASSERT_EQ(aclnnConvTbcBackwardGetWorkspaceSize(dy.get(), x.get(), w.get(), b.get(), gc.pad, 0,
                                                   dx.get(), dw.get(), db.get(), &ws, &ex),
              ACLNN_SUCCESS)
        << RecentError();
    ASSERT_EQ(RunPhase2AndSync(aclnnConvTbcBackward, ws, ex, stream.get()), ACLNN_SUCCESS)
        << RecentError();
    const double tol = gc.exact ? 1e-9 : 2e-3;
    auto compare = [&](DeviceTensor* param, const DeviceTensor& grad, const char* what) {
      for (int64_t i = 0; i < param->numel(); ++i) {
        const double nu = numeric(param, i);
        EXPECT_NEAR(grad.Get(i), nu, tol * (1.0 + std::fabs(nu))) << what << "[" << i << "]";
      }
    };
    compare(&x, dx, "gradInput");
    compare(&w, dw, "gradWeight");
    compare(&b, db, "gradBias");
  }
}

}  // namespace
}  // namespace openaclnn::fwd_test

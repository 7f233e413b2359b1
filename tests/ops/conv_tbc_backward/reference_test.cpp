// The float64 reference against central differences of a float64 forward conv_tbc: the formulas
// themselves are tested, not only their implementations.
#include "ops/conv_tbc_backward/reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace openaclnn::conv_tbc {
namespace {

// y[t,b,co] = bias[co] + sum_k sum_ci xpad[t+k, b, ci] * w[k, ci, co], xpad[t'] = x[t' - pad];
// the loss is sum(y * dy), so its gradients are the backward's outputs.
double ForwardLoss(const ConvShape& s, const std::vector<double>& x, const std::vector<double>& w,
                   const std::vector<double>& bias, const std::vector<double>& dy) {
  const int64_t t_out = s.t_out();
  double loss = 0;
  for (int64_t t = 0; t < t_out; ++t) {
    for (int64_t b = 0; b < s.batch; ++b) {
      for (int64_t co = 0; co < s.c_out; ++co) {
        double y = bias[co];
        for (int64_t k = 0; k < s.taps; ++k) {
          const int64_t ti = t + k - s.pad;
          if (ti < 0 || ti >= s.t_in) continue;
          for (int64_t ci = 0; ci < s.c_in; ++ci) {
            y += x[(ti * s.batch + b) * s.c_in + ci] * w[(k * s.c_in + ci) * s.c_out + co];
          }
        }
        loss += y * dy[(t * s.batch + b) * s.c_out + co];
      }
    }
  }
  return loss;
}

// Central difference of the loss along every element of `v`.
std::vector<double> NumericGradient(std::vector<double>* v, const std::function<double()>& loss) {
  std::vector<double> g(v->size());
  for (size_t i = 0; i < v->size(); ++i) {
    const double keep = (*v)[i];
    const double h = 1e-3;
    (*v)[i] = keep + h;
    const double up = loss();
    (*v)[i] = keep - h;
    const double down = loss();
    (*v)[i] = keep;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    // The loss is linear in each variable, so the difference quotient is exact up to rounding.
    EXPECT_NEAR(got[i], want[i], 1e-9 * (1 + std::fabs(want[i]))) << what << " element " << i;
  }
}

class ReferenceGradientTest : public ::testing::TestWithParam<ConvShape> {};

TEST_P(ReferenceGradientTest, MatchesCentralDifferences) {
  const ConvShape s = GetParam();
  ASSERT_GE(s.t_out(), 0);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-1, 1);
  auto random = [&](int64_t n) {
    std::vector<double> v(n);
    for (double& e : v) e = dist(rng);
    return v;
  };
  std::vector<double> x = random(s.t_in * s.batch * s.c_in);
  std::vector<double> w = random(s.taps * s.c_in * s.c_out);
  std::vector<double> bias = random(s.c_out);
  std::vector<double> dy = random(s.t_out() * s.batch * s.c_out);
  std::vector<double> gx(x.size()), gw(w.size()), gb(bias.size());
  ConvTbcBackwardF64(s, dy.data(), x.data(), w.data(), gx.data(), gw.data(), gb.data());
  auto loss = [&] { return ForwardLoss(s, x, w, bias, dy); };
  ExpectNear(gx, NumericGradient(&x, loss), "gradInput");
  ExpectNear(gw, NumericGradient(&w, loss), "gradWeight");
  ExpectNear(gb, NumericGradient(&bias, loss), "gradBias");
}

// (T_in, B, Cin, Cout, K, pad): pad 0, (K-1)/2, K-1 and K+2; K = 1; K > T_in; B = 1; Cin != Cout.
INSTANTIATE_TEST_SUITE_P(Shapes, ReferenceGradientTest,
                         ::testing::Values(ConvShape{6, 2, 3, 4, 3, 0}, ConvShape{6, 2, 3, 4, 3, 1},
                                           ConvShape{6, 2, 3, 4, 3, 2}, ConvShape{6, 2, 3, 4, 3, 5},
                                           ConvShape{5, 3, 2, 5, 1, 0}, ConvShape{3, 2, 2, 3, 5, 2},
                                           ConvShape{7, 1, 4, 2, 4, 1},
                                           ConvShape{2, 2, 3, 2, 5, 1}));

}  // namespace
}  // namespace openaclnn::conv_tbc

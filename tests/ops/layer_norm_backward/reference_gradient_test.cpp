// The float64 reference formulas against central differences of a float64 forward layer norm
// (two-pass mean and variance): loss = sum(dy * y), y = (x - mean(x)) * rstd(x) * w + b.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "ops/layer_norm_backward/lnb_test_util.h"

namespace openaclnn::lnb_test {
namespace {

constexpr double kEps = 1e-5;

struct Stats {
  std::vector<double> mean, rstd;
};

Stats RowStats(int64_t m, int64_t n, const std::vector<double>& x) {
  Stats s{std::vector<double>(m), std::vector<double>(m)};
  for (int64_t r = 0; r < m; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < n; ++c) sum += x[r * n + c];
    const double mu = sum / n;
    double sq = 0;
    for (int64_t c = 0; c < n; ++c) sq += (x[r * n + c] - mu) * (x[r * n + c] - mu);
    s.mean[r] = mu;
    s.rstd[r] = 1.0 / std::sqrt(sq / n + kEps);
  }
  return s;
}

double Loss(int64_t m, int64_t n, const std::vector<double>& dy, const std::vector<double>& x,
            const std::vector<double>& w, const std::vector<double>& b) {
  const Stats s = RowStats(m, n, x);
  double loss = 0;
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      const double y = (x[r * n + c] - s.mean[r]) * s.rstd[r] * w[c] + b[c];
      loss += dy[r * n + c] * y;
    }
  }
  return loss;
}

void CheckAgainstFiniteDifferences(int64_t m, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> dy(m * n), x(m * n), w(n), b(n);
  for (double& v : dy) v = dist(rng);
  for (double& v : x) v = 2.0 * dist(rng) + 0.5;
  for (double& v : w) v = 1.0 + 0.5 * dist(rng);
  for (double& v : b) v = dist(rng);
  const Stats s = RowStats(m, n, x);
  const bool mask[3] = {true, true, true};
  std::vector<double> dx, gw, gb;
  GoldenLayerNormBackward(m, n, mask, dy, x, s.mean, s.rstd, &w, &dx, &gw, &gb);

  auto central = [&](std::vector<double>* v, size_t i) {
    const double h = 1e-5 * std::max(1.0, std::fabs((*v)[i]));
    const double keep = (*v)[i];
    (*v)[i] = keep + h;
    const double up = Loss(m, n, dy, x, w, b);
    (*v)[i] = keep - h;
    const double down = Loss(m, n, dy, x, w, b);
    (*v)[i] = keep;
    return (up - down) / (2 * h);
  };
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(dx[i], central(&x, i), 1e-6 * std::max(1.0, std::fabs(dx[i])))
        << "dx " << i << " m=" << m << " n=" << n;
  }
  for (int64_t c = 0; c < n; ++c) {
    EXPECT_NEAR(gw[c], central(&w, c), 1e-6 * std::max(1.0, std::fabs(gw[c]))) << "gw " << c;
    EXPECT_NEAR(gb[c], central(&b, c), 1e-6 * std::max(1.0, std::fabs(gb[c]))) << "gb " << c;
  }
}

TEST(LayerNormBackwardReference, MatchesCentralDifferences) {
  CheckAgainstFiniteDifferences(1, 2, 1);
  CheckAgainstFiniteDifferences(3, 7, 2);
  CheckAgainstFiniteDifferences(4, 33, 3);
  CheckAgainstFiniteDifferences(2, 128, 4);
}

// N == 1: y = b whatever x is, so the true gradients of x and w are exactly 0.
TEST(LayerNormBackwardReference, SingleElementRowsHaveZeroGradients) {
  CheckAgainstFiniteDifferences(5, 1, 5);
}

// Scaling x by a power of two scales xhat by 1, so dx scales by 1/2^k exactly in float64.
TEST(LayerNormBackwardReference, ScaleInvariance) {
  const int64_t m = 2, n = 16;
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> dy(m * n), x(m * n), x4(m * n);
  for (double& v : dy) v = dist(rng);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = dist(rng);
    x4[i] = 4 * x[i];
  }
  const bool mask[3] = {true, true, true};
  Stats s = RowStats(m, n, x);
  std::vector<double> mean4(m), rstd4(m);
  for (int64_t r = 0; r < m; ++r) {
    mean4[r] = 4 * s.mean[r];
    rstd4[r] = s.rstd[r] / 4;
  }
  std::vector<double> dx, gw, gb, dx4, gw4, gb4;
  GoldenLayerNormBackward(m, n, mask, dy, x, s.mean, s.rstd, nullptr, &dx, &gw, &gb);
  GoldenLayerNormBackward(m, n, mask, dy, x4, mean4, rstd4, nullptr, &dx4, &gw4, &gb4);
  for (size_t i = 0; i < dx.size(); ++i) EXPECT_DOUBLE_EQ(dx4[i] * 4, dx[i]);
  for (int64_t c = 0; c < n; ++c) {
    EXPECT_DOUBLE_EQ(gw4[c], gw[c]);
    EXPECT_EQ(gb4[c], gb[c]);
  }
}

}  // namespace
}  // namespace openaclnn::lnb_test

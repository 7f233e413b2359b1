// aclnnNLLLoss and aclnnNLLLossBackward through the public API: random strided views of every
// dtype, reduction and ignoreIndex against a float64 golden computed here and against the
// library's float64 reference (forced through OPENACLNN_FORCE_IMPL), crafted exact values, 1-D
// self with a 0-d target, empty batches, out-of-range targets (failing at the stream's
// synchronisation as 507015 with the aclnn status 161002 in the message, nothing written), every
// documented phase-1 error with its message, bitwise identical results for 1 and 3 threads, and no
// byte written outside an output view.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss_backward.h"
#include "api/dtype.h"
#include "backend/cpu/thread_pool.h"
#include "util/device_tensor.h"
#include "util/runtime_fixture.h"

namespace openaclnn {
namespace {

using test::DeviceTensor;
using test::RecentError;
using test::TensorLayout;

// An operator failing on its stream: aclrtSynchronizeStream answers what a device answers for a
// failed kernel, with the operator's name, message and aclnn status in the recent message.
constexpr aclError kTaskFailed = ACL_ERROR_RT_AICORE_EXCEPTION;

aclnnStatus Finish(aclnnStatus st, uint64_t ws, aclOpExecutor* ex,
                   aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, aclrtStream)) {
  if (st != ACLNN_SUCCESS) return st;
  void* workspace = nullptr;
  if (ws > 0 && aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return -1;
  st = phase2(workspace, ws, ex, nullptr);
  if (st == ACLNN_SUCCESS) st = aclrtSynchronizeStream(nullptr);
  if (workspace != nullptr) aclrtFree(workspace);
  return st;
}

aclnnStatus RunForward(const DeviceTensor& self, const DeviceTensor& target,
                       const DeviceTensor& weight, int64_t reduction, int64_t ignore,
                       const DeviceTensor& out, const DeviceTensor& total) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  const aclnnStatus st = aclnnNLLLossGetWorkspaceSize(
      self.get(), target.get(), weight.get(), reduction, ignore, out.get(), total.get(), &ws, &ex);
  return Finish(st, ws, ex, aclnnNLLLoss);
}

aclnnStatus RunBackward(const DeviceTensor& grad, const DeviceTensor& self,
                        const DeviceTensor& target, const DeviceTensor& weight, int64_t reduction,
                        int64_t ignore, const DeviceTensor& total, const DeviceTensor& out) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  const aclnnStatus st =
      aclnnNLLLossBackwardGetWorkspaceSize(grad.get(), self.get(), target.get(), weight.get(),
                                           reduction, ignore, total.get(), out.get(), &ws, &ex);
  return Finish(st, ws, ex, aclnnNLLLossBackward);
}

template <class Fn>
aclnnStatus WithReference(const char* key, Fn run) {
  setenv("OPENACLNN_FORCE_IMPL", (std::string(key) + "=reference").c_str(), 1);
  const aclnnStatus st = run();
  unsetenv("OPENACLNN_FORCE_IMPL");
  return st;
}

double Tolerance(aclDataType t) {
  switch (t) {
    case ACL_FLOAT16:
      return 2e-3;
    case ACL_BF16:
      return 1.6e-2;
    default:
      return 2e-5;
  }
}

// Compares every element; NaN must match NaN.
void ExpectClose(const std::vector<double>& got, const std::vector<double>& want, aclDataType t,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i) {
    if (std::isnan(want[i]) && std::isnan(got[i])) continue;
    if (!(std::fabs(got[i] - want[i]) <= Tolerance(t) * (1.0 + std::fabs(want[i])))) {
      ADD_FAILURE() << what << " element " << i << " got " << got[i] << " want " << want[i];
      ++bad;
    }
  }
}

TensorLayout PickLayout(std::mt19937* rng, int rank) {
  std::vector<int> reversed(rank);
  for (int d = 0; d < rank; ++d) reversed[d] = rank - 1 - d;
  switch ((*rng)() % 5) {
    case 0:
      return TensorLayout::Contiguous();
    case 1:
      return TensorLayout::Padded(3);
    case 2:
      return TensorLayout::Strided(2, 5);
    case 3:
      return TensorLayout::Permuted(reversed).Named("reversed");
    default:
      return TensorLayout::Scrambled(rank);
  }
}

std::vector<int64_t> SelfShape(int64_t n, int64_t c, bool batched) {
  return batched ? std::vector<int64_t>{n, c} : std::vector<int64_t>{c};
}
std::vector<int64_t> TargetShape(int64_t n, bool batched) {
  return batched ? std::vector<int64_t>{n} : std::vector<int64_t>{};
}

struct Case {
  int64_t n, c;
  bool batched;
  aclDataType dtype, target_type, out_type, total_type;
  int64_t reduction;
  bool ignore_a_class;  // ignoreIndex a class some targets hold, else -100
};

// Random data for `c`: self in [-5, 0], weights in [0.1, 2], targets in [0, C).
struct Data {
  Data(const Case& c, std::mt19937* rng)
      : n(c.batched ? c.n : 1),
        self(SelfShape(c.n, c.c, c.batched), c.dtype, PickLayout(rng, c.batched ? 2 : 1)),
        target(TargetShape(c.n, c.batched), c.target_type, PickLayout(rng, c.batched ? 1 : 0)),
        weight({c.c}, c.dtype, PickLayout(rng, 1)) {
    x = self.FillUniform(rng, -5.0f, 0.0f);
    w = weight.FillUniform(rng, 0.1f, 2.0f);
    t.resize(static_cast<size_t>(n));
    std::vector<double> stored(t.size());
    for (int64_t r = 0; r < n; ++r) stored[r] = static_cast<double>(t[r] = (*rng)() % c.c);
    target.FillDouble(stored);
    ignore = c.ignore_a_class ? t[0] : -100;
  }
  int64_t n;
  DeviceTensor self, target, weight;
  std::vector<double> x, w;
  std::vector<int64_t> t;
  int64_t ignore;
};

// Golden forward: per-row losses, their reduction and the total weight.
void ForwardGolden(const Data& d, int64_t c, std::vector<double>* loss, double* sum,
                   double* total) {
  loss->assign(static_cast<size_t>(d.n), 0.0);
  *sum = *total = 0.0;
  for (int64_t r = 0; r < d.n; ++r) {
    if (d.t[r] == d.ignore) continue;
    (*loss)[r] = -d.w[d.t[r]] * d.x[r * c + d.t[r]];
    *sum += (*loss)[r];
    *total += d.w[d.t[r]];
  }
}

// Runs the forward (fast, then the reference) and checks out and totalWeightOut; returns the fast
// path's out and totalWeightOut bytes.
std::vector<uint8_t> CheckForward(const Case& c, uint32_t seed, bool check_reference) {
  std::mt19937 rng(seed);
  Data d(c, &rng);
  const bool per_row = c.reduction == 0 && c.batched;
  const TensorLayout out_layout = per_row ? PickLayout(&rng, 1) : TensorLayout::Contiguous();
  DeviceTensor out(per_row ? std::vector<int64_t>{c.n} : std::vector<int64_t>{1}, c.out_type,
                   out_layout);
  DeviceTensor total({}, c.total_type, TensorLayout::Offset(3));
  std::vector<double> loss;
  double sum = 0, total_weight = 0;
  ForwardGolden(d, c.c, &loss, &sum, &total_weight);
  std::vector<double> want_out =
      per_row ? loss : std::vector<double>{c.reduction == 1 ? sum / total_weight : sum};
  const double want_total = per_row ? 0.0 : total_weight;
  const std::string what =
      "N " + std::to_string(c.n) + " C " + std::to_string(c.c) + (c.batched ? " 2-D" : " 1-D") +
      " dtype " + std::to_string(c.dtype) + " target " + std::to_string(c.target_type) + " out " +
      std::to_string(c.out_type) + " reduction " + std::to_string(c.reduction) + " ignore " +
      std::to_string(d.ignore) + " out " + out_layout.name;
  std::vector<uint8_t> bytes;
  for (bool reference : {false, true}) {
    if (reference && !check_reference) break;
    out.Reset();
    total.Reset();
    auto run = [&] {
      return RunForward(d.self, d.target, d.weight, c.reduction, d.ignore, out, total);
    };
    const aclnnStatus st = reference ? WithReference("nll_loss", run) : run();
    EXPECT_EQ(st, ACLNN_SUCCESS) << what << " " << RecentError();
    const std::string label = what + (reference ? " reference" : "");
    ExpectClose(out.ValuesDouble(), want_out, c.out_type, label + " out");
    ExpectClose(total.ValuesDouble(), {want_total}, c.total_type, label + " totalWeightOut");
    EXPECT_EQ(out.DamagedCanaries(), 0) << label;
    EXPECT_EQ(total.DamagedCanaries(), 0) << label;
    if (!reference) {
      bytes = out.Bytes();
      const std::vector<uint8_t> t = total.Bytes();
      bytes.insert(bytes.end(), t.begin(), t.end());
    }
  }
  return bytes;
}

// Runs the backward and checks out; returns the fast path's out bytes.
std::vector<uint8_t> CheckBackward(const Case& c, uint32_t seed, bool check_reference) {
  std::mt19937 rng(seed);
  Data d(c, &rng);
  const bool per_row = c.reduction == 0 && c.batched;
  DeviceTensor grad(per_row ? std::vector<int64_t>{c.n} : std::vector<int64_t>{}, c.dtype,
                    PickLayout(&rng, per_row ? 1 : 0));
  const std::vector<double> g = grad.FillUniform(&rng, -2.0f, 2.0f);
  std::vector<double> loss;
  double sum = 0, total_weight = 0;
  ForwardGolden(d, c.c, &loss, &sum, &total_weight);
  DeviceTensor total({1}, c.dtype);
  const double stored_total = total.Set(0, static_cast<float>(total_weight));
  const TensorLayout out_layout = PickLayout(&rng, c.batched ? 2 : 1);
  DeviceTensor out(SelfShape(c.n, c.c, c.batched), c.dtype, out_layout);
  std::vector<double> want(static_cast<size_t>(d.n * c.c), 0.0);
  for (int64_t r = 0; r < d.n; ++r) {
    if (d.t[r] == d.ignore) continue;
    double gr = g[per_row ? r : 0];
    if (c.reduction == 1) gr /= stored_total;
    want[r * c.c + d.t[r]] = -d.w[d.t[r]] * gr;
  }
  const std::string what = "backward N " + std::to_string(c.n) + " C " + std::to_string(c.c) +
                           (c.batched ? " 2-D" : " 1-D") + " dtype " + std::to_string(c.dtype) +
                           " target " + std::to_string(c.target_type) + " reduction " +
                           std::to_string(c.reduction) + " ignore " + std::to_string(d.ignore) +
                           " out " + out_layout.name;
  std::vector<uint8_t> bytes;
  for (bool reference : {false, true}) {
    if (reference && !check_reference) break;
    out.Reset();
    auto run = [&] {
      return RunBackward(grad, d.self, d.target, d.weight, c.reduction, d.ignore, total, out);
    };
    const aclnnStatus st = reference ? WithReference("nll_loss_backward", run) : run();
    EXPECT_EQ(st, ACLNN_SUCCESS) << what << " " << RecentError();
    const std::string label = what + (reference ? " reference" : "");
    ExpectClose(out.ValuesDouble(), want, c.dtype, label);
    EXPECT_EQ(out.DamagedCanaries(), 0) << label;
    if (!reference) bytes = out.Bytes();
  }
  return bytes;
}

class NllLossTest : public test::RuntimeTest {};

TEST_F(NllLossTest, RandomStridedViewsMatchGolden) {
  const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const aclDataType target_types[] = {ACL_INT64, ACL_INT32, ACL_UINT8};
  const int64_t shapes[][2] = {{1, 1}, {5, 4}, {37, 33}, {1, 7}, {200, 3}};
  std::mt19937 pick(5);
  uint32_t seed = 0;
  for (const auto& shape : shapes) {
    for (bool batched : {true, false}) {
      for (int64_t reduction : {0, 1, 2}) {
        for (bool ignore : {false, true}) {
          const Case c{shape[0],
                       shape[1],
                       batched,
                       types[pick() % 3],
                       target_types[pick() % 3],
                       types[pick() % 3],
                       types[pick() % 3],
                       reduction,
                       ignore};
          CheckForward(c, seed, true);
          CheckBackward(c, seed, true);
          ++seed;
        }
      }
    }
  }
  EXPECT_EQ(seed, 60u);
}

TEST_F(NllLossTest, CraftedExactValues) {
  DeviceTensor self({2, 3}, ACL_FLOAT), target({2}, ACL_INT64), weight({3}, ACL_FLOAT);
  self.Fill({-1, -2, -3, -4, -5, -6});
  target.FillDouble({2, 0});
  weight.Fill({1, 2, 3});
  DeviceTensor rows({2}, ACL_FLOAT), one({1}, ACL_FLOAT), total({1}, ACL_FLOAT);
  // Losses 3 * 3 = 9 and 1 * 4 = 4; total weight 4.
  ASSERT_EQ(RunForward(self, target, weight, 0, -100, rows, total), ACLNN_SUCCESS) << RecentError();
  EXPECT_EQ(rows.Values(), (std::vector<float>{9, 4}));
  EXPECT_EQ(total.Get(0), 0.0f);  // reduction none with (N, C): totalWeightOut is 0
  ASSERT_EQ(RunForward(self, target, weight, 2, -100, one, total), ACLNN_SUCCESS);
  EXPECT_EQ(one.Get(0), 13.0f);
  EXPECT_EQ(total.Get(0), 4.0f);
  ASSERT_EQ(RunForward(self, target, weight, 1, -100, one, total), ACLNN_SUCCESS);
  EXPECT_EQ(one.Get(0), 3.25f);
  // ignoreIndex 0: row 1 counts for nothing.
  ASSERT_EQ(RunForward(self, target, weight, 0, 0, rows, total), ACLNN_SUCCESS);
  EXPECT_EQ(rows.Values(), (std::vector<float>{9, 0}));
  ASSERT_EQ(RunForward(self, target, weight, 1, 0, one, total), ACLNN_SUCCESS);
  EXPECT_EQ(one.Get(0), 3.0f);
  EXPECT_EQ(total.Get(0), 3.0f);
  // Every target ignored: mean is 0 / 0 = NaN, sum 0, total 0.
  ASSERT_EQ(RunForward(self, target, weight, 1, 2, one, total), ACLNN_SUCCESS);
  ASSERT_EQ(RunForward(self, target, weight, 1, 0, one, total), ACLNN_SUCCESS);
  DeviceTensor same({2}, ACL_INT32);
  same.FillDouble({1, 1});
  ASSERT_EQ(RunForward(self, same, weight, 1, 1, one, total), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(one.Get(0)));
  EXPECT_EQ(total.Get(0), 0.0f);
  ASSERT_EQ(RunForward(self, same, weight, 2, 1, one, total), ACLNN_SUCCESS);
  EXPECT_EQ(one.Get(0), 0.0f);

  // Backward: gradOutput 2 with sum; row 0 gets -3 * 2 at class 2, row 1 -1 * 2 at class 0.
  DeviceTensor g({}, ACL_FLOAT), gin({2, 3}, ACL_FLOAT), grows({2}, ACL_FLOAT);
  g.Fill({2});
  total.Fill({4});
  ASSERT_EQ(RunBackward(g, self, target, weight, 2, -100, total, gin), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_EQ(gin.Values(), (std::vector<float>{0, 0, -6, -2, 0, 0}));
  // Mean divides by totalWeight (4).
  ASSERT_EQ(RunBackward(g, self, target, weight, 1, -100, total, gin), ACLNN_SUCCESS);
  EXPECT_EQ(gin.Values(), (std::vector<float>{0, 0, -1.5f, -0.5f, 0, 0}));
  // None: one gradOutput per row; ignoreIndex 2 zeroes row 0.
  grows.Fill({10, 100});
  ASSERT_EQ(RunBackward(grows, self, target, weight, 0, 2, total, gin), ACLNN_SUCCESS);
  EXPECT_EQ(gin.Values(), (std::vector<float>{0, 0, 0, -100, 0, 0}));
}

TEST_F(NllLossTest, ManyRowsOneGradOutputExactValues) {
  // More rows than classes with one gradOutput (mean, sum): each class's value is stored once
  // and copied into its rows (2- and 4-byte outputs); contiguous INT64 targets read in place with
  // ignoreIndex a class of its own, and INT32 targets through the workspace copy.
  const std::vector<double> targets = {0, 2, 3, 2, 1, 2, 3, 0, 2};
  std::mt19937 rng(31);
  for (aclDataType dt : {ACL_FLOAT, ACL_BF16, ACL_FLOAT16}) {
    for (aclDataType tt : {ACL_INT64, ACL_INT32}) {
      DeviceTensor self({9, 4}, dt), weight({4}, dt), total({1}, dt), g({}, dt);
      DeviceTensor target({9}, tt);
      self.FillUniform(&rng, -2.0f, 0.0f);
      weight.Fill({1, 2, 3, 4});
      target.FillDouble(targets);
      g.Fill({2});
      total.Fill({8});
      DeviceTensor gin({9, 4}, dt);
      for (int64_t reduction : {1, 2}) {
        ASSERT_EQ(RunBackward(g, self, target, weight, reduction, 2, total, gin), ACLNN_SUCCESS)
            << RecentError();
        std::vector<float> expected(36, 0.0f);
        for (int r = 0; r < 9; ++r) {
          const int t = static_cast<int>(targets[r]);
          if (t == 2) continue;  // ignoreIndex
          expected[r * 4 + t] = -(t + 1.0f) * 2.0f / (reduction == 1 ? 8.0f : 1.0f);
        }
        EXPECT_EQ(gin.Values(), expected)
            << DTypeName(dt) << " targets " << DTypeName(tt) << " reduction " << reduction;
      }
    }
  }
}

TEST_F(NllLossTest, DenseRowsAcrossPiecesExactValues) {
  // Dense rows with one gradOutput are written as one run of n * c elements in 4 KiB pieces:
  // rows straddling a piece, rows longer than a piece (2100 classes), targets in a row's first and
  // last element, ignored rows, several pool chunks, a view that starts off a line and canaries
  // around it.
  std::mt19937 rng(47);
  struct Case {
    int64_t n, c;
  };
  for (const Case cs :
       {Case{5000, 10}, Case{3000, 3}, Case{2101, 2100}, Case{40000, 1}, Case{700, 97}}) {
    for (aclDataType dt : {ACL_FLOAT, ACL_BF16}) {
      DeviceTensor self({cs.n, cs.c}, dt), weight({cs.c}, dt), total({1}, dt), g({}, dt);
      DeviceTensor target({cs.n}, ACL_INT64);
      std::vector<double> targets(static_cast<size_t>(cs.n));
      for (int64_t r = 0; r < cs.n; ++r) {
        const int64_t pick = static_cast<int64_t>(rng() % 4);
        const int64_t t = pick == 0   ? 0
                          : pick == 1 ? cs.c - 1
                                      : static_cast<int64_t>(rng() % static_cast<uint32_t>(cs.c));
        targets[r] = r % 7 == 3 ? -100.0 : static_cast<double>(t);
      }
      std::vector<float> weights(static_cast<size_t>(cs.c));
      for (int64_t k = 0; k < cs.c; ++k) weights[k] = static_cast<float>(k % 5 + 1);
      self.FillUniform(&rng, -2.0f, 0.0f);
      weight.Fill(weights);
      target.FillDouble(targets);
      g.Fill({0.5f});
      total.Fill({1});
      DeviceTensor gin({cs.n, cs.c}, dt, 0, /*offset=*/3, /*tail=*/5);
      ASSERT_EQ(RunBackward(g, self, target, weight, 2, -100, total, gin), ACLNN_SUCCESS)
          << RecentError();
      const std::vector<float> got = gin.Values();
      int64_t wrong = 0;
      for (int64_t r = 0; r < cs.n; ++r) {
        for (int64_t k = 0; k < cs.c; ++k) {
          const float want = targets[r] == static_cast<double>(k) ? -0.5f * weights[k] : 0.0f;
          wrong +=
              got[r * cs.c + k] != want || std::signbit(got[r * cs.c + k]) != std::signbit(want);
        }
      }
      EXPECT_EQ(wrong, 0) << DTypeName(dt) << " n " << cs.n << " c " << cs.c;
      EXPECT_EQ(gin.DamagedCanaries(), 0) << DTypeName(dt) << " n " << cs.n << " c " << cs.c;
    }
  }
}

TEST_F(NllLossTest, OneDimSelfWithZeroDimTarget) {
  DeviceTensor self({4}, ACL_BF16), target({}, ACL_UINT8), weight({4}, ACL_BF16);
  self.Fill({-1, -2, -0.5f, -8});
  target.FillDouble({2});
  weight.Fill({1, 1, 4, 1});
  DeviceTensor out({}, ACL_FLOAT), total({1}, ACL_BF16);
  for (int64_t reduction : {0, 1, 2}) {
    ASSERT_EQ(RunForward(self, target, weight, reduction, -100, out, total), ACLNN_SUCCESS)
        << RecentError();
    EXPECT_EQ(out.Get(0), reduction == 1 ? 0.5f : 2.0f) << reduction;
    EXPECT_EQ(total.Get(0), 4.0f) << reduction;
  }
  DeviceTensor g({1}, ACL_BF16), gin({4}, ACL_BF16), tw({}, ACL_BF16);
  g.Fill({1});
  tw.Fill({4});
  ASSERT_EQ(RunBackward(g, self, target, weight, 0, -100, tw, gin), ACLNN_SUCCESS) << RecentError();
  EXPECT_EQ(gin.Values(), (std::vector<float>{0, 0, -4, 0}));
  ASSERT_EQ(RunBackward(g, self, target, weight, 1, -100, tw, gin), ACLNN_SUCCESS);
  EXPECT_EQ(gin.Values(), (std::vector<float>{0, 0, -1, 0}));
  ASSERT_EQ(RunBackward(g, self, target, weight, 1, 2, tw, gin), ACLNN_SUCCESS);
  EXPECT_EQ(gin.Values(), (std::vector<float>{0, 0, 0, 0}));
}

TEST_F(NllLossTest, EmptyBatch) {
  DeviceTensor self({0, 3}, ACL_FLOAT), target({0}, ACL_INT64), weight({3}, ACL_FLOAT);
  weight.Fill({1, 2, 3});
  DeviceTensor rows({0}, ACL_FLOAT), one({1}, ACL_FLOAT16), total({1}, ACL_FLOAT);
  ASSERT_EQ(RunForward(self, target, weight, 0, -100, rows, total), ACLNN_SUCCESS) << RecentError();
  EXPECT_EQ(total.Get(0), 0.0f);
  ASSERT_EQ(RunForward(self, target, weight, 1, -100, one, total), ACLNN_SUCCESS);
  EXPECT_TRUE(std::isnan(one.Get(0)));
  EXPECT_EQ(total.Get(0), 0.0f);
  ASSERT_EQ(RunForward(self, target, weight, 2, -100, one, total), ACLNN_SUCCESS);
  EXPECT_EQ(one.Get(0), 0.0f);
  EXPECT_EQ(one.DamagedCanaries(), 0);
  // Backward: out is empty, nothing written.
  DeviceTensor g({}, ACL_FLOAT), gin({0, 3}, ACL_FLOAT);
  EXPECT_EQ(RunBackward(g, self, target, weight, 1, -100, total, gin), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_TRUE(gin.Untouched());
}

TEST_F(NllLossTest, OutOfRangeTargetsFailAtSynchronizeAndWriteNothing) {
  DeviceTensor self({4, 5}, ACL_FLOAT), weight({5}, ACL_FLOAT), total({1}, ACL_FLOAT);
  DeviceTensor one({1}, ACL_FLOAT), rows({4}, ACL_FLOAT), g({}, ACL_FLOAT), gin({4, 5}, ACL_FLOAT);
  g.Fill({1});
  // Contiguous INT64 targets are checked in place, the others through the workspace copy.
  for (int variant = 0; variant < 4; ++variant) {
    const aclDataType type = variant < 2 ? ACL_INT64 : variant == 2 ? ACL_INT32 : ACL_UINT8;
    for (double bad : {-1.0, 5.0, 200.0}) {
      if (type == ACL_UINT8 && bad < 0) continue;
      DeviceTensor target({4}, type,
                          variant == 0 ? TensorLayout::Contiguous() : TensorLayout::Strided(2, 1));
      target.FillDouble({0, 4, bad, 1});
      const std::string shown = "is " + std::to_string(static_cast<int64_t>(bad));
      for (int64_t reduction : {0, 1, 2}) {
        DeviceTensor& out = reduction == 0 ? rows : one;
        out.Reset();
        total.Reset();
        EXPECT_EQ(RunForward(self, target, weight, reduction, -100, out, total), kTaskFailed);
        std::string message = RecentError();
        for (const std::string& word :
             {std::string("aclnnNLLLoss"), std::string("target element 2"), shown,
              std::string("outside [0, 5)"), std::string("ignoreIndex -100")}) {
          EXPECT_NE(message.find(word), std::string::npos) << "'" << word << "' not in " << message;
        }
        EXPECT_TRUE(out.Untouched());
        EXPECT_TRUE(total.Untouched());
        gin.Reset();
        EXPECT_EQ(RunBackward(reduction == 0 ? rows : g, self, target, weight, reduction, -100,
                              total, gin),
                  kTaskFailed);
        message = RecentError();
        for (const std::string& word :
             {std::string("aclnnNLLLossBackward"), std::string("target element 2"), shown,
              std::string("aclnn status 161002")}) {
          EXPECT_NE(message.find(word), std::string::npos) << "'" << word << "' not in " << message;
        }
        EXPECT_TRUE(gin.Untouched());
      }
      // The same value as ignoreIndex is no error.
      EXPECT_EQ(RunForward(self, target, weight, 2, static_cast<int64_t>(bad), one, total),
                ACLNN_SUCCESS)
          << RecentError();
    }
  }
}

TEST_F(NllLossTest, ManyTargetsReportTheFirstBadOne) {
  // Contiguous INT64 targets are checked in place a vector at a time: a bad target in the first
  // vector, at a vector's first and last lane, deep inside, in the tail after the last whole block
  // of vectors; extreme values; two bad targets (the lower one is reported); ignoreIndex inside and
  // outside [0, c).
  constexpr int64_t kRows = 3001, kClasses = 7;
  DeviceTensor self({kRows, kClasses}, ACL_FLOAT), weight({kClasses}, ACL_FLOAT);
  DeviceTensor total({1}, ACL_FLOAT), one({1}, ACL_FLOAT), g({}, ACL_FLOAT);
  DeviceTensor gin({kRows, kClasses}, ACL_FLOAT), target({kRows}, ACL_INT64);
  g.Fill({1});
  std::vector<float> ones(static_cast<size_t>(kClasses), 1.0f);
  weight.Fill(ones);
  std::vector<double> good(static_cast<size_t>(kRows));
  for (int64_t r = 0; r < kRows; ++r) good[r] = static_cast<double>(r % kClasses);
  const double kLowest = -9223372036854775808.0;  // -2^63, exact in a double
  for (int64_t at : {0, 7, 8, 31, 32, 1234, 2975, 2999, 3000}) {
    for (double bad : {-1.0, 7.0, kLowest, 4611686018427387904.0}) {
      std::vector<double> targets = good;
      targets[at] = bad;
      if (at + 500 < kRows) targets[at + 500] = -5.0;
      target.FillDouble(targets);
      gin.Reset();
      EXPECT_EQ(RunBackward(g, self, target, weight, 2, -100, total, gin), kTaskFailed);
      const std::string message = RecentError();
      const std::string want = "target element " + std::to_string(at) + " is " +
                               std::to_string(static_cast<int64_t>(bad)) + ",";
      EXPECT_NE(message.find(want), std::string::npos) << "'" << want << "' not in " << message;
      EXPECT_TRUE(gin.Untouched()) << at << " " << bad;
    }
  }
  // ignoreIndex 3 (a class) and 9 (not one): those rows get no gradient, and 9 is no error.
  for (int64_t ignore : {3, 9}) {
    std::vector<double> targets = good;
    for (int64_t r = 0; r < kRows; r += 5) targets[r] = static_cast<double>(ignore);
    target.FillDouble(targets);
    ASSERT_EQ(RunBackward(g, self, target, weight, 2, ignore, total, gin), ACLNN_SUCCESS)
        << RecentError();
    const std::vector<float> got = gin.Values();
    int64_t wrong = 0;
    for (int64_t r = 0; r < kRows; ++r) {
      for (int64_t k = 0; k < kClasses; ++k) {
        const bool hit = targets[r] == static_cast<double>(k) && targets[r] != ignore;
        wrong += got[r * kClasses + k] != (hit ? -1.0f : 0.0f);
      }
    }
    EXPECT_EQ(wrong, 0) << "ignoreIndex " << ignore;
  }
}

TEST_F(NllLossTest, BitwiseIdenticalForAnyThreadCount) {
  // 100000 rows: 13 chunk partials in the forward sums.
  for (int64_t reduction : {0, 1, 2}) {
    const Case c{100000, 10, true, ACL_FLOAT, ACL_INT64, ACL_FLOAT, ACL_FLOAT, reduction, true};
    cpu::SetNumThreads(1);
    const std::vector<uint8_t> f1 = CheckForward(c, 3, false);
    const std::vector<uint8_t> b1 = CheckBackward(c, 3, false);
    cpu::SetNumThreads(3);
    const std::vector<uint8_t> f3 = CheckForward(c, 3, false);
    const std::vector<uint8_t> b3 = CheckBackward(c, 3, false);
    cpu::SetNumThreads(0);
    EXPECT_EQ(f1, f3) << "forward reduction " << reduction;
    EXPECT_EQ(b1, b3) << "backward reduction " << reduction;
  }
}

TEST_F(NllLossTest, NegativeStrides) {
  // self with both strides negative, target and weight reversed.
  DeviceTensor self({2, 3}, ACL_FLOAT, TensorLayout::Explicit({-3, -1}, 5));
  DeviceTensor target({2}, ACL_INT32, TensorLayout::Explicit({-1}, 1));
  DeviceTensor weight({3}, ACL_FLOAT, TensorLayout::Explicit({-1}, 2));
  self.Fill({-1, -2, -3, -4, -5, -6});
  target.FillDouble({2, 0});
  weight.Fill({1, 2, 3});
  DeviceTensor rows({2}, ACL_FLOAT, TensorLayout::Explicit({-4}, 4)), total({1}, ACL_FLOAT);
  ASSERT_EQ(RunForward(self, target, weight, 0, -100, rows, total), ACLNN_SUCCESS) << RecentError();
  EXPECT_EQ(rows.Values(), (std::vector<float>{9, 4}));
  EXPECT_EQ(rows.DamagedCanaries(), 0);
  DeviceTensor g({2}, ACL_FLOAT, TensorLayout::Explicit({-1}, 1));
  DeviceTensor gin({2, 3}, ACL_FLOAT, TensorLayout::Explicit({-1, -2}, 5));
  g.Fill({10, 100});
  ASSERT_EQ(RunBackward(g, self, target, weight, 0, -100, total, gin), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_EQ(gin.Values(), (std::vector<float>{0, 0, -30, -100, 0, 0}));
  EXPECT_EQ(gin.DamagedCanaries(), 0);
}

// ---------------------------------------------------------------------------------------------
// Phase-1 errors

template <class Fn>
void ExpectError(aclnnStatus code, const std::vector<std::string>& words, Fn phase1) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  const aclnnStatus st = phase1(&ws, &ex);
  const std::string message = RecentError();
  EXPECT_EQ(st, code) << message;
  if (st == ACLNN_SUCCESS) aclDestroyAclOpExecutor(ex);
  for (const std::string& w : words) {
    EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
  }
}

TEST_F(NllLossTest, ForwardDocumentedErrors) {
  DeviceTensor s({4, 3}, ACL_FLOAT), t({4}, ACL_INT64), w({3}, ACL_FLOAT), o({1}, ACL_FLOAT);
  DeviceTensor tw({1}, ACL_FLOAT), rows({4}, ACL_FLOAT), sd({4, 3}, ACL_DOUBLE);
  DeviceTensor w16({3}, ACL_FLOAT16), od({1}, ACL_DOUBLE), t16({4}, ACL_INT16);
  DeviceTensor s3({4, 3, 1}, ACL_FLOAT), t5({5}, ACL_INT64), t0({}, ACL_INT64);
  DeviceTensor t2({4, 1}, ACL_INT64), w4({4}, ACL_FLOAT), o2({2}, ACL_FLOAT), tw2({2}, ACL_FLOAT);
  DeviceTensor s_empty({4, 0}, ACL_FLOAT), w_empty({0}, ACL_FLOAT);
  auto fwd = [](const DeviceTensor* a, const DeviceTensor* b, const DeviceTensor* c, int64_t r,
                const DeviceTensor* d, const DeviceTensor* e) {
    return [=](uint64_t* ws, aclOpExecutor** ex) {
      return aclnnNLLLossGetWorkspaceSize(a ? a->get() : nullptr, b ? b->get() : nullptr,
                                          c ? c->get() : nullptr, r, -100, d ? d->get() : nullptr,
                                          e ? e->get() : nullptr, ws, ex);
    };
  };
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"self", "nullptr"}, fwd(nullptr, &t, &w, 1, &o, &tw));
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"target", "nullptr"}, fwd(&s, nullptr, &w, 1, &o, &tw));
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"weight", "nullptr"}, fwd(&s, &t, nullptr, 1, &o, &tw));
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"out", "nullptr"}, fwd(&s, &t, &w, 1, nullptr, &tw));
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"totalWeightOut", "nullptr"},
              fwd(&s, &t, &w, 1, &o, nullptr));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"self dtype", "BFLOAT16", "got DOUBLE"},
              fwd(&sd, &t, &w, 1, &o, &tw));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"weight dtype", "self dtype FLOAT", "got FLOAT16"},
              fwd(&s, &t, &w16, 1, &o, &tw));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out dtype", "got DOUBLE"}, fwd(&s, &t, &w, 1, &od, &tw));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"totalWeightOut dtype", "got DOUBLE"},
              fwd(&s, &t, &w, 1, &o, &od));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"target dtype", "INT64, INT32, UINT8", "got INT16"},
              fwd(&s, &t16, &w, 1, &o, &tw));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"reduction", "got 3"}, fwd(&s, &t, &w, 3, &o, &tw));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"reduction", "got -1"}, fwd(&s, &t, &w, -1, &o, &tw));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"self must be 1-D (C) or 2-D (N, C)", "[4, 3, 1]"},
              fwd(&s3, &t, &w, 1, &o, &tw));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"target shape", "[4]", "got [5]"},
              fwd(&s, &t5, &w, 1, &o, &tw));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"target shape", "got []"}, fwd(&s, &t0, &w, 1, &o, &tw));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"target shape", "got [4, 1]"},
              fwd(&s, &t2, &w, 1, &o, &tw));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"weight shape", "[3]", "got [4]"},
              fwd(&s, &t, &w4, 1, &o, &tw));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape", "[1] or []", "got [4]"},
              fwd(&s, &t, &w, 1, &rows, &tw));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape", "[4]", "reduction none", "got [1]"},
              fwd(&s, &t, &w, 0, &o, &tw));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape", "got [2]"}, fwd(&s, &t, &w, 2, &o2, &tw));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"totalWeightOut shape", "got [2]"},
              fwd(&s, &t, &w, 1, &o, &tw2));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"target is out of bounds", "no class"},
              fwd(&s_empty, &t, &w_empty, 1, &o, &tw));
  ExpectError(ACLNN_SUCCESS, {}, fwd(&s, &t, &w, 0, &rows, &tw));
}

TEST_F(NllLossTest, BackwardDocumentedErrors) {
  DeviceTensor g({}, ACL_FLOAT), s({4, 3}, ACL_FLOAT), t({4}, ACL_INT64), w({3}, ACL_FLOAT);
  DeviceTensor tw({1}, ACL_FLOAT), o({4, 3}, ACL_FLOAT), g16({}, ACL_FLOAT16);
  DeviceTensor w16({3}, ACL_FLOAT16), tw16({1}, ACL_FLOAT16), o16({4, 3}, ACL_FLOAT16);
  DeviceTensor sd({4, 3}, ACL_DOUBLE), tb({4}, ACL_BOOL), grows({4}, ACL_FLOAT);
  DeviceTensor g3({3}, ACL_FLOAT), tw2({2}, ACL_FLOAT), o_bad({3, 4}, ACL_FLOAT);
  DeviceTensor w2({2}, ACL_FLOAT), t1({1}, ACL_INT64), s1({3}, ACL_FLOAT);
  auto bwd = [](const DeviceTensor* a, const DeviceTensor* b, const DeviceTensor* c,
                const DeviceTensor* d, int64_t r, const DeviceTensor* e, const DeviceTensor* f) {
    return [=](uint64_t* ws, aclOpExecutor** ex) {
      return aclnnNLLLossBackwardGetWorkspaceSize(
          a ? a->get() : nullptr, b ? b->get() : nullptr, c ? c->get() : nullptr,
          d ? d->get() : nullptr, r, -100, e ? e->get() : nullptr, f ? f->get() : nullptr, ws, ex);
    };
  };
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"gradOutput"}, bwd(nullptr, &s, &t, &w, 1, &tw, &o));
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"self"}, bwd(&g, nullptr, &t, &w, 1, &tw, &o));
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"target"}, bwd(&g, &s, nullptr, &w, 1, &tw, &o));
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"weight"}, bwd(&g, &s, &t, nullptr, 1, &tw, &o));
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"totalWeight"}, bwd(&g, &s, &t, &w, 1, nullptr, &o));
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"out", "nullptr"}, bwd(&g, &s, &t, &w, 1, &tw, nullptr));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"self dtype", "got DOUBLE"},
              bwd(&g, &sd, &t, &w, 1, &tw, &o));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"gradOutput dtype", "self dtype FLOAT", "got FLOAT16"},
              bwd(&g16, &s, &t, &w, 1, &tw, &o));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"weight dtype", "got FLOAT16"},
              bwd(&g, &s, &t, &w16, 1, &tw, &o));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"totalWeight dtype", "got FLOAT16"},
              bwd(&g, &s, &t, &w, 1, &tw16, &o));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out dtype", "got FLOAT16"},
              bwd(&g, &s, &t, &w, 1, &tw, &o16));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"target dtype", "got BOOL"},
              bwd(&g, &s, &tb, &w, 1, &tw, &o));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"reduction", "got 7"}, bwd(&g, &s, &t, &w, 7, &tw, &o));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"target shape", "got [1]"},
              bwd(&g, &s1, &t1, &w, 1, &tw, &o));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"weight shape", "[3]", "got [2]"},
              bwd(&g, &s, &t, &w2, 1, &tw, &o));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"gradOutput shape", "[4]", "got []"},
              bwd(&g, &s, &t, &w, 0, &tw, &o));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"gradOutput shape", "[1] or []", "got [3]"},
              bwd(&g3, &s, &t, &w, 2, &tw, &o));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"totalWeight shape", "got [2]"},
              bwd(&g, &s, &t, &w, 1, &tw2, &o));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape", "self shape [4, 3]", "got [3, 4]"},
              bwd(&g, &s, &t, &w, 1, &tw, &o_bad));
  ExpectError(ACLNN_SUCCESS, {}, bwd(&grows, &s, &t, &w, 0, &tw, &o));
}

}  // namespace
}  // namespace openaclnn

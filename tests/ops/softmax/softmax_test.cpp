// aclnnSoftmax, aclnnLogSoftmax, aclnnSoftmaxBackward and aclnnLogSoftmaxBackward through the
// public API: every documented error (code and a message naming the parameter), 0-d, empty and
// size-1 tensors, crafted exact rows, random strided views against a float64 golden computed
// here, the library's float64 reference forced through OPENACLNN_FORCE_IMPL, bitwise identical
// results for 1 and 3 threads, and no byte written outside an output view.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_logsoftmax_backward.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_backward.h"
#include "backend/cpu/thread_pool.h"
#include "util/device_tensor.h"
#include "util/runtime_fixture.h"

namespace openaclnn {
namespace {

using test::DeviceTensor;
using test::RecentError;
using test::TensorLayout;

enum class Op { kSoftmax, kLogSoftmax, kSoftmaxBackward, kLogSoftmaxBackward };
bool Backward(Op op) { return op == Op::kSoftmaxBackward || op == Op::kLogSoftmaxBackward; }
const char* Name(Op op) {
  switch (op) {
    case Op::kSoftmax:
      return "softmax";
    case Op::kLogSoftmax:
      return "log_softmax";
    case Op::kSoftmaxBackward:
      return "softmax_backward";
    case Op::kLogSoftmaxBackward:
      return "log_softmax_backward";
  }
  return "";
}

// Phase 1 only: its status (the executor is destroyed on success).
aclnnStatus Phase1(Op op, const aclTensor* x, const aclTensor* y, int64_t dim, aclTensor* out,
                   uint64_t* ws, aclOpExecutor** ex) {
  switch (op) {
    case Op::kSoftmax:
      return aclnnSoftmaxGetWorkspaceSize(x, dim, out, ws, ex);
    case Op::kLogSoftmax:
      return aclnnLogSoftmaxGetWorkspaceSize(x, dim, out, ws, ex);
    case Op::kSoftmaxBackward:
      return aclnnSoftmaxBackwardGetWorkspaceSize(x, y, dim, out, ws, ex);
    case Op::kLogSoftmaxBackward:
      return aclnnLogSoftmaxBackwardGetWorkspaceSize(x, y, dim, out, ws, ex);
  }
  return -1;
}

aclnnStatus RunOp(Op op, const aclTensor* x, const aclTensor* y, int64_t dim, aclTensor* out) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  aclnnStatus st = Phase1(op, x, y, dim, out, &ws, &ex);
  if (st != ACLNN_SUCCESS) return st;
  void* workspace = nullptr;
  if (ws > 0 && aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return -1;
  switch (op) {
    case Op::kSoftmax:
      st = aclnnSoftmax(workspace, ws, ex, nullptr);
      break;
    case Op::kLogSoftmax:
      st = aclnnLogSoftmax(workspace, ws, ex, nullptr);
      break;
    case Op::kSoftmaxBackward:
      st = aclnnSoftmaxBackward(workspace, ws, ex, nullptr);
      break;
    case Op::kLogSoftmaxBackward:
      st = aclnnLogSoftmaxBackward(workspace, ws, ex, nullptr);
      break;
  }
  if (st == ACLNN_SUCCESS) st = aclrtSynchronizeStream(nullptr);
  if (workspace != nullptr) aclrtFree(workspace);
  return st;
}

// The float64 golden over row-major values `x` (and `y`) of `shape`, along normalised `dim`.
std::vector<double> Golden(Op op, const std::vector<int64_t>& shape, int dim,
                           const std::vector<double>& x, const std::vector<double>& y) {
  int64_t outer = 1, n = 1, inner = 1;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (d < dim) outer *= shape[d];
    if (d == dim) n = shape[d];
    if (d > dim) inner *= shape[d];
  }
  std::vector<double> out(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return (o * n + k) * inner + i; };
      double m = -INFINITY, s = 0.0;
      for (int64_t k = 0; k < n; ++k) m = std::max(m, x[at(k)]);
      for (int64_t k = 0; k < n; ++k) {
        if (op == Op::kSoftmax || op == Op::kLogSoftmax) s += std::exp(x[at(k)] - m);
        if (op == Op::kSoftmaxBackward) s += x[at(k)] * y[at(k)];
        if (op == Op::kLogSoftmaxBackward) s += x[at(k)];
      }
      for (int64_t k = 0; k < n; ++k) {
        const double v = x[at(k)];
        switch (op) {
          case Op::kSoftmax:
            out[at(k)] = std::exp(v - m) / s;
            break;
          case Op::kLogSoftmax:
            out[at(k)] = v - m - std::log(s);
            break;
          case Op::kSoftmaxBackward:
            out[at(k)] = y[at(k)] * (v - s);
            break;
          case Op::kLogSoftmaxBackward:
            out[at(k)] = v - std::exp(y[at(k)]) * s;
            break;
        }
      }
    }
  }
  return out;
}

double Tolerance(aclDataType t) {
  switch (t) {
    case ACL_FLOAT16:
      return 2e-3;
    case ACL_BF16:
      return 1.6e-2;
    case ACL_DOUBLE:
      return 1e-12;
    default:
      return 2e-5;
  }
}

class SoftmaxTest : public test::RuntimeTest {};

struct Case {
  Op op;
  std::vector<int64_t> shape;
  int64_t dim;
  aclDataType dtype;
  aclDataType out_type;
  TensorLayout in_layout, out_layout;
};

// Runs `c` on random data; checks the output against the golden, the canaries, and (when
// `check_reference`) the forced float64 reference too. Returns the output bytes.
std::vector<uint8_t> RunCase(const Case& c, uint32_t seed, bool check_reference = true) {
  std::mt19937 rng(seed);
  DeviceTensor x(c.shape, c.dtype, c.in_layout);
  DeviceTensor y(c.shape, c.dtype, c.in_layout);
  DeviceTensor out(c.shape, c.out_type, c.out_layout);
  const std::vector<double> xv = x.FillUniform(&rng, -4.0f, 4.0f);
  std::vector<double> yv;
  if (c.op == Op::kSoftmaxBackward) yv = y.FillUniform(&rng, 0.0f, 1.0f);
  if (c.op == Op::kLogSoftmaxBackward) yv = y.FillUniform(&rng, -6.0f, 0.0f);
  const int rank = static_cast<int>(c.shape.size());
  const int dim = rank == 0 ? 0 : static_cast<int>(c.dim < 0 ? c.dim + rank : c.dim);
  const std::string what = std::string(Name(c.op)) + " shape rank " + std::to_string(rank) +
                           " dim " + std::to_string(c.dim) + " in " + c.in_layout.name + " out " +
                           c.out_layout.name + " dtype " + std::to_string(c.dtype);
  EXPECT_EQ(RunOp(c.op, x.get(), Backward(c.op) ? y.get() : nullptr, c.dim, out.get()),
            ACLNN_SUCCESS)
      << what << " " << RecentError();
  const std::vector<double> golden = Golden(c.op, c.shape, dim, xv, yv);
  const std::vector<double> got = out.ValuesDouble();
  const double tol = Tolerance(c.out_type == ACL_DOUBLE ? c.dtype : c.out_type);
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i) {
    if (!(std::fabs(got[i] - golden[i]) <= tol * (1.0 + std::fabs(golden[i])))) {
      ADD_FAILURE() << what << " element " << i << " got " << got[i] << " want " << golden[i];
      ++bad;
    }
  }
  EXPECT_EQ(out.DamagedCanaries(), 0) << what;
  std::vector<uint8_t> bytes = out.Bytes();
  if (check_reference) {
    setenv("OPENACLNN_FORCE_IMPL", (std::string(Name(c.op)) + "=reference").c_str(), 1);
    DeviceTensor ref(c.shape, c.out_type, c.out_layout);
    EXPECT_EQ(RunOp(c.op, x.get(), Backward(c.op) ? y.get() : nullptr, c.dim, ref.get()),
              ACLNN_SUCCESS)
        << what << " " << RecentError();
    unsetenv("OPENACLNN_FORCE_IMPL");
    const std::vector<double> rv = ref.ValuesDouble();
    bad = 0;
    for (size_t i = 0; i < rv.size() && bad < 5; ++i) {
      if (!(std::fabs(rv[i] - golden[i]) <= tol * (1.0 + std::fabs(golden[i])))) {
        ADD_FAILURE() << what << " reference element " << i << " got " << rv[i] << " want "
                      << golden[i];
        ++bad;
      }
    }
  }
  return bytes;
}

// The bits of a float, for bitwise comparisons.
uint32_t Bits(float v) {
  uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof(bits));
  return bits;
}

const Op kOps[] = {Op::kSoftmax, Op::kLogSoftmax, Op::kSoftmaxBackward, Op::kLogSoftmaxBackward};

TEST_F(SoftmaxTest, RandomStridedViewsMatchGolden) {
  std::mt19937 pick(7);
  const std::vector<std::vector<int64_t>> shapes = {{5},    {3, 7},  {4, 1, 9},  {2, 3, 4, 5},
                                                    {1, 1}, {6, 33}, {2, 130, 3}};
  int cases = 0;
  for (Op op : kOps) {
    for (const auto& shape : shapes) {
      const int rank = static_cast<int>(shape.size());
      for (int64_t rep = 0; rep < 2 * rank; ++rep) {
        const int64_t dim = rep - rank;  // every dim twice, negative then positive
        const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
        aclDataType dtype = types[pick() % (Backward(op) ? 3 : 4)];
        std::vector<int> reversed(rank);
        for (int d = 0; d < rank; ++d) reversed[d] = rank - 1 - d;
        const TensorLayout layouts[] = {
            TensorLayout::Contiguous(), TensorLayout::Padded(3), TensorLayout::Strided(2, 5),
            TensorLayout::Permuted(reversed).Named("reversed"), TensorLayout::Scrambled(rank)};
        const TensorLayout& in = layouts[pick() % 5];
        const TensorLayout& out = layouts[pick() % 5];
        RunCase({op, shape, dim, dtype, dtype, in, out}, static_cast<uint32_t>(cases));
        ++cases;
      }
    }
  }
  EXPECT_GT(cases, 100);
}

TEST_F(SoftmaxTest, OutputDtypeMayDifferFromInput) {
  RunCase({Op::kSoftmax,
           {4, 40},
           1,
           ACL_FLOAT,
           ACL_BF16,
           TensorLayout::Contiguous(),
           TensorLayout::Contiguous()},
          1);
  RunCase({Op::kLogSoftmax,
           {4, 40},
           0,
           ACL_FLOAT16,
           ACL_FLOAT,
           TensorLayout::Contiguous(),
           TensorLayout::Padded(1)},
          2);
  RunCase({Op::kSoftmaxBackward,
           {4, 40},
           -1,
           ACL_BF16,
           ACL_FLOAT,
           TensorLayout::Contiguous(),
           TensorLayout::Contiguous()},
          3);
}

TEST_F(SoftmaxTest, LongRowsAndManyRows) {
  for (Op op : kOps) {
    RunCase({op,
             {1 << 20},
             0,
             ACL_FLOAT,
             ACL_FLOAT,
             TensorLayout::Contiguous(),
             TensorLayout::Contiguous()},
            11, false);
    RunCase({op,
             {3000, 17},
             0,
             ACL_FLOAT,
             ACL_FLOAT,
             TensorLayout::Contiguous(),
             TensorLayout::Contiguous()},
            12, false);
  }
}

TEST_F(SoftmaxTest, BitwiseIdenticalForAnyThreadCount) {
  for (Op op : kOps) {
    for (int64_t dim : {0, 1, -1}) {
      const Case c{op,
                   {257, 9, 300},
                   dim,
                   ACL_BF16,
                   ACL_BF16,
                   TensorLayout::Contiguous(),
                   TensorLayout::Contiguous()};
      cpu::SetNumThreads(1);
      const std::vector<uint8_t> one = RunCase(c, 5, false);
      cpu::SetNumThreads(3);
      const std::vector<uint8_t> three = RunCase(c, 5, false);
      cpu::SetNumThreads(0);
      EXPECT_EQ(one, three) << Name(op) << " dim " << dim;
    }
  }
}

// Every path gives a row the same operations in the same order, so the same bits: the same
// logical rows of n elements, w of them, computed (a) as an outer-dim softmax (a row-major [n, w]
// along dim 0: panels of rows across memory), (b) as contiguous rows ([w, n] along dim 1: panels
// with a transposing copy when the rows are short, the row path otherwise) and (c) on the row
// path ([w, 1, n] along dim 2: one row per outer group, too few side by side for a panel). n
// crosses the 128- and 256-element blocks of the sums with tails; w covers a padded panel and two
// panels; -inf entries, -1e9 masks, huge values and a NaN in some rows.
TEST_F(SoftmaxTest, PanelAndRowPathsGiveTheSameBits) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> u(-6.0f, 6.0f), p(0.0f, 1.0f);
  int compared = 0;
  for (Op op : kOps) {
    for (aclDataType dtype : {ACL_FLOAT, ACL_BF16, ACL_FLOAT16}) {
      for (int64_t n : {1, 7, 64, 129, 300, 513}) {
        for (int64_t w : {8, 37, 100}) {
          // Row c, element k at [c * n + k].
          std::vector<float> xv(n * w), yv(n * w);
          for (int64_t i = 0; i < n * w; ++i) {
            xv[i] = u(rng);
            // Softmax backward: probabilities; log-softmax backward: log-probabilities <= 0.
            yv[i] = op == Op::kSoftmaxBackward ? p(rng) : -6.0f * p(rng);
          }
          for (int64_t c = 0; c < w; c += 3) {
            xv[c * n + (c + 1) % n] = -INFINITY;
            xv[c * n + (c + 2) % n] = -1e9f;
            yv[c * n + (c + 3) % n] = op == Op::kLogSoftmaxBackward ? -INFINITY : 0.0f;
          }
          if (!Backward(op)) {
            xv[(w / 2) * n + n / 2] = NAN;
            xv[(w - 1) * n + n - 1] = 1e30f;
          }
          struct Form {
            std::vector<int64_t> shape;
            int64_t dim;
            bool transposed;  // [n, w]: element (k, c) holds row c's element k
          };
          const Form forms[] = {{{n, w}, 0, true}, {{w, n}, 1, false}, {{w, 1, n}, 2, false}};
          std::vector<std::vector<float>> results;
          for (const Form& f : forms) {
            std::vector<float> xs(n * w), ys(n * w);
            for (int64_t c = 0; c < w; ++c) {
              for (int64_t k = 0; k < n; ++k) {
                const int64_t at = f.transposed ? k * w + c : c * n + k;
                xs[at] = xv[c * n + k];
                ys[at] = yv[c * n + k];
              }
            }
            DeviceTensor x(f.shape, dtype), y(f.shape, dtype), out(f.shape, dtype);
            x.Fill(xs);
            y.Fill(ys);
            ASSERT_EQ(RunOp(op, x.get(), Backward(op) ? y.get() : nullptr, f.dim, out.get()),
                      ACLNN_SUCCESS)
                << RecentError();
            const std::vector<float> got = out.Values();
            std::vector<float> rows(n * w);
            for (int64_t c = 0; c < w; ++c) {
              for (int64_t k = 0; k < n; ++k)
                rows[c * n + k] = got[f.transposed ? k * w + c : c * n + k];
            }
            results.push_back(rows);
          }
          for (size_t form = 1; form < results.size(); ++form) {
            for (int64_t i = 0; i < n * w; ++i) {
              const float a = results[0][i], b = results[form][i];
              if (std::isnan(a) && std::isnan(b)) continue;
              ASSERT_EQ(Bits(a), Bits(b))
                  << Name(op) << " dtype " << dtype << " n " << n << " w " << w << " form " << form
                  << " row " << i / n << " element " << i % n << ": " << a << " vs " << b;
            }
          }
          ++compared;
        }
      }
    }
  }
  EXPECT_EQ(compared, 4 * 3 * 6 * 3);
}

// An output that is an input's own view (self, or gradOutput or output for the backward) gets the
// out-of-place result, bit for bit, on the contiguous FLOAT rows the kernel writes directly.
TEST_F(SoftmaxTest, OutputAliasingAnInputGetsTheSameBits) {
  std::mt19937 rng(5);
  for (Op op : kOps) {
    for (int aliased = 0; aliased < (Backward(op) ? 2 : 1); ++aliased) {
      DeviceTensor x({33, 300}, ACL_FLOAT), y({33, 300}, ACL_FLOAT), out({33, 300}, ACL_FLOAT);
      const std::vector<double> xv = x.FillUniform(&rng, -4.0f, 4.0f);
      const std::vector<double> yv = op == Op::kLogSoftmaxBackward
                                         ? y.FillUniform(&rng, -6.0f, 0.0f)
                                         : y.FillUniform(&rng, 0.0f, 1.0f);
      ASSERT_EQ(RunOp(op, x.get(), Backward(op) ? y.get() : nullptr, -1, out.get()), ACLNN_SUCCESS)
          << RecentError();
      DeviceTensor& target = aliased == 0 ? x : y;
      ASSERT_EQ(RunOp(op, x.get(), Backward(op) ? y.get() : nullptr, -1, target.get()),
                ACLNN_SUCCESS)
          << RecentError();
      const std::vector<float> want = out.Values(), got = target.Values();
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(Bits(want[i]), Bits(got[i]))
            << Name(op) << " aliasing " << (aliased == 0 ? "x" : "y") << " element " << i << ": "
            << got[i] << " vs " << want[i];
      }
      EXPECT_EQ(target.DamagedCanaries(), 0);
    }
  }
}

TEST_F(SoftmaxTest, CraftedExactRows) {
  // Equal values: every softmax element is exactly 1/4, every log-softmax element -log(4).
  DeviceTensor x({2, 4}, ACL_FLOAT), out({2, 4}, ACL_FLOAT);
  x.Fill({3, 3, 3, 3, -100, -100, -100, -100});
  ASSERT_EQ(RunOp(Op::kSoftmax, x.get(), nullptr, 1, out.get()), ACLNN_SUCCESS) << RecentError();
  for (float v : out.Values()) EXPECT_EQ(v, 0.25f);
  ASSERT_EQ(RunOp(Op::kLogSoftmax, x.get(), nullptr, -1, out.get()), ACLNN_SUCCESS);
  for (float v : out.Values()) EXPECT_EQ(v, -std::log(4.0f));
  // Huge values do not overflow: the row maximum is subtracted first.
  x.Fill({1e30f, 1e30f, 0, 0, 80, 80, 80, 80});
  ASSERT_EQ(RunOp(Op::kSoftmax, x.get(), nullptr, 1, out.get()), ACLNN_SUCCESS);
  EXPECT_EQ(out.Values(), (std::vector<float>{0.5f, 0.5f, 0, 0, 0.25f, 0.25f, 0.25f, 0.25f}));
  // Softmax backward of a one-hot output: gradOutput 1 everywhere gives 0.
  DeviceTensor g({2, 4}, ACL_FLOAT), y({2, 4}, ACL_FLOAT);
  g.Fill({1, 1, 1, 1, 2, 0, 0, 0});
  y.Fill({1, 0, 0, 0, 0.5f, 0.5f, 0, 0});
  ASSERT_EQ(RunOp(Op::kSoftmaxBackward, g.get(), y.get(), 1, out.get()), ACLNN_SUCCESS);
  EXPECT_EQ(out.Values(), (std::vector<float>{0, 0, 0, 0, 0.5f, -0.5f, 0, 0}));
  // Log-softmax backward with output log(1) = 0 in one place, -inf elsewhere.
  y.Fill({0, -INFINITY, -INFINITY, -INFINITY, 0, 0, 0, 0});
  g.Fill({1, 2, 3, 4, 1, 1, 1, 1});
  ASSERT_EQ(RunOp(Op::kLogSoftmaxBackward, g.get(), y.get(), 1, out.get()), ACLNN_SUCCESS);
  EXPECT_EQ(out.Values(), (std::vector<float>{-9, 2, 3, 4, -3, -3, -3, -3}));
}

TEST_F(SoftmaxTest, ZeroDimSizeOneAndEmpty) {
  DeviceTensor s({}, ACL_FLOAT), o({}, ACL_FLOAT), g({}, ACL_FLOAT);
  s.Fill({7.0f});
  g.Fill({2.0f});
  for (int64_t dim : {0, -1}) {
    ASSERT_EQ(RunOp(Op::kSoftmax, s.get(), nullptr, dim, o.get()), ACLNN_SUCCESS) << RecentError();
    EXPECT_EQ(o.Get(0), 1.0f);
    ASSERT_EQ(RunOp(Op::kLogSoftmax, s.get(), nullptr, dim, o.get()), ACLNN_SUCCESS);
    EXPECT_EQ(o.Get(0), 0.0f);
  }
  DeviceTensor y({}, ACL_FLOAT);
  y.Fill({1.0f});
  ASSERT_EQ(RunOp(Op::kSoftmaxBackward, g.get(), y.get(), 0, o.get()), ACLNN_SUCCESS);
  EXPECT_EQ(o.Get(0), 0.0f);  // 1 * (2 - 2)
  y.Fill({0.0f});
  ASSERT_EQ(RunOp(Op::kLogSoftmaxBackward, g.get(), y.get(), 0, o.get()), ACLNN_SUCCESS);
  EXPECT_EQ(o.Get(0), 0.0f);  // 2 - exp(0) * 2
  // Size-1 softmax dim: every output 1.
  DeviceTensor x({3, 1, 2}, ACL_FLOAT16), out({3, 1, 2}, ACL_FLOAT16);
  x.Fill({1, 2, 3, 4, 5, 6});
  ASSERT_EQ(RunOp(Op::kSoftmax, x.get(), nullptr, 1, out.get()), ACLNN_SUCCESS);
  for (float v : out.Values()) EXPECT_EQ(v, 1.0f);
  // Empty tensors succeed and write nothing.
  for (Op op : kOps) {
    DeviceTensor ex({3, 0, 4}, ACL_FLOAT), ey({3, 0, 4}, ACL_FLOAT), eo({3, 0, 4}, ACL_FLOAT);
    EXPECT_EQ(RunOp(op, ex.get(), Backward(op) ? ey.get() : nullptr, 2, eo.get()), ACLNN_SUCCESS)
        << Name(op) << " " << RecentError();
    EXPECT_TRUE(eo.Untouched());
  }
}

void ExpectError(aclnnStatus code, const std::vector<std::string>& words, Op op, const aclTensor* x,
                 const aclTensor* y, int64_t dim, aclTensor* out) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  const aclnnStatus st = Phase1(op, x, y, dim, out, &ws, &ex);
  const std::string message = RecentError();
  EXPECT_EQ(st, code) << Name(op) << " " << message;
  if (st == ACLNN_SUCCESS) aclDestroyAclOpExecutor(ex);
  for (const std::string& w : words) {
    EXPECT_NE(message.find(w), std::string::npos) << "'" << w << "' not in: " << message;
  }
}

TEST_F(SoftmaxTest, DocumentedErrors) {
  DeviceTensor f({2, 3}, ACL_FLOAT), o({2, 3}, ACL_FLOAT), d({2, 3}, ACL_DOUBLE);
  DeviceTensor i32({2, 3}, ACL_INT32), wrong({3, 2}, ACL_FLOAT), h({2, 3}, ACL_FLOAT16);
  for (Op op : {Op::kSoftmax, Op::kLogSoftmax}) {
    ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"self", "nullptr"}, op, nullptr, nullptr, 0, o.get());
    ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"out", "nullptr"}, op, f.get(), nullptr, 0, nullptr);
    ExpectError(ACLNN_ERR_PARAM_INVALID, {"self dtype", "DOUBLE", "INT32"}, op, i32.get(), nullptr,
                0, o.get());
    ExpectError(ACLNN_ERR_PARAM_INVALID, {"out dtype", "INT32"}, op, f.get(), nullptr, 0,
                i32.get());
    ExpectError(ACLNN_ERR_PARAM_INVALID, {"dim", "[-2, 1]", "got 2"}, op, f.get(), nullptr, 2,
                o.get());
    ExpectError(ACLNN_ERR_PARAM_INVALID, {"dim", "got -3"}, op, f.get(), nullptr, -3, o.get());
    ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape", "[2, 3]", "[3, 2]"}, op, f.get(), nullptr, 0,
                wrong.get());
    ExpectError(ACLNN_SUCCESS, {}, op, d.get(), nullptr, 1, d.get());
  }
  for (Op op : {Op::kSoftmaxBackward, Op::kLogSoftmaxBackward}) {
    ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"gradOutput"}, op, nullptr, f.get(), 0, o.get());
    ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"output"}, op, f.get(), nullptr, 0, o.get());
    ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"out"}, op, f.get(), f.get(), 0, nullptr);
    ExpectError(ACLNN_ERR_PARAM_INVALID, {"gradOutput dtype", "DOUBLE"}, op, d.get(), d.get(), 0,
                o.get());
    ExpectError(ACLNN_ERR_PARAM_INVALID, {"output dtype", "FLOAT16"}, op, f.get(), h.get(), 0,
                o.get());
    ExpectError(ACLNN_ERR_PARAM_INVALID, {"out dtype", "INT32"}, op, f.get(), f.get(), 0,
                i32.get());
    ExpectError(ACLNN_ERR_PARAM_INVALID, {"dim", "got 5"}, op, f.get(), f.get(), 5, o.get());
    ExpectError(ACLNN_ERR_PARAM_INVALID, {"output shape", "[3, 2]"}, op, f.get(), wrong.get(), 0,
                o.get());
    ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape", "[3, 2]"}, op, f.get(), f.get(), 0,
                wrong.get());
  }
}

}  // namespace
}  // namespace openaclnn

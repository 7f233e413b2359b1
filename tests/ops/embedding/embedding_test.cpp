// aclnnEmbedding and aclnnEmbeddingDenseBackward through the public API: random strided views of
// every dtype against a golden computed here and against the library's float64 reference (forced
// through OPENACLNN_FORCE_IMPL), crafted exact sums (repeated indices, paddingIdx,
// scaleGradByFreq), 0-d, size-1 and empty tensors, out-of-range indices (failing at the stream's
// synchronisation as 507015 with the aclnn status 161002 in the message, nothing written), every
// documented phase-1 error with its message, bitwise identical results for 1 and 3 threads, and
// no byte written outside an output view.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_embedding_dense_backward.h"
#include "backend/cpu/thread_pool.h"
#include "util/device_tensor.h"
#include "util/runtime_fixture.h"

namespace openaclnn {
namespace {

using test::DeviceTensor;
using test::RecentError;
using test::TensorLayout;

constexpr uint64_t kNoPadding = static_cast<uint64_t>(-1);
// An operator failing on its stream: aclrtSynchronizeStream answers what a device answers for a
// failed kernel, with the operator's name, message and aclnn status in the recent message.
constexpr aclError kTaskFailed = ACL_ERROR_RT_AICORE_EXCEPTION;

aclnnStatus Finish(aclnnStatus st, uint64_t ws, aclOpExecutor* ex,
                   aclnnStatus (*phase2)(void*, uint64_t, aclOpExecutor*, const aclrtStream)) {
  if (st != ACLNN_SUCCESS) return st;
  void* workspace = nullptr;
  if (ws > 0 && aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return -1;
  st = phase2(workspace, ws, ex, nullptr);
  if (st == ACLNN_SUCCESS) st = aclrtSynchronizeStream(nullptr);
  if (workspace != nullptr) aclrtFree(workspace);
  return st;
}

aclnnStatus RunForward(const aclTensor* weight, const aclTensor* indices, const aclTensor* out) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  const aclnnStatus st = aclnnEmbeddingGetWorkspaceSize(weight, indices, out, &ws, &ex);
  return Finish(st, ws, ex, aclnnEmbedding);
}

aclnnStatus RunBackward(const aclTensor* grad, const aclTensor* indices, uint64_t num_weights,
                        uint64_t padding, bool scale, const aclTensor* out) {
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  const aclnnStatus st = aclnnEmbeddingDenseBackwardGetWorkspaceSize(grad, indices, num_weights,
                                                                     padding, scale, out, &ws, &ex);
  return Finish(st, ws, ex, aclnnEmbeddingDenseBackward);
}

// Runs `run` again with the float64 reference forced.
template <class Fn>
aclnnStatus WithReference(const char* key, Fn run) {
  setenv("OPENACLNN_FORCE_IMPL", (std::string(key) + "=reference").c_str(), 1);
  const aclnnStatus st = run();
  unsetenv("OPENACLNN_FORCE_IMPL");
  return st;
}

std::vector<int64_t> Concat(std::vector<int64_t> a, int64_t b) {
  a.push_back(b);
  return a;
}
int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
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

class EmbeddingTest : public test::RuntimeTest {};

// ---------------------------------------------------------------------------------------------
// Forward

// weight [rows, dim] of `dtype`, indices of `index_shape`; checks out element by element (exact:
// a gather copies bits) and the canaries, with the fast path and the forced reference.
void CheckForward(const std::vector<int64_t>& index_shape, int64_t rows, int64_t dim,
                  aclDataType dtype, aclDataType index_type, uint32_t seed) {
  std::mt19937 rng(seed);
  const int out_rank = static_cast<int>(index_shape.size()) + 1;
  DeviceTensor weight({rows, dim}, dtype, PickLayout(&rng, 2));
  DeviceTensor indices(index_shape, index_type,
                       PickLayout(&rng, static_cast<int>(index_shape.size())));
  const TensorLayout out_layout = PickLayout(&rng, out_rank);
  DeviceTensor out(Concat(index_shape, dim), dtype, out_layout);
  std::vector<double> w(static_cast<size_t>(rows * dim));
  for (double& v : w) {
    v = dtype == ACL_BOOL ? static_cast<double>(rng() % 2)
                          : static_cast<double>(static_cast<int>(rng() % 200) - 100) / 4.0;
    if (dtype == ACL_UINT8) v = std::fabs(std::floor(v));
    if (dtype == ACL_INT8 || dtype == ACL_INT16 || dtype == ACL_INT32 || dtype == ACL_INT64) {
      v = std::floor(v);
    }
  }
  weight.FillDouble(w);
  std::vector<double> idx(static_cast<size_t>(Product(index_shape)));
  for (double& v : idx) v = static_cast<double>(rng() % rows);
  indices.FillDouble(idx);
  const std::string what = "indices rank " + std::to_string(index_shape.size()) + " rows " +
                           std::to_string(rows) + " dim " + std::to_string(dim) + " dtype " +
                           std::to_string(dtype) + " index " + std::to_string(index_type) +
                           " out " + out_layout.name;
  for (bool reference : {false, true}) {
    out.Reset();
    const aclnnStatus st =
        reference
            ? WithReference("embedding",
                            [&] { return RunForward(weight.get(), indices.get(), out.get()); })
            : RunForward(weight.get(), indices.get(), out.get());
    ASSERT_EQ(st, ACLNN_SUCCESS) << what << " " << RecentError();
    const std::vector<double> got = out.ValuesDouble();
    int bad = 0;
    for (size_t r = 0; r < idx.size(); ++r) {
      for (int64_t j = 0; j < dim && bad < 5; ++j) {
        const double want = w[static_cast<size_t>(idx[r]) * dim + j];
        if (got[r * dim + j] != want) {
          ADD_FAILURE() << what << (reference ? " reference" : "") << " row " << r << " col " << j
                        << " got " << got[r * dim + j] << " want " << want;
          ++bad;
        }
      }
    }
    EXPECT_EQ(out.DamagedCanaries(), 0) << what;
  }
}

TEST_F(EmbeddingTest, ForwardRandomStridedViewsOfEveryDtype) {
  const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT64,
                               ACL_INT32, ACL_INT16,   ACL_INT8, ACL_UINT8,  ACL_BOOL};
  const std::vector<std::vector<int64_t>> index_shapes = {{}, {6}, {3, 4}, {2, 1, 5}, {1}};
  const int64_t tables[][2] = {{7, 5}, {1, 1}, {12, 33}, {3, 1}};
  uint32_t seed = 0;
  for (aclDataType dtype : types) {
    for (const auto& shape : index_shapes) {
      for (const auto& table : tables) {
        CheckForward(shape, table[0], table[1], dtype, seed % 2 ? ACL_INT32 : ACL_INT64, seed);
        ++seed;
      }
    }
  }
  EXPECT_EQ(seed, 200u);
}

TEST_F(EmbeddingTest, ForwardComplexRowsAreCopiedWhole) {
  // COMPLEX64 and COMPLEX128 in plain host memory (accepted on the CPU device).
  std::vector<std::complex<float>> w64 = {{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}};
  std::vector<std::complex<double>> w128(w64.begin(), w64.end());
  std::vector<int32_t> idx = {2, 0, 2};
  std::vector<std::complex<float>> o64(6);
  std::vector<std::complex<double>> o128(6);
  const int64_t wdims[] = {3, 2}, wstr[] = {2, 1}, idims[] = {3}, istr[] = {1};
  const int64_t odims[] = {3, 2}, ostr[] = {2, 1};
  aclTensor* i = aclCreateTensor(idims, 1, ACL_INT32, istr, 0, ACL_FORMAT_ND, idims, 1, idx.data());
  aclTensor* wa =
      aclCreateTensor(wdims, 2, ACL_COMPLEX64, wstr, 0, ACL_FORMAT_ND, wdims, 2, w64.data());
  aclTensor* oa =
      aclCreateTensor(odims, 2, ACL_COMPLEX64, ostr, 0, ACL_FORMAT_ND, odims, 2, o64.data());
  aclTensor* wb =
      aclCreateTensor(wdims, 2, ACL_COMPLEX128, wstr, 0, ACL_FORMAT_ND, wdims, 2, w128.data());
  aclTensor* ob =
      aclCreateTensor(odims, 2, ACL_COMPLEX128, ostr, 0, ACL_FORMAT_ND, odims, 2, o128.data());
  ASSERT_EQ(RunForward(wa, i, oa), ACLNN_SUCCESS) << RecentError();
  ASSERT_EQ(RunForward(wb, i, ob), ACLNN_SUCCESS) << RecentError();
  for (int r = 0; r < 3; ++r) {
    for (int j = 0; j < 2; ++j) {
      EXPECT_EQ(o64[r * 2 + j], w64[idx[r] * 2 + j]);
      EXPECT_EQ(o128[r * 2 + j], w128[idx[r] * 2 + j]);
    }
  }
  for (aclTensor* t : {i, wa, oa, wb, ob}) aclDestroyTensor(t);
}

TEST_F(EmbeddingTest, ForwardLargeTableAndThreadCounts) {
  DeviceTensor weight({5000, 96}, ACL_BF16), indices({300, 70}, ACL_INT64);
  DeviceTensor out({300, 70, 96}, ACL_BF16);
  std::mt19937 rng(3);
  weight.FillUniform(&rng, -2.0f, 2.0f);
  std::vector<double> idx(300 * 70);
  for (double& v : idx) v = static_cast<double>(rng() % 5000);
  indices.FillDouble(idx);
  cpu::SetNumThreads(1);
  ASSERT_EQ(RunForward(weight.get(), indices.get(), out.get()), ACLNN_SUCCESS) << RecentError();
  const std::vector<uint8_t> one = out.Bytes();
  out.Reset();
  cpu::SetNumThreads(3);
  ASSERT_EQ(RunForward(weight.get(), indices.get(), out.get()), ACLNN_SUCCESS) << RecentError();
  cpu::SetNumThreads(0);
  EXPECT_EQ(one, out.Bytes());
  const std::vector<float> w = weight.Values(), o = out.Values();
  for (size_t r = 0; r < idx.size(); r += 97) {
    for (int j = 0; j < 96; ++j) ASSERT_EQ(o[r * 96 + j], w[idx[r] * 96 + j]);
  }
}

TEST_F(EmbeddingTest, ForwardEmptyAndSizeOne) {
  DeviceTensor weight({4, 3}, ACL_FLOAT);
  weight.Fill({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  // Empty indices: out [0, 3] or [2, 0, 3]; nothing written.
  DeviceTensor e1({0}, ACL_INT64), o1({0, 3}, ACL_FLOAT);
  EXPECT_EQ(RunForward(weight.get(), e1.get(), o1.get()), ACLNN_SUCCESS) << RecentError();
  EXPECT_TRUE(o1.Untouched());
  DeviceTensor e2({2, 0}, ACL_INT32), o2({2, 0, 3}, ACL_FLOAT);
  EXPECT_EQ(RunForward(weight.get(), e2.get(), o2.get()), ACLNN_SUCCESS) << RecentError();
  EXPECT_TRUE(o2.Untouched());
  // embeddingDim 0: out is empty; the indices are not read (even an out-of-range one).
  DeviceTensor narrow({4, 0}, ACL_FLOAT), i3({2}, ACL_INT64), o3({2, 0}, ACL_FLOAT);
  i3.FillDouble({1, 99});
  EXPECT_EQ(RunForward(narrow.get(), i3.get(), o3.get()), ACLNN_SUCCESS) << RecentError();
  // 0-d indices: out is one row.
  DeviceTensor scalar({}, ACL_INT64), row({3}, ACL_FLOAT);
  scalar.FillDouble({2});
  ASSERT_EQ(RunForward(weight.get(), scalar.get(), row.get()), ACLNN_SUCCESS) << RecentError();
  EXPECT_EQ(row.Values(), (std::vector<float>{6, 7, 8}));
  // An empty table with indices: every index is out of range.
  DeviceTensor none({0, 3}, ACL_FLOAT), i4({1}, ACL_INT32), o4({1, 3}, ACL_FLOAT);
  i4.FillDouble({0});
  EXPECT_EQ(RunForward(none.get(), i4.get(), o4.get()), kTaskFailed);
  EXPECT_NE(RecentError().find("outside [0, 0)"), std::string::npos) << RecentError();
  EXPECT_TRUE(o4.Untouched());
}

TEST_F(EmbeddingTest, ForwardOutOfRangeIndicesFailAtSynchronizeAndWriteNothing) {
  DeviceTensor weight({7, 4}, ACL_FLOAT16), out({2, 3, 4}, ACL_FLOAT16);
  for (aclDataType t : {ACL_INT32, ACL_INT64}) {
    for (int64_t bad : {-1, 7, 1000000}) {
      DeviceTensor indices({2, 3}, t, TensorLayout::Permuted({1, 0}));
      indices.FillDouble({0, 6, 3, 1, static_cast<double>(bad), 2});
      out.Reset();
      EXPECT_EQ(RunForward(weight.get(), indices.get(), out.get()), kTaskFailed);
      const std::string message = RecentError();
      for (const std::string& word :
           {std::string("aclnnEmbedding"), std::string("indices element 4"),
            "is " + std::to_string(bad), std::string("outside [0, 7)"),
            std::string("aclnn status 161002")}) {
        EXPECT_NE(message.find(word), std::string::npos) << "'" << word << "' not in " << message;
      }
      EXPECT_TRUE(out.Untouched());
    }
  }
}

TEST_F(EmbeddingTest, ManyIndicesReportTheFirstBadOneForAnyThreadCount) {
  // 200000 indices read in several chunks; bad ones at 150001 and 70003: the lowest is reported.
  const int64_t n = 200000;
  DeviceTensor weight({10, 2}, ACL_FLOAT), out({n, 2}, ACL_FLOAT);
  for (aclDataType t : {ACL_INT64, ACL_INT32}) {
    DeviceTensor indices({n}, t, TensorLayout::Strided(2));
    std::vector<double> idx(n);
    for (int64_t i = 0; i < n; ++i) idx[i] = static_cast<double>(i % 10);
    idx[150001] = 10;
    idx[70003] = -4;
    indices.FillDouble(idx);
    for (int threads : {1, 3}) {
      cpu::SetNumThreads(threads);
      out.Reset();
      EXPECT_EQ(RunForward(weight.get(), indices.get(), out.get()), kTaskFailed);
      EXPECT_NE(RecentError().find("indices element 70003 is -4"), std::string::npos)
          << RecentError();
      EXPECT_TRUE(out.Untouched());
    }
    cpu::SetNumThreads(0);
  }
}

// ---------------------------------------------------------------------------------------------
// Dense backward

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

// The golden: double sums per out row, in any order.
std::vector<double> BackwardGolden(const std::vector<double>& grad, const std::vector<int64_t>& idx,
                                   int64_t num_weights, int64_t dim, int64_t padding, bool scale) {
  std::vector<double> out(static_cast<size_t>(num_weights * dim), 0.0);
  std::vector<int64_t> count(static_cast<size_t>(num_weights), 0);
  for (size_t r = 0; r < idx.size(); ++r) {
    ++count[idx[r]];
    if (idx[r] == padding) continue;
    for (int64_t j = 0; j < dim; ++j) out[idx[r] * dim + j] += grad[r * dim + j];
  }
  if (scale) {
    for (int64_t w = 0; w < num_weights; ++w) {
      for (int64_t j = 0; j < dim && count[w] > 0; ++j) out[w * dim + j] /= count[w];
    }
  }
  return out;
}

struct BackwardCase {
  std::vector<int64_t> index_shape;
  int64_t num_weights, dim;
  aclDataType dtype, index_type;
  int64_t padding;  // -1: none
  bool scale;
};

// Returns the out bytes of the fast path.
std::vector<uint8_t> CheckBackward(const BackwardCase& c, uint32_t seed, bool check_reference) {
  std::mt19937 rng(seed);
  const std::vector<int64_t> grad_shape = Concat(c.index_shape, c.dim);
  DeviceTensor grad(grad_shape, c.dtype, PickLayout(&rng, static_cast<int>(grad_shape.size())));
  DeviceTensor indices(c.index_shape, c.index_type,
                       PickLayout(&rng, static_cast<int>(c.index_shape.size())));
  const TensorLayout out_layout = PickLayout(&rng, 2);
  DeviceTensor out({c.num_weights, c.dim}, c.dtype, out_layout);
  const std::vector<double> g = grad.FillUniform(&rng, -1.0f, 1.0f);
  const int64_t n = Product(c.index_shape);
  std::vector<int64_t> idx(static_cast<size_t>(n));
  std::vector<double> stored(static_cast<size_t>(n));
  // Few distinct values: many repeats. BOOL indices hold 0 or 1; floating ones a fraction that
  // truncates to the index.
  const int64_t range = c.index_type == ACL_BOOL ? std::min<int64_t>(2, c.num_weights)
                                                 : std::max<int64_t>(1, c.num_weights / 2);
  const bool floating =
      c.index_type == ACL_FLOAT || c.index_type == ACL_FLOAT16 || c.index_type == ACL_DOUBLE;
  for (int64_t r = 0; r < n; ++r) {
    idx[r] = static_cast<int64_t>(rng() % range);
    stored[r] = static_cast<double>(idx[r]) + (floating ? 0.25 : 0.0);
  }
  indices.FillDouble(stored);
  const uint64_t padding = c.padding < 0 ? kNoPadding : static_cast<uint64_t>(c.padding);
  const std::vector<double> golden =
      BackwardGolden(g, idx, c.num_weights, c.dim, c.padding, c.scale);
  const std::string what = "indices rank " + std::to_string(c.index_shape.size()) + " W " +
                           std::to_string(c.num_weights) + " D " + std::to_string(c.dim) +
                           " dtype " + std::to_string(c.dtype) + " index " +
                           std::to_string(c.index_type) + " padding " + std::to_string(c.padding) +
                           " scale " + std::to_string(c.scale) + " out " + out_layout.name;
  std::vector<uint8_t> bytes;
  for (bool reference : {false, true}) {
    if (reference && !check_reference) break;
    out.Reset();
    auto run = [&] {
      return RunBackward(grad.get(), indices.get(), static_cast<uint64_t>(c.num_weights), padding,
                         c.scale, out.get());
    };
    const aclnnStatus st = reference ? WithReference("embedding_dense_backward", run) : run();
    EXPECT_EQ(st, ACLNN_SUCCESS) << what << " " << RecentError();
    const std::vector<double> got = out.ValuesDouble();
    const double tol = Tolerance(c.dtype);
    int bad = 0;
    for (size_t i = 0; i < got.size() && bad < 5; ++i) {
      if (!(std::fabs(got[i] - golden[i]) <= tol * (1.0 + std::fabs(golden[i])))) {
        ADD_FAILURE() << what << (reference ? " reference" : "") << " element " << i << " got "
                      << got[i] << " want " << golden[i];
        ++bad;
      }
    }
    EXPECT_EQ(out.DamagedCanaries(), 0) << what;
    if (!reference) bytes = out.Bytes();
  }
  return bytes;
}

TEST_F(EmbeddingTest, BackwardRandomStridedViewsMatchGolden) {
  const aclDataType types[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
  const aclDataType index_types[] = {ACL_INT64, ACL_INT32, ACL_INT16,   ACL_INT8,  ACL_UINT8,
                                     ACL_BOOL,  ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE};
  const std::vector<std::vector<int64_t>> shapes = {{}, {9}, {4, 5}, {2, 1, 7}, {1}};
  const int64_t tables[][2] = {{6, 5}, {1, 1}, {20, 33}, {3, 1}};
  std::mt19937 pick(11);
  uint32_t seed = 0;
  for (const auto& shape : shapes) {
    for (const auto& table : tables) {
      for (aclDataType index_type : index_types) {
        const aclDataType dtype = types[pick() % 3];
        const int64_t padding = pick() % 3 == 0 ? -1 : static_cast<int64_t>(pick() % table[0]);
        CheckBackward({shape, table[0], table[1], dtype, index_type, padding, pick() % 2 == 0},
                      seed, true);
        ++seed;
      }
    }
  }
  EXPECT_EQ(seed, 180u);
}

TEST_F(EmbeddingTest, BackwardCraftedExactSums) {
  // indices [1, 3, 1, 1, 0, 3]: row 1 sums grad rows 0, 2, 3; row 3 rows 1, 5; row 0 row 4;
  // row 2 nothing.
  DeviceTensor grad({2, 3, 2}, ACL_FLOAT), indices({2, 3}, ACL_INT64), out({4, 2}, ACL_FLOAT);
  grad.Fill({1, 2, 10, 20, 100, 200, 1000, 2000, 5, 6, 7, 8});
  indices.FillDouble({1, 3, 1, 1, 0, 3});
  ASSERT_EQ(RunBackward(grad.get(), indices.get(), 4, kNoPadding, false, out.get()), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_EQ(out.Values(), (std::vector<float>{5, 6, 1101, 2202, 0, 0, 17, 28}));
  // scaleGradByFreq divides by the count of each index.
  ASSERT_EQ(RunBackward(grad.get(), indices.get(), 4, kNoPadding, true, out.get()), ACLNN_SUCCESS);
  EXPECT_EQ(out.Values(), (std::vector<float>{5, 6, 367, 734, 0, 0, 8.5f, 14}));
  // paddingIdx 1: its row stays zero; the others are unchanged.
  ASSERT_EQ(RunBackward(grad.get(), indices.get(), 4, 1, false, out.get()), ACLNN_SUCCESS);
  EXPECT_EQ(out.Values(), (std::vector<float>{5, 6, 0, 0, 0, 0, 17, 28}));
  // A paddingIdx past the table (or a negative one passed as uint64_t) changes nothing.
  ASSERT_EQ(RunBackward(grad.get(), indices.get(), 4, 4, false, out.get()), ACLNN_SUCCESS);
  EXPECT_EQ(out.Values(), (std::vector<float>{5, 6, 1101, 2202, 0, 0, 17, 28}));
  ASSERT_EQ(RunBackward(grad.get(), indices.get(), 4, static_cast<uint64_t>(-5), false, out.get()),
            ACLNN_SUCCESS);
  EXPECT_EQ(out.Values(), (std::vector<float>{5, 6, 1101, 2202, 0, 0, 17, 28}));
  // More rows than indices reach: the tail rows are zero.
  DeviceTensor wide({6, 2}, ACL_BF16), g16({2, 3, 2}, ACL_BF16);
  g16.Fill({1, 2, 10, 20, 100, 200, 1000, 2000, 5, 6, 7, 8});
  ASSERT_EQ(RunBackward(g16.get(), indices.get(), 6, kNoPadding, false, wide.get()), ACLNN_SUCCESS);
  EXPECT_EQ(wide.Values(), (std::vector<float>{5, 6, 1104, 2208, 0, 0, 17, 28, 0, 0, 0, 0}));
  // Floating indices truncate toward zero: 2.9 -> 2, 0.5 -> 0, -0.5 -> 0.
  DeviceTensor fi({3}, ACL_FLOAT), g3({3, 1}, ACL_FLOAT), o3({3, 1}, ACL_FLOAT);
  fi.FillDouble({2.9, 0.5, -0.5});
  g3.Fill({1, 2, 4});
  ASSERT_EQ(RunBackward(g3.get(), fi.get(), 3, kNoPadding, false, o3.get()), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_EQ(o3.Values(), (std::vector<float>{6, 0, 1}));
}

TEST_F(EmbeddingTest, BackwardEmptyAndSizeOne) {
  // No indices: out is all zeros.
  DeviceTensor grad({0, 3}, ACL_FLOAT), indices({0}, ACL_INT64), out({4, 3}, ACL_FLOAT);
  ASSERT_EQ(RunBackward(grad.get(), indices.get(), 4, kNoPadding, true, out.get()), ACLNN_SUCCESS)
      << RecentError();
  for (float v : out.Values()) EXPECT_EQ(v, 0.0f);
  EXPECT_EQ(out.DamagedCanaries(), 0);
  // numWeights 0 or embeddingDim 0: out is empty, nothing read or written.
  DeviceTensor g1({2, 3}, ACL_FLOAT), i1({2}, ACL_INT32), o1({0, 3}, ACL_FLOAT);
  i1.FillDouble({5, 6});
  EXPECT_EQ(RunBackward(g1.get(), i1.get(), 0, kNoPadding, false, o1.get()), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_TRUE(o1.Untouched());
  DeviceTensor g2({2, 0}, ACL_FLOAT), i2({5}, ACL_INT32), o2({3, 0}, ACL_FLOAT);
  EXPECT_EQ(RunBackward(g2.get(), i2.get(), 3, kNoPadding, false, o2.get()), ACLNN_SUCCESS)
      << RecentError();
  // 0-d indices with a 1-D grad: one row.
  DeviceTensor g3({2}, ACL_FLOAT16), i3({}, ACL_INT64), o3({3, 2}, ACL_FLOAT16);
  g3.Fill({1.5f, -2});
  i3.FillDouble({2});
  ASSERT_EQ(RunBackward(g3.get(), i3.get(), 3, kNoPadding, true, o3.get()), ACLNN_SUCCESS)
      << RecentError();
  EXPECT_EQ(o3.Values(), (std::vector<float>{0, 0, 0, 0, 1.5f, -2}));
}

TEST_F(EmbeddingTest, BackwardOutOfRangeIndicesFailAtSynchronizeAndWriteNothing) {
  DeviceTensor grad({4, 2}, ACL_FLOAT), out({5, 2}, ACL_FLOAT);
  struct Bad {
    aclDataType type;
    double value;
    const char* shown;
  };
  const Bad cases[] = {{ACL_INT64, -1, "is -1"},         {ACL_INT32, 5, "is 5"},
                       {ACL_INT8, -3, "is -3"},          {ACL_FLOAT, 5.5, "is 5.5"},
                       {ACL_FLOAT, NAN, "is nan"},       {ACL_DOUBLE, -1.5, "is -1.5"},
                       {ACL_FLOAT16, INFINITY, "is inf"}};
  for (const Bad& b : cases) {
    DeviceTensor indices({4}, b.type, TensorLayout::Strided(3, 1));
    indices.FillDouble({0, 4, b.value, 1});
    out.Reset();
    for (bool scale : {false, true}) {
      EXPECT_EQ(RunBackward(grad.get(), indices.get(), 5, kNoPadding, scale, out.get()),
                kTaskFailed);
      const std::string message = RecentError();
      for (const char* word :
           {"aclnnEmbeddingDenseBackward", "indices element 2", b.shown, "outside [0, 5)"}) {
        EXPECT_NE(message.find(word), std::string::npos) << "'" << word << "' not in " << message;
      }
      EXPECT_TRUE(out.Untouched());
    }
  }
}

TEST_F(EmbeddingTest, BackwardBitwiseIdenticalForAnyThreadCount) {
  // Many grad rows per index (long fp32 sums) and many out rows: 1 and 6 chunks of 512 rows
  // (each chunk scans the indices), and 79 chunks (the counting-sort path). With 40000 indices
  // for 37 or 3000 out rows, the split path (4 ranges of positions, each with its own table copy).
  const std::vector<int64_t> index_shapes[] = {{60, 70}, {400, 100}};
  for (aclDataType dtype : {ACL_FLOAT, ACL_BF16}) {
    for (const auto& shape : index_shapes) {
      for (int64_t num_weights : {int64_t{37}, int64_t{3000}, int64_t{40000}}) {
        const BackwardCase c{shape, num_weights, 64, dtype, ACL_INT32, 5, true};
        cpu::SetNumThreads(1);
        const std::vector<uint8_t> one = CheckBackward(c, 9, false);
        cpu::SetNumThreads(3);
        const std::vector<uint8_t> three = CheckBackward(c, 9, false);
        cpu::SetNumThreads(0);
        EXPECT_EQ(one, three) << "numWeights " << num_weights << " indices " << shape[0] << " x "
                              << shape[1];
      }
    }
  }
}

TEST_F(EmbeddingTest, NegativeStridesBothDirections) {
  // weight rows reversed, indices walked backwards, out with both strides negative.
  DeviceTensor weight({5, 3}, ACL_FLOAT, TensorLayout::Explicit({-3, 1}, 12));
  DeviceTensor indices({4}, ACL_INT64, TensorLayout::Explicit({-2}, 6));
  DeviceTensor out({4, 3}, ACL_FLOAT, TensorLayout::Explicit({-3, -1}, 11));
  weight.Fill({0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32, 40, 41, 42});
  indices.FillDouble({4, 1, 1, 0});
  ASSERT_EQ(RunForward(weight.get(), indices.get(), out.get()), ACLNN_SUCCESS) << RecentError();
  EXPECT_EQ(out.Values(), (std::vector<float>{40, 41, 42, 10, 11, 12, 10, 11, 12, 0, 1, 2}));
  EXPECT_EQ(out.DamagedCanaries(), 0);
  // Backward: grad with a negative row stride, out (the table) with negative strides.
  DeviceTensor grad({4, 3}, ACL_BF16, TensorLayout::Explicit({-3, 1}, 9));
  DeviceTensor table({5, 3}, ACL_BF16, TensorLayout::Explicit({-3, -1}, 14));
  grad.Fill({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  ASSERT_EQ(RunBackward(grad.get(), indices.get(), 5, kNoPadding, false, table.get()),
            ACLNN_SUCCESS)
      << RecentError();
  EXPECT_EQ(table.Values(),
            (std::vector<float>{10, 11, 12, 11, 13, 15, 0, 0, 0, 0, 0, 0, 1, 2, 3}));
  EXPECT_EQ(table.DamagedCanaries(), 0);
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

TEST_F(EmbeddingTest, ForwardDocumentedErrors) {
  DeviceTensor w({5, 3}, ACL_FLOAT), i({4}, ACL_INT64), o({4, 3}, ACL_FLOAT);
  DeviceTensor w16({5, 3}, ACL_FLOAT16), wu16({5, 3}, ACL_UINT16), if32({4}, ACL_FLOAT);
  DeviceTensor w3({5, 3, 1}, ACL_FLOAT), w1({5}, ACL_FLOAT), o_bad({4, 2}, ACL_FLOAT);
  DeviceTensor o_rank({4}, ACL_FLOAT), o_lead({3, 3}, ACL_FLOAT);
  DeviceTensor nine({1, 1, 1, 1, 1, 1, 1, 1, 1}, ACL_INT64);
  auto fwd = [](const aclTensor* a, const aclTensor* b, const aclTensor* c) {
    return [=](uint64_t* ws, aclOpExecutor** ex) {
      return aclnnEmbeddingGetWorkspaceSize(a, b, c, ws, ex);
    };
  };
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"weight", "nullptr"}, fwd(nullptr, i.get(), o.get()));
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"indices", "nullptr"}, fwd(w.get(), nullptr, o.get()));
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"out", "nullptr"}, fwd(w.get(), i.get(), nullptr));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"weight dtype", "COMPLEX128", "UINT16"},
              fwd(wu16.get(), i.get(), o.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out dtype", "weight dtype FLOAT16", "got FLOAT"},
              fwd(w16.get(), i.get(), o.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"indices dtype", "INT32, INT64", "got FLOAT"},
              fwd(w.get(), if32.get(), o.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"indices rank", "at most 8", "got 9"},
              fwd(w.get(), nine.get(), o.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"weight must be 2-D", "[5, 3, 1]"},
              fwd(w3.get(), i.get(), o.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"weight must be 2-D", "[5]"},
              fwd(w1.get(), i.get(), o.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape", "[4, 3]", "got [4, 2]"},
              fwd(w.get(), i.get(), o_bad.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape", "[4, 3]", "got [4]"},
              fwd(w.get(), i.get(), o_rank.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape", "[4, 3]", "got [3, 3]"},
              fwd(w.get(), i.get(), o_lead.get()));
  ExpectError(ACLNN_SUCCESS, {}, fwd(w.get(), i.get(), o.get()));
}

TEST_F(EmbeddingTest, BackwardDocumentedErrors) {
  DeviceTensor g({2, 3, 4}, ACL_FLOAT), i({2, 3}, ACL_INT64), o({7, 4}, ACL_FLOAT);
  DeviceTensor gd({2, 3, 4}, ACL_DOUBLE), iu16({2, 3}, ACL_UINT16), o16({7, 4}, ACL_FLOAT16);
  DeviceTensor i_bad({5}, ACL_INT32), g0({}, ACL_FLOAT), o_bad({7, 5}, ACL_FLOAT);
  DeviceTensor o3({7, 4, 1}, ACL_FLOAT);
  DeviceTensor nine({1, 1, 1, 1, 1, 1, 1, 1, 1}, ACL_FLOAT);
  auto bwd = [](const aclTensor* a, const aclTensor* b, uint64_t n, const aclTensor* c) {
    return [=](uint64_t* ws, aclOpExecutor** ex) {
      return aclnnEmbeddingDenseBackwardGetWorkspaceSize(a, b, n, kNoPadding, false, c, ws, ex);
    };
  };
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"grad", "nullptr"}, bwd(nullptr, i.get(), 7, o.get()));
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"indices", "nullptr"}, bwd(g.get(), nullptr, 7, o.get()));
  ExpectError(ACLNN_ERR_PARAM_NULLPTR, {"out", "nullptr"}, bwd(g.get(), i.get(), 7, nullptr));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"grad dtype", "BFLOAT16", "got DOUBLE"},
              bwd(gd.get(), i.get(), 7, o.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"indices dtype", "BOOL", "got UINT16"},
              bwd(g.get(), iu16.get(), 7, o.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out dtype", "grad dtype FLOAT", "got FLOAT16"},
              bwd(g.get(), i.get(), 7, o16.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"grad rank", "at most 8", "got 9"},
              bwd(nine.get(), i.get(), 7, o.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"grad must have at least 1 dim", "[]"},
              bwd(g0.get(), i.get(), 7, o.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID,
              {"grad shape [2, 3, 4]", "indices shape [5]", "6 rows", "5 elements"},
              bwd(g.get(), i_bad.get(), 7, o.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape", "[7, 4]", "got [7, 5]"},
              bwd(g.get(), i.get(), 7, o_bad.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape", "[8, 4]", "numWeights", "got [7, 4]"},
              bwd(g.get(), i.get(), 8, o.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"out shape", "got [7, 4, 1]"},
              bwd(g.get(), i.get(), 7, o3.get()));
  ExpectError(ACLNN_ERR_PARAM_INVALID, {"numWeights", "at most"},
              bwd(g.get(), i.get(), uint64_t{1} << 62, o.get()));
  ExpectError(ACLNN_SUCCESS, {}, bwd(g.get(), i.get(), 7, o.get()));
}

}  // namespace
}  // namespace openaclnn

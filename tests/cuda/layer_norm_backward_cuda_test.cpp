// aclnnLayerNormBackward on a CUDA device through the cuda_rows plan: every output element
// against the float64 reference fed the same rounded inputs (decision D9's mixed tolerance), over
// row lengths that reach every kernel of the N table, row counts up to 8192, each dtype, mixed
// dtypes, every output mask, no weight, strided views of every tensor, empty tensors, and bitwise
// repeatability. Storage outside the views holds a NaN guard: stray reads poison results, stray
// writes are detected, and the inputs must come back unchanged. Skips without a GPU.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "api/dtype.h"
#include "ops/layer_norm_backward/lnb_layouts.h"
#include "ops/layer_norm_backward/reference.h"
#include "util/cuda_fixture.h"
#include "util/device_tensor.h"
#include "util/precision.h"

namespace openaclnn::test {
namespace {

constexpr aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

using lnb_test::Layout;
using lnb_test::LayoutName;
constexpr Layout kLayouts[] = {Layout::kContiguous, Layout::kTransposedLead, Layout::kPaddedAligned,
                               Layout::kPaddedRows, Layout::kOffset,         Layout::kStrided};

// A view in its own aclrtMalloc block: dims [0, begin) are the leading dims, the others form the
// row. Every byte outside the view holds the NaN canary, and 5 spare elements follow the view.
TensorLayout GpuLayout(Layout layout, const std::vector<int64_t>& shape, int begin) {
  return lnb_test::RowLayout(layout, shape, begin).WithTail(5).WithNanCanary();
}
DeviceTensor GpuTensor(std::vector<int64_t> shape, aclDataType dtype, int begin, Layout layout) {
  const TensorLayout view = GpuLayout(layout, shape, begin);
  return DeviceTensor(std::move(shape), dtype, view);
}

enum WeightKind { kNoWeight, kFloatWeight, kSameWeight };

struct Case {
  std::vector<int64_t> lead;  // input = lead + norm
  std::vector<int64_t> norm;
  aclDataType in = ACL_FLOAT;
  WeightKind weight = kSameWeight;
  bool strided_weight = false;
  aclDataType stat = ACL_FLOAT;
  bool mask[3] = {true, true, true};
  aclDataType out[3] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT};
  Layout dy_layout = Layout::kContiguous;
  Layout x_layout = Layout::kContiguous;
  Layout dx_layout = Layout::kContiguous;
  bool strided_params = false;  // gradWeight/gradBias as strided normalizedShape views
  bool flat_stats = false;      // mean/rstd as strided [M] views instead of [lead..., 1...]
  bool unmasked_given = false;  // pass tensors for unmasked outputs; they must stay untouched
  uint32_t seed = 1;

  int64_t M() const {
    int64_t m = 1;
    for (int64_t d : lead) m *= d;
    return m;
  }
  int64_t N() const {
    int64_t n = 1;
    for (int64_t d : norm) n *= d;
    return n;
  }
  std::string Name() const {
    auto dims = [](const std::vector<int64_t>& v) {
      std::string s = "[";
      for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
      return s + "]";
    };
    return "lead=" + dims(lead) + " norm=" + dims(norm) + " in=" + DTypeName(in) +
           " weight=" + std::to_string(weight) + (strided_weight ? "(strided)" : "") +
           " stat=" + DTypeName(stat) + " mask=" + std::to_string(mask[0]) +
           std::to_string(mask[1]) + std::to_string(mask[2]) + " out=" + DTypeName(out[0]) + "/" +
           DTypeName(out[1]) + "/" + DTypeName(out[2]) + " layouts=" + LayoutName(dy_layout) + "/" +
           LayoutName(x_layout) + "/" + LayoutName(dx_layout) +
           (strided_params ? " strided-params" : "") + (flat_stats ? " flat-stats" : "");
  }
};

// A case with input [m, n] (m split as [3, m / 3] when divisible, for a multi-dim lead).
Case Shaped(int64_t m, int64_t n, aclDataType in) {
  Case c;
  c.lead = m % 3 == 0 && m > 3 ? std::vector<int64_t>{3, m / 3} : std::vector<int64_t>{m};
  c.norm = {n};
  c.in = in;
  c.stat = in;
  for (aclDataType& o : c.out) o = in;
  return c;
}

struct Outcome {
  std::string failure;                      // "" when every check passed
  std::vector<std::vector<uint8_t>> bytes;  // the output blocks after each run
};

// Runs `c` `runs` times through the public API (outputs reset to the guard before each run) and
// checks the first run against the float64 reference; later runs must match it bit for bit.
Outcome RunCase(const Case& c, aclrtStream stream, int runs = 1) {
  Outcome result;
  const int64_t m = c.M();
  const int64_t n = c.N();
  const int begin = static_cast<int>(c.lead.size());
  std::vector<int64_t> shape = c.lead;
  shape.insert(shape.end(), c.norm.begin(), c.norm.end());
  std::vector<int64_t> stat_shape;
  if (c.flat_stats) {
    stat_shape = {m};
  } else {
    stat_shape = c.lead;
    stat_shape.resize(shape.size(), 1);
  }
  std::mt19937 rng(c.seed);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  DeviceTensor dy = GpuTensor(shape, c.in, begin, c.dy_layout);
  DeviceTensor x = GpuTensor(shape, c.in, begin, c.x_layout);
  DeviceTensor mean =
      GpuTensor(stat_shape, c.stat, 0, c.flat_stats ? Layout::kStrided : Layout::kContiguous);
  DeviceTensor rstd = GpuTensor(stat_shape, c.stat, 0, Layout::kContiguous);
  // Every value is drawn on the host and uploaded in one copy per tensor (the same draws, in the
  // same order, as element by element), then read back as stored (rounded to the dtype).
  std::vector<float> dy_drawn(static_cast<size_t>(m * n)), x_drawn(static_cast<size_t>(m * n));
  for (float& v : dy_drawn) v = unit(rng);
  for (int64_t r = 0; r < m; ++r) {
    // A per-row shift, so |mean| is not small next to the spread.
    const float shift = 0.5f * static_cast<float>(r % 7) - 1.5f;
    for (int64_t k = 0; k < n; ++k) x_drawn[r * n + k] = 2.0f * unit(rng) + shift;
  }
  dy.Fill(dy_drawn);
  x.Fill(x_drawn);
  const std::vector<double> dy_v = dy.ValuesDouble(), x_v = x.ValuesDouble();
  std::vector<float> mean_drawn(static_cast<size_t>(m)), rstd_drawn(static_cast<size_t>(m));
  for (int64_t r = 0; r < m; ++r) {
    double sum = 0, sq = 0;
    for (int64_t k = 0; k < n; ++k) sum += x_v[r * n + k];
    const double mu = n > 0 ? sum / static_cast<double>(n) : 0.0;
    for (int64_t k = 0; k < n; ++k) sq += (x_v[r * n + k] - mu) * (x_v[r * n + k] - mu);
    const double var = n > 0 ? sq / static_cast<double>(n) : 0.0;
    // N == 1: a mean away from x; gradInput and gradWeight must still be exactly 0.
    mean_drawn[r] = static_cast<float>(n == 1 ? mu + 0.75 : mu);
    rstd_drawn[r] = static_cast<float>(1.0 / std::sqrt(var + 1e-5));
  }
  mean.Fill(mean_drawn);
  rstd.Fill(rstd_drawn);
  const std::vector<double> mean_v = mean.ValuesDouble(), rstd_v = rstd.ValuesDouble();
  std::unique_ptr<DeviceTensor> w, bias;
  std::vector<double> w_v;
  if (c.weight != kNoWeight) {
    const Layout wl = c.strided_weight ? Layout::kStrided : Layout::kContiguous;
    w = std::make_unique<DeviceTensor>(c.norm, c.weight == kFloatWeight ? ACL_FLOAT : c.in,
                                       GpuLayout(wl, c.norm, 0));
    std::vector<float> w_drawn(static_cast<size_t>(n));
    for (float& v : w_drawn) v = 1.5f * unit(rng);
    w->Fill(w_drawn);
    w_v = w->ValuesDouble();
  }
  if (c.seed % 2 == 0) {  // a bias is validated, never read
    bias =
        std::make_unique<DeviceTensor>(c.norm, ACL_BF16, GpuLayout(Layout::kContiguous, c.norm, 0));
  }
  // The inputs as uploaded: they must come back unchanged.
  const std::vector<uint8_t> inputs_before[4] = {dy.Bytes(), x.Bytes(), mean.Bytes(), rstd.Bytes()};
  const std::vector<uint8_t> w_before = w ? w->Bytes() : std::vector<uint8_t>();
  std::unique_ptr<DeviceTensor> outs[3];
  for (int i = 0; i < 3; ++i) {
    if (!c.mask[i] && !c.unmasked_given) continue;
    std::vector<int64_t> out_shape = i == 0             ? shape
                                     : c.strided_params ? c.norm
                                                        : std::vector<int64_t>{n};
    const Layout ol = i == 0             ? c.dx_layout
                      : c.strided_params ? Layout::kStrided
                                         : Layout::kContiguous;
    const int out_begin = i == 0 ? begin : 0;
    outs[i] =
        std::make_unique<DeviceTensor>(out_shape, c.out[i], GpuLayout(ol, out_shape, out_begin));
  }

  aclIntArray* norm_array = aclCreateIntArray(c.norm.data(), c.norm.size());
  aclBoolArray* mask_array = aclCreateBoolArray(c.mask, 3);
  for (int run = 0; run < runs && result.failure.empty(); ++run) {
    for (auto& o : outs) {
      if (o) o->Reset();
    }
    uint64_t ws = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status = aclnnLayerNormBackwardGetWorkspaceSize(
        dy.get(), x.get(), norm_array, mean.get(), rstd.get(), w ? w->get() : nullptr,
        bias ? bias->get() : nullptr, mask_array, outs[0] ? outs[0]->get() : nullptr,
        outs[1] ? outs[1]->get() : nullptr, outs[2] ? outs[2]->get() : nullptr, &ws, &executor);
    void* workspace = nullptr;
    if (status == ACLNN_SUCCESS && ws > 0 &&
        aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
      status = ACLNN_ERR_INNER;
    }
    if (status == ACLNN_SUCCESS) {
      // The workspace starts as NaN garbage: the plan must not read what it did not write.
      if (workspace != nullptr) aclrtMemset(workspace, ws, kNanCanaryByte, ws);
      status = aclnnLayerNormBackward(workspace, ws, executor, stream);
    }
    if (status == ACLNN_SUCCESS) status = aclrtSynchronizeStream(stream);
    if (workspace != nullptr) aclrtFree(workspace);
    if (status != ACLNN_SUCCESS) {
      result.failure = "run " + std::to_string(run) + ": status " + std::to_string(status) + ": " +
                       RecentError();
      break;
    }
    std::vector<uint8_t> all;
    for (auto& o : outs) {
      const std::vector<uint8_t> bytes = o ? o->Bytes() : std::vector<uint8_t>();
      all.insert(all.end(), bytes.begin(), bytes.end());
    }
    result.bytes.push_back(std::move(all));
    if (run > 0 && result.bytes[run] != result.bytes[0]) {
      result.failure += "run " + std::to_string(run) + " differs from run 0 bitwise; ";
    }
  }
  aclDestroyIntArray(norm_array);
  aclDestroyBoolArray(mask_array);
  if (!result.failure.empty()) return result;

  // Float64 golden from the same rounded inputs.
  std::vector<double> g_dx(static_cast<size_t>(m * n), 0.0), g_gw(static_cast<size_t>(n), 0.0),
      g_gb(static_cast<size_t>(n), 0.0), acc_w(static_cast<size_t>(n)),
      acc_b(static_cast<size_t>(n));
  layer_norm_backward::ReferenceLayerNormBackward(
      m, n, c.mask, [&](int64_t r, int64_t k) { return dy_v[r * n + k]; },
      [&](int64_t r, int64_t k) { return x_v[r * n + k]; }, [&](int64_t r) { return mean_v[r]; },
      [&](int64_t r) { return rstd_v[r]; }, [&](int64_t k) { return w_v.empty() ? 1.0 : w_v[k]; },
      [&](int64_t r, int64_t k, double v) { g_dx[r * n + k] = v; },
      [&](int64_t k, double v) { g_gw[k] = v; }, [&](int64_t k, double v) { g_gb[k] = v; },
      acc_w.data(), acc_b.data());
  const std::vector<double>* golden[3] = {&g_dx, &g_gw, &g_gb};
  const char* names[3] = {"gradInput", "gradWeight", "gradBias"};
  for (int i = 0; i < 3; ++i) {
    if (!outs[i]) continue;
    if (!c.mask[i]) {
      if (!outs[i]->Untouched()) result.failure += std::string(names[i]) + " written; ";
      continue;
    }
    const std::vector<float> got = outs[i]->Values();
    const std::string err =
        CheckMixedTolerance(c.out[i], got.data(), golden[i]->data(), outs[i]->numel(), names[i]);
    if (!err.empty()) result.failure += err + "; ";
    if (outs[i]->DamagedCanaries() != 0)
      result.failure += std::string(names[i]) + " gaps written; ";
    if (n == 1 && i < 2) {
      for (float v : got) {
        if (v != 0.0f || std::signbit(v)) {
          result.failure += std::string(names[i]) + " of N == 1 is not exactly +0; ";
          break;
        }
      }
    }
  }
  const DeviceTensor* inputs[4] = {&dy, &x, &mean, &rstd};
  const char* input_names[4] = {"gradOut", "input", "mean", "rstd"};
  for (int i = 0; i < 4; ++i) {
    if (inputs[i]->Bytes() != inputs_before[i])
      result.failure += std::string(input_names[i]) + " changed; ";
  }
  if (w && w->Bytes() != w_before) result.failure += "weight changed; ";
  return result;
}

class LayerNormBackwardCudaTest : public CudaTest {
 protected:
  void SetUp() override {
    CudaTest::SetUp();
    if (IsSkipped()) return;
    // The CUDA plan itself, never a fallback: phase 1 fails if it declines.
    setenv("OPENACLNN_FORCE_IMPL", "layer_norm_backward=cuda_rows", 1);
  }
  void TearDown() override {
    if (!IsSkipped()) {
      unsetenv("OPENACLNN_FORCE_IMPL");
      aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0);
    }
    CudaTest::TearDown();
  }
  void Expect(const Case& c) { EXPECT_EQ(RunCase(c, stream()).failure, "") << c.Name(); }
};

// Row lengths that reach every kernel of the N table (several rows per warp, a warp per row, a
// CTA per row in registers, the streamed kernel with partials in shared memory and in the
// workspace), with one, a few and many rows, in each dtype.
TEST_F(LayerNormBackwardCudaTest, RowLengthsAndRowCountsEachDtype) {
  const int64_t ns[] = {1, 7, 32, 100, 768, 1024, 4096, 12288, 65536};
  uint32_t seed = 1;
  for (aclDataType in : kDtypes) {
    for (int64_t n : ns) {
      // Many rows: up to 8192, about 2M elements at most.
      const int64_t many = std::clamp<int64_t>((int64_t{1} << 21) / n, 3, 8192);
      for (int64_t m : {int64_t{1}, int64_t{37}, many}) {
        Case c = Shaped(m, n, in);
        c.seed = seed++;
        Expect(c);
      }
    }
  }
}

// The largest row counts: 8192 rows, 256 chunks of partials.
TEST_F(LayerNormBackwardCudaTest, ManyRows) {
  uint32_t seed = 50;
  for (aclDataType in : kDtypes) {
    for (int64_t n : {int64_t{32}, int64_t{1024}}) {
      Case c = Shaped(8192, n, in);
      c.weight = kFloatWeight;
      c.seed = seed++;
      Expect(c);
    }
  }
}

// Every combination the checker lets through: weight none, FLOAT or the input dtype; mean/rstd
// and each output in any dtype.
TEST_F(LayerNormBackwardCudaTest, MixedDtypes) {
  int k = 0;
  for (int64_t n : {int64_t{100}, int64_t{768}, int64_t{12288}}) {
    for (aclDataType in : kDtypes) {
      for (WeightKind weight : {kNoWeight, kFloatWeight, kSameWeight}) {
        for (aclDataType stat : kDtypes) {
          Case c = Shaped(n > 1000 ? 6 : 33, n, in);
          c.weight = weight;
          c.stat = stat;
          for (int i = 0; i < 3; ++i) c.out[i] = kDtypes[(k + i) % 3];
          c.seed = 100 + k++;
          Expect(c);
        }
      }
    }
  }
}

// Every non-empty output mask, with the unmasked outputs passed in and left untouched.
TEST_F(LayerNormBackwardCudaTest, EveryMask) {
  int k = 0;
  for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{768}, int64_t{12288}}) {
    for (int mask = 1; mask < 8; ++mask) {
      Case c = Shaped(n > 1000 ? 5 : 300, n, kDtypes[k % 3]);
      for (int i = 0; i < 3; ++i) c.mask[i] = (mask >> i) & 1;
      c.unmasked_given = k % 2 == 0;
      c.weight = static_cast<WeightKind>(k % 3);
      c.seed = 200 + k++;
      Expect(c);
    }
  }
}

TEST_F(LayerNormBackwardCudaTest, NoWeight) {
  int k = 0;
  for (int64_t n : {int64_t{7}, int64_t{1024}, int64_t{65536}}) {
    for (aclDataType in : kDtypes) {
      Case c = Shaped(n > 1024 ? 4 : 65, n, in);
      c.weight = kNoWeight;
      c.seed = 300 + k++;
      Expect(c);
    }
  }
}

// Non-contiguous views: every layout for gradOut, input and gradInput (rows padded aligned and
// misaligned, offset, transposed leading dims, element stride 2), strided weight, gradWeight,
// gradBias and mean/rstd, and several normalised dims.
TEST_F(LayerNormBackwardCudaTest, StridedViews) {
  int k = 0;
  for (int64_t n :
       {int64_t{1}, int64_t{7}, int64_t{100}, int64_t{768}, int64_t{4096}, int64_t{12288}}) {
    for (Layout layout : kLayouts) {
      Case c = Shaped(n > 1000 ? 6 : 45, n, kDtypes[k % 3]);
      if (n % 4 == 0 && k % 2 == 1) c.norm = {4, n / 4};
      c.dy_layout = layout;
      c.x_layout = kLayouts[(k + 1) % 6];
      c.dx_layout = kLayouts[(k + 2) % 6];
      c.weight = static_cast<WeightKind>(1 + k % 2);
      c.strided_weight = k % 2 == 0;
      c.strided_params = k % 2 == 1;
      c.flat_stats = k % 3 == 0;
      c.stat = kDtypes[(k + 1) % 3];
      for (int i = 0; i < 3; ++i) c.out[i] = kDtypes[(k + 2 * i) % 3];
      c.seed = 400 + k++;
      Expect(c);
    }
  }
  // The same layout for all three, so the rows are contiguous but not adjacent (padded) or not
  // contiguous at all (strided) in every tensor at once.
  for (Layout layout : kLayouts) {
    for (int64_t n : {int64_t{64}, int64_t{2048}}) {
      Case c = Shaped(24, n, kDtypes[k % 3]);
      c.dy_layout = c.x_layout = c.dx_layout = layout;
      c.seed = 400 + k++;
      Expect(c);
    }
  }
}

// M == 0: gradWeight and gradBias are zeros; N == 0: nothing to write.
TEST_F(LayerNormBackwardCudaTest, EmptyTensors) {
  for (int mask = 1; mask < 8; ++mask) {
    Case c = Shaped(0, 13, kDtypes[mask % 3]);
    for (int i = 0; i < 3; ++i) c.mask[i] = (mask >> i) & 1;
    c.out[1] = ACL_BF16;
    c.strided_params = mask % 2 == 0;
    c.seed = 500 + mask;
    Expect(c);
  }
  for (int mask = 1; mask < 8; ++mask) {
    Case c = Shaped(5, 0, ACL_FLOAT16);
    for (int i = 0; i < 3; ++i) c.mask[i] = (mask >> i) & 1;
    c.seed = 510 + mask;
    Expect(c);
  }
}

// Two runs give the same bits (no atomics; the split depends on the problem only), and so does a
// run with the deterministic option set.
TEST_F(LayerNormBackwardCudaTest, BitwiseRepeatable) {
  struct Shape {
    int64_t m, n;
    aclDataType in;
  };
  const Shape shapes[] = {{8192, 768, ACL_FLOAT16},
                          {8192, 100, ACL_FLOAT},
                          {300, 12288, ACL_BF16},
                          {40, 65536, ACL_FLOAT},
                          {2048, 4096, ACL_BF16}};
  uint32_t seed = 600;
  for (const Shape& s : shapes) {
    Case c = Shaped(s.m, s.n, s.in);
    c.weight = kFloatWeight;
    c.out[1] = c.out[2] = ACL_FLOAT;
    c.seed = seed++;
    const Outcome first = RunCase(c, stream(), 2);
    EXPECT_EQ(first.failure, "") << c.Name();
    ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1), ACL_SUCCESS);
    const Outcome deterministic = RunCase(c, stream(), 1);
    ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0), ACL_SUCCESS);
    EXPECT_EQ(deterministic.failure, "") << c.Name();
    ASSERT_FALSE(first.bytes.empty());
    ASSERT_FALSE(deterministic.bytes.empty());
    EXPECT_TRUE(first.bytes[0] == deterministic.bytes[0]) << c.Name();
  }
}

}  // namespace
}  // namespace openaclnn::test

// aclnnConvTbcBackward on a CUDA device through the cuda_cublas plan: every output element against
// the float64 reference fed the same emulation-rounded inputs (decision D9's mixed tolerance), over
// dtypes, mixed dtypes, cubeMathType 0..3, strided and reversed views, empty tensors, pad beyond
// the time axis, a single tap and fairseq-sized problems (sampled there); plus exact small-integer
// results, bitwise repeatability and the row-major store order of self-overlapping outputs.
// Outputs must not be written outside their views and inputs must not change. Skips without a GPU.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "api/dtype.h"
#include "ops/conv_tbc_backward/conv_tbc_layouts.h"
#include "ops/conv_tbc_backward/reference.h"
#include "util/cuda_fixture.h"
#include "util/device_tensor.h"
#include "util/precision.h"

namespace openaclnn::test {
namespace {

using conv_tbc::ConvShape;

struct Dtypes {
  aclDataType self, input, weight, bias, gx, gw, gb;
};

constexpr Dtypes kFloat{ACL_FLOAT, ACL_FLOAT, ACL_FLOAT, ACL_FLOAT,
                        ACL_FLOAT, ACL_FLOAT, ACL_FLOAT};
constexpr Dtypes kHalf{ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16,
                       ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16};
constexpr Dtypes kBf16{ACL_BF16, ACL_BF16, ACL_BF16, ACL_BF16, ACL_BF16, ACL_BF16, ACL_BF16};
// Mixed inputs promote to FLOAT (spec 1.7); outputs in other dtypes.
constexpr Dtypes kMixedA{ACL_FLOAT16, ACL_BF16, ACL_FLOAT,  ACL_FLOAT,
                         ACL_FLOAT,   ACL_BF16, ACL_FLOAT16};
constexpr Dtypes kMixedB{ACL_BF16,    ACL_FLOAT, ACL_BF16, ACL_FLOAT16,
                         ACL_FLOAT16, ACL_FLOAT, ACL_BF16};
// 16-bit inputs with FLOAT outputs (as autograd often allocates them).
constexpr Dtypes kHalfToFloat{ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16, ACL_FLOAT16,
                              ACL_FLOAT,   ACL_FLOAT,   ACL_FLOAT};
const Dtypes kAllDtypes[] = {kFloat, kHalf, kBf16, kMixedA, kMixedB, kHalfToFloat};

std::string DtypesName(const Dtypes& d) {
  std::string s;
  for (aclDataType t : {d.self, d.input, d.weight}) s += std::string(DTypeName(t)) + "_";
  s += "to";
  for (aclDataType t : {d.gx, d.gw, d.gb}) s += std::string("_") + DTypeName(t);
  return s;
}

// The coarser of two float types (BF16 > FLOAT16 > FLOAT).
aclDataType Coarser(aclDataType a, aclDataType b) {
  auto rank = [](aclDataType t) { return t == ACL_BF16 ? 2 : t == ACL_FLOAT16 ? 1 : 0; };
  return rank(a) >= rank(b) ? a : b;
}

// The input rounding of decision D7, as the test sees it.
float EmulationRound(float v, int cube, aclDataType promoted) {
  if (cube == 2) return RoundThroughHalf(v);
  if ((cube == 1 || cube == 3) && promoted == ACL_FLOAT) return RoundToHf32(v);
  return v;
}

struct Case {
  ConvShape s;
  Dtypes d = kFloat;
  int cube = 0;
  Layout layout = Layout::kContiguous;
  int64_t samples = 0;  // gradInput/gradWeight elements checked; 0: all
  // Small integers instead of uniform values: every sum is then exact in fp32, which keeps the
  // FLOAT rule (atol 2^-16) meaningful for reductions of thousands of terms, where an fp32 sum of
  // random values can legitimately miss a golden close to zero by more than that.
  bool ints = false;
  bool check_values = true;  // false: guards and inputs only (the bits are compared elsewhere)
};

std::string CaseName(const Case& c) {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "T_in=%lld B=%lld Cin=%lld Cout=%lld K=%lld pad=%lld %s cube=%d %s",
                static_cast<long long>(c.s.t_in), static_cast<long long>(c.s.batch),
                static_cast<long long>(c.s.c_in), static_cast<long long>(c.s.c_out),
                static_cast<long long>(c.s.taps), static_cast<long long>(c.s.pad),
                DtypesName(c.d).c_str(), c.cube, LayoutName(c.layout));
  return buf;
}

// Phase 1, a workspace from aclrtMalloc, phase 2 on `stream`, synchronisation. "" or the failure.
std::string CallOnStream(const aclTensor* self, const aclTensor* input, const aclTensor* weight,
                         const aclTensor* bias, int64_t pad, int cube, aclTensor* gx, aclTensor* gw,
                         aclTensor* gb, aclrtStream stream) {
  uint64_t ws_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus p1 = aclnnConvTbcBackwardGetWorkspaceSize(
      self, input, weight, bias, pad, static_cast<int8_t>(cube), gx, gw, gb, &ws_size, &executor);
  if (p1 != ACLNN_SUCCESS) return "phase 1 failed (" + std::to_string(p1) + "): " + RecentError();
  void* ws = nullptr;
  if (ws_size > 0 && aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return "aclrtMalloc of the workspace failed: " + RecentError();
  }
  std::string failure;
  const aclnnStatus p2 = aclnnConvTbcBackward(ws, ws_size, executor, stream);
  if (p2 != ACLNN_SUCCESS) {
    failure = "phase 2 failed (" + std::to_string(p2) + "): " + RecentError();
  } else if (aclrtSynchronizeStream(stream) != ACL_SUCCESS) {
    failure = "synchronisation failed: " + RecentError();
  }
  if (ws != nullptr) aclrtFree(ws);
  return failure;
}

// gradInput[t, b, ci] and gradWeight[k, ci, co] from contiguous TBC arrays, in float64.
double GradInputAt(const ConvShape& s, const std::vector<float>& dy, const std::vector<float>& w,
                   int64_t t, int64_t b, int64_t ci) {
  double sum = 0;
  for (int64_t k = 0; k < s.taps; ++k) {
    const int64_t to = t + s.pad - k;
    if (to < 0 || to >= s.t_out()) continue;
    const float* dy_row = &dy[(to * s.batch + b) * s.c_out];
    const float* w_row = &w[(k * s.c_in + ci) * s.c_out];
    for (int64_t co = 0; co < s.c_out; ++co) sum += double{dy_row[co]} * w_row[co];
  }
  return sum;
}
double GradWeightAt(const ConvShape& s, const std::vector<float>& x, const std::vector<float>& dy,
                    int64_t k, int64_t ci, int64_t co) {
  double sum = 0;
  for (int64_t t = 0; t < s.t_out(); ++t) {
    const int64_t ti = t + k - s.pad;
    if (ti < 0 || ti >= s.t_in) continue;
    for (int64_t b = 0; b < s.batch; ++b) {
      sum += double{x[(ti * s.batch + b) * s.c_in + ci]} * dy[(t * s.batch + b) * s.c_out + co];
    }
  }
  return sum;
}

struct Outcome {
  std::string failure;
  std::vector<uint8_t> bytes[3];  // gradInput, gradWeight, gradBias storage
};

// Small integers in [-3, 3] (self), [-2, 2] (input) or [-1, 1] (weight) for element i of tensor
// 0, 1 or 2, hashed (splitmix64) so that no pattern repeats along rows, time steps or taps: a row
// or tap taken from the wrong place changes the sums.
float SmallInt(int tensor, int64_t i) {
  const int mod = tensor == 0 ? 7 : tensor == 1 ? 5 : 3;
  uint64_t z = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(tensor);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const int centre = mod / 2;  // values -centre .. centre, all exact in every dtype
  return static_cast<float>(static_cast<int>(z % static_cast<uint64_t>(mod)) - centre);
}

Outcome RunCase(const Case& c, aclrtStream stream) {
  const ConvShape& s = c.s;
  const Dtypes& d = c.d;
  DeviceTensor dy = ConvTbcTensor({s.t_out(), s.batch, s.c_out}, d.self, c.layout, false);
  DeviceTensor x = ConvTbcTensor({s.t_in, s.batch, s.c_in}, d.input, c.layout, false);
  DeviceTensor w = ConvTbcTensor({s.taps, s.c_in, s.c_out}, d.weight, c.layout, false);
  DeviceTensor bias = ConvTbcTensor({s.c_out}, d.bias, c.layout, false);
  DeviceTensor gx = ConvTbcTensor({s.t_in, s.batch, s.c_in}, d.gx, c.layout, true);
  DeviceTensor gw = ConvTbcTensor({s.taps, s.c_in, s.c_out}, d.gw, c.layout, true);
  DeviceTensor gb = ConvTbcTensor({s.c_out}, d.gb, c.layout, true);
  std::vector<float> in[3];
  DeviceTensor* inputs[3] = {&dy, &x, &w};
  std::mt19937 rng(static_cast<uint32_t>(s.t_in * 131 + s.c_in * 7 + s.c_out + c.cube));
  for (int j = 0; j < 3; ++j) {
    if (!c.ints) {
      inputs[j]->FillUniform(&rng, -1.0f, 1.0f);
      in[j] = inputs[j]->Values();
    } else {
      std::vector<float> v(inputs[j]->numel());
      for (int64_t i = 0; i < inputs[j]->numel(); ++i) v[i] = SmallInt(j, i);
      inputs[j]->Fill(v);
      in[j] = inputs[j]->Values();
    }
  }
  bias.FillUniform(&rng, -1.0f, 1.0f);
  const std::vector<uint8_t> before[4] = {dy.Bytes(), x.Bytes(), w.Bytes(), bias.Bytes()};

  Outcome out;
  out.failure = CallOnStream(dy.get(), x.get(), w.get(), bias.get(), s.pad, c.cube, gx.get(),
                             gw.get(), gb.get(), stream);
  if (!out.failure.empty()) return out;
  const std::vector<float> gx_v = gx.Values(), gw_v = gw.Values(), gb_v = gb.Values();
  out.bytes[0] = gx.Bytes();
  out.bytes[1] = gw.Bytes();
  out.bytes[2] = gb.Bytes();

  const DeviceTensor* outputs[3] = {&gx, &gw, &gb};
  const char* output_names[3] = {"gradInput", "gradWeight", "gradBias"};
  for (int i = 0; i < 3; ++i) {
    const int64_t damaged = outputs[i]->DamagedCanaries();
    if (damaged != 0) {
      out.failure += std::string(" ") + output_names[i] + ": " + std::to_string(damaged) +
                     " bytes outside the view were written;";
    }
  }
  const DeviceTensor* all_inputs[4] = {&dy, &x, &w, &bias};
  for (int j = 0; j < 4; ++j) {
    if (all_inputs[j]->Bytes() != before[j]) {
      out.failure += " input " + std::to_string(j) + " changed;";
    }
  }
  if (!c.check_values) return out;

  // Golden: gradBias from self as stored; the products from the emulation-rounded inputs.
  std::vector<double> gb_g(s.c_out, 0.0);
  for (int64_t r = 0; r < s.t_out() * s.batch; ++r) {
    for (int64_t co = 0; co < s.c_out; ++co) gb_g[co] += in[0][r * s.c_out + co];
  }
  const aclDataType promoted = PromoteFloatTypes(PromoteFloatTypes(d.self, d.input), d.weight);
  for (std::vector<float>& v : in) {
    for (float& e : v) e = EmulationRound(e, c.cube, promoted);
  }
  std::vector<float> gx_a, gw_a;
  std::vector<double> gx_g, gw_g;
  if (c.samples == 0) {
    gx_a = gx_v;
    gw_a = gw_v;
    const std::vector<double> dyd(in[0].begin(), in[0].end()), xd(in[1].begin(), in[1].end()),
        wd(in[2].begin(), in[2].end());
    gx_g.resize(gx_v.size());
    gw_g.resize(gw_v.size());
    conv_tbc::ConvTbcBackwardF64(s, dyd.data(), xd.data(), wd.data(), gx_g.data(), gw_g.data(),
                                 nullptr);
  } else {
    // The first and last elements and a random sample of the rest.
    std::mt19937_64 pick(99);
    for (int which = 0; which < 2; ++which) {
      const int64_t n = which == 0 ? gx.numel() : gw.numel();
      for (int64_t j = 0; j < std::min(c.samples, n); ++j) {
        const int64_t i = j == 0 ? 0 : j == 1 ? n - 1 : static_cast<int64_t>(pick() % n);
        if (which == 0) {
          const int64_t ci = i % s.c_in, b = i / s.c_in % s.batch, t = i / s.c_in / s.batch;
          gx_a.push_back(gx_v[i]);
          gx_g.push_back(GradInputAt(s, in[0], in[2], t, b, ci));
        } else {
          const int64_t co = i % s.c_out, ci = i / s.c_out % s.c_in, k = i / s.c_out / s.c_in;
          gw_a.push_back(gw_v[i]);
          gw_g.push_back(GradWeightAt(s, in[1], in[0], k, ci, co));
        }
      }
    }
  }
  // cubeMathType 2 computes in FLOAT16: its results carry FLOAT16 rounding whatever the output.
  const aclDataType compute = c.cube == 2 ? ACL_FLOAT16 : ACL_FLOAT;
  out.failure += CheckMixedTolerance(Coarser(d.gx, compute), gx_a.data(), gx_g.data(),
                                     static_cast<int64_t>(gx_a.size()), " gradInput");
  out.failure += CheckMixedTolerance(Coarser(d.gw, compute), gw_a.data(), gw_g.data(),
                                     static_cast<int64_t>(gw_a.size()), " gradWeight");
  out.failure += CheckMixedTolerance(d.gb, gb_v.data(), gb_g.data(), s.c_out, " gradBias");
  if (c.ints) {
    // Exact sums: a FLOAT result must be the golden itself (the rule alone would let an error of
    // one term through where the golden is large).
    auto exact = [&](aclDataType type, const std::vector<float>& a, const std::vector<double>& g,
                     const char* name) {
      if (type != ACL_FLOAT) return;
      for (size_t i = 0; i < a.size(); ++i) {
        if (a[i] != g[i]) {
          out.failure += std::string(" ") + name + " element " + std::to_string(i) + " is " +
                         std::to_string(a[i]) + ", expected exactly " + std::to_string(g[i]) + ";";
          return;
        }
      }
    };
    exact(Coarser(d.gx, compute), gx_a, gx_g, "gradInput");
    exact(Coarser(d.gw, compute), gw_a, gw_g, "gradWeight");
    exact(d.gb, gb_v, gb_g, "gradBias");
  }
  return out;
}

class ConvTbcBackwardCudaTest : public CudaTest {
 protected:
  void SetUp() override {
    CudaTest::SetUp();
    if (IsSkipped()) return;
    // The CUDA plan itself, never the host-staged CPU fallback: phase 1 fails if it declines.
    setenv("OPENACLNN_FORCE_IMPL", "conv_tbc_backward=cuda_cublas", 1);
  }
  void TearDown() override {
    if (!IsSkipped()) {
      unsetenv("OPENACLNN_FORCE_IMPL");
      aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0);
    }
    CudaTest::TearDown();
  }
  void RunAll(const std::vector<Case>& cases) {
    for (const Case& c : cases) EXPECT_EQ(RunCase(c, stream()).failure, "") << CaseName(c);
  }
};

// (T_in, B, Cin, Cout, K, pad): K = 1 with and without pad, K > T_in, pad in {0, (K-1)/2, K-1,
// K+2}, pad > T_in, B = 1, odd channels, T_out = 0 (empty self).
const ConvShape kSmallShapes[] = {
    {5, 3, 4, 6, 1, 0},   {5, 3, 4, 6, 1, 2}, {3, 2, 5, 7, 5, 1}, {7, 2, 5, 3, 3, 0},
    {7, 2, 5, 3, 3, 1},   {7, 2, 5, 3, 3, 2}, {7, 2, 5, 3, 3, 5}, {9, 1, 3, 4, 4, 1},
    {6, 3, 17, 33, 3, 1}, {2, 3, 4, 5, 5, 1}, {4, 2, 3, 1, 2, 0}, {2, 3, 4, 5, 3, 6},
};

TEST_F(ConvTbcBackwardCudaTest, SmallShapesEveryDtypeAndCubeMathType) {
  std::vector<Case> cases;
  for (const Dtypes& d : kAllDtypes) {
    for (int cube = 0; cube <= 3; ++cube) {
      for (const ConvShape& s : kSmallShapes) cases.push_back({s, d, cube});
    }
  }
  RunAll(cases);
}

// Views the products cannot read or write as plain matrices (packed and stored by the kernels),
// and the ones they can (offset, padded rows: used in place).
TEST_F(ConvTbcBackwardCudaTest, StridedViews) {
  const ConvShape shapes[] = {
      {20, 6, 40, 70, 3, 1}, {12, 5, 33, 24, 4, 3}, {9, 4, 16, 20, 1, 2}, {11, 3, 9, 13, 3, 0}};
  const Layout layouts[] = {Layout::kPermuted, Layout::kPadded, Layout::kOffset,
                            Layout::kStridedOutputs, Layout::kReversedTime};
  std::vector<Case> cases;
  for (Layout layout : layouts) {
    for (const Dtypes& d : {kFloat, kHalf, kBf16, kMixedA}) {
      for (int cube : {0, 2, 3}) {
        for (const ConvShape& s : shapes) cases.push_back({s, d, cube, layout});
      }
    }
  }
  RunAll(cases);
}

// Empty tensors (decision D3): zeros where nothing is summed, gradBias the true sum of self.
TEST_F(ConvTbcBackwardCudaTest, EmptyTensors) {
  const ConvShape shapes[] = {
      {5, 3, 0, 4, 2, 1},  // Cin = 0: gradInput and gradWeight empty
      {5, 3, 4, 0, 2, 1},  // Cout = 0: self empty, gradInput zeros, gradBias empty
      {0, 3, 4, 5, 2, 1},  // T_in = 0: T_out = 1, gradWeight zeros
      {5, 0, 4, 5, 2, 1},  // B = 0: gradWeight and gradBias zeros
      {5, 3, 4, 5, 0, 1},  // K = 0: gradInput zeros, gradWeight empty
      {2, 3, 4, 5, 3, 0},  // T_out = 0: self empty
  };
  std::vector<Case> cases;
  for (const Dtypes& d : {kFloat, kHalf, kMixedB}) {
    for (int cube : {0, 2}) {
      for (Layout layout : {Layout::kContiguous, Layout::kStridedOutputs}) {
        for (const ConvShape& s : shapes) cases.push_back({s, d, cube, layout});
      }
    }
  }
  RunAll(cases);
}

TEST_F(ConvTbcBackwardCudaTest, PadBeyondTheTimeAxis) {
  const ConvShape shapes[] = {{2, 3, 4, 5, 3, 6}, {1, 2, 3, 3, 2, 9}, {3, 4, 24, 40, 5, 11}};
  std::vector<Case> cases;
  for (const Dtypes& d : kAllDtypes) {
    for (int cube : {0, 3}) {
      for (const ConvShape& s : shapes) cases.push_back({s, d, cube});
    }
  }
  RunAll(cases);
}

// fairseq-like problems (T=64..512, B=8..32, C=256..1024, K=3..7, pad 0..K+): gradBias in full,
// a sample of gradInput and gradWeight (the float64 golden of the whole tensors is too slow).
// Cases with a FLOAT output (gradBias included) get small integers (exact sums, so any misplaced
// row or tap shows); the others get uniform values.
TEST_F(ConvTbcBackwardCudaTest, FairseqShapes) {
  const ConvShape shapes[] = {{64, 8, 256, 256, 3, 1},
                              {128, 16, 512, 512, 5, 2},
                              {100, 8, 384, 256, 7, 0},
                              {200, 12, 320, 640, 4, 4},
                              {96, 16, 256, 512, 5, 6}};
  constexpr Layout kC = Layout::kContiguous;
  std::vector<Case> cases;
  for (const ConvShape& s : shapes) {
    cases.push_back({s, kFloat, 0, kC, 1024, true});
    cases.push_back({s, kFloat, 3, kC, 1024, true});
    cases.push_back({s, kFloat, 2, kC, 1024, true});
    cases.push_back({s, kHalf, 0, kC, 1024});
    cases.push_back({s, kBf16, 1, kC, 1024});
    cases.push_back({s, kHalfToFloat, 0, kC, 1024, true});
  }
  const ConvShape large{512, 32, 1024, 1024, 7, 3};
  cases.push_back({large, kHalf, 0, kC, 512});
  cases.push_back({large, kFloat, 0, kC, 512, true});
  cases.push_back({{64, 8, 256, 256, 3, 1}, kMixedA, 0, Layout::kPadded, 1024, true});
  RunAll(cases);
}

// Small integers: every product and sum is exact in fp32 (and the 16-bit operands hold them
// exactly), so the results must equal the float64 golden bit for bit, on every operand path.
TEST_F(ConvTbcBackwardCudaTest, SmallIntegersAreExact) {
  const ConvShape s{33, 9, 40, 600, 3, 2};
  for (const Dtypes& d : {kFloat, kHalfToFloat, kMixedA}) {
    for (int cube : {0, 2, 3}) {
      for (Layout layout : {Layout::kContiguous, Layout::kPermuted}) {
        const Case c{s, d, cube, layout, 0, true};
        EXPECT_EQ(RunCase(c, stream()).failure, "") << CaseName(c);
      }
    }
  }
  // Bit for bit: FLOAT outputs (one written in place, one through a panel) against the golden.
  DeviceTensor dy =
      ConvTbcTensor({s.t_out(), s.batch, s.c_out}, ACL_FLOAT, Layout::kContiguous, false);
  DeviceTensor x = ConvTbcTensor({s.t_in, s.batch, s.c_in}, ACL_BF16, Layout::kContiguous, false);
  DeviceTensor w =
      ConvTbcTensor({s.taps, s.c_in, s.c_out}, ACL_FLOAT16, Layout::kContiguous, false);
  DeviceTensor bias = ConvTbcTensor({s.c_out}, ACL_FLOAT, Layout::kContiguous, false);
  DeviceTensor gx = ConvTbcTensor({s.t_in, s.batch, s.c_in}, ACL_FLOAT, Layout::kPadded, true);
  DeviceTensor gw = ConvTbcTensor({s.taps, s.c_in, s.c_out}, ACL_FLOAT, Layout::kContiguous, true);
  DeviceTensor gb = ConvTbcTensor({s.c_out}, ACL_FLOAT, Layout::kContiguous, true);
  std::vector<float> v[3];
  DeviceTensor* ins[3] = {&dy, &x, &w};
  for (int j = 0; j < 3; ++j) {
    std::vector<float> values(ins[j]->numel());
    for (int64_t i = 0; i < ins[j]->numel(); ++i) values[i] = SmallInt(j, i);
    ins[j]->Fill(values);
    v[j] = ins[j]->Values();
  }
  ASSERT_EQ(CallOnStream(dy.get(), x.get(), w.get(), bias.get(), s.pad, 0, gx.get(), gw.get(),
                         gb.get(), stream()),
            "");
  const std::vector<double> dyd(v[0].begin(), v[0].end()), xd(v[1].begin(), v[1].end()),
      wd(v[2].begin(), v[2].end());
  std::vector<double> gx_g(xd.size()), gw_g(wd.size()), gb_g(s.c_out);
  conv_tbc::ConvTbcBackwardF64(s, dyd.data(), xd.data(), wd.data(), gx_g.data(), gw_g.data(),
                               gb_g.data());
  const std::vector<float> gx_v = gx.Values(), gw_v = gw.Values(), gb_v = gb.Values();
  for (size_t i = 0; i < gx_v.size(); ++i) ASSERT_EQ(gx_v[i], gx_g[i]) << "gradInput " << i;
  for (size_t i = 0; i < gw_v.size(); ++i) ASSERT_EQ(gw_v[i], gw_g[i]) << "gradWeight " << i;
  for (size_t i = 0; i < gb_v.size(); ++i) ASSERT_EQ(gb_v[i], gb_g[i]) << "gradBias " << i;
}

// Decision D6: the same problem on the same data gives the same bits, run after run, with and
// without ACL_OPT_DETERMINISTIC.
TEST_F(ConvTbcBackwardCudaTest, RepeatedRunsAreBitwiseEqual) {
  const ConvShape s{96, 12, 320, 288, 5, 2};
  for (int64_t mode : {1, 0}) {
    ASSERT_EQ(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, mode), ACL_SUCCESS);
    for (const Dtypes& d : {kFloat, kHalf, kBf16, kMixedB}) {
      for (int cube : {0, 3}) {
        // Uniform values (sums whose order matters); the values are checked by the other tests.
        const Case c{s, d, cube, Layout::kContiguous, 0, false, false};
        const Outcome first = RunCase(c, stream());
        const Outcome second = RunCase(c, stream());
        ASSERT_EQ(first.failure, "") << CaseName(c);
        ASSERT_EQ(second.failure, "") << CaseName(c);
        for (int i = 0; i < 3; ++i) {
          EXPECT_TRUE(first.bytes[i] == second.bytes[i])
              << "output " << i << " differs between runs: " << CaseName(c);
        }
      }
    }
  }
}

// A repeatable executor launched twice on the same buffers: the same bits both times.
TEST_F(ConvTbcBackwardCudaTest, RepeatableExecutorGivesTheSameBits) {
  const ConvShape s{40, 8, 96, 160, 3, 1};
  DeviceTensor dy =
      ConvTbcTensor({s.t_out(), s.batch, s.c_out}, ACL_BF16, Layout::kContiguous, false);
  DeviceTensor x = ConvTbcTensor({s.t_in, s.batch, s.c_in}, ACL_BF16, Layout::kContiguous, false);
  DeviceTensor w = ConvTbcTensor({s.taps, s.c_in, s.c_out}, ACL_BF16, Layout::kContiguous, false);
  DeviceTensor bias = ConvTbcTensor({s.c_out}, ACL_BF16, Layout::kContiguous, false);
  DeviceTensor gx = ConvTbcTensor({s.t_in, s.batch, s.c_in}, ACL_BF16, Layout::kContiguous, true);
  DeviceTensor gw = ConvTbcTensor({s.taps, s.c_in, s.c_out}, ACL_FLOAT, Layout::kContiguous, true);
  DeviceTensor gb = ConvTbcTensor({s.c_out}, ACL_BF16, Layout::kContiguous, true);
  std::mt19937 rng(5);
  dy.FillUniform(&rng, -1.0f, 1.0f);
  x.FillUniform(&rng, -1.0f, 1.0f);
  w.FillUniform(&rng, -1.0f, 1.0f);
  uint64_t ws_size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnConvTbcBackwardGetWorkspaceSize(dy.get(), x.get(), w.get(), bias.get(), s.pad, 0,
                                                 gx.get(), gw.get(), gb.get(), &ws_size, &executor),
            ACLNN_SUCCESS)
      << RecentError();
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(executor), ACLNN_SUCCESS);
  void* ws = nullptr;
  ASSERT_EQ(aclrtMalloc(&ws, ws_size, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::vector<uint8_t> first[3];
  for (int run = 0; run < 3; ++run) {
    ASSERT_EQ(aclnnConvTbcBackward(ws, ws_size, executor, stream()), ACLNN_SUCCESS)
        << RecentError();
    ASSERT_EQ(aclrtSynchronizeStream(stream()), ACL_SUCCESS) << RecentError();
    const std::vector<uint8_t> now[3] = {gx.Bytes(), gw.Bytes(), gb.Bytes()};
    for (int i = 0; i < 3; ++i) {
      if (run == 0) {
        first[i] = now[i];
      } else {
        EXPECT_TRUE(now[i] == first[i]) << "output " << i << " differs in run " << run;
      }
    }
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  aclrtFree(ws);
}

// Outputs whose views overlap themselves (stride 0): stored in row-major order, so the last
// element of each aliased group wins, as on the CPU path. Small integers keep everything exact.
TEST_F(ConvTbcBackwardCudaTest, SelfOverlappingOutputsKeepTheLastElement) {
  const ConvShape s{6, 3, 5, 4, 2, 1};
  for (int cube : {0, 2}) {
    DeviceTensor dy =
        ConvTbcTensor({s.t_out(), s.batch, s.c_out}, ACL_FLOAT, Layout::kContiguous, false);
    DeviceTensor x =
        ConvTbcTensor({s.t_in, s.batch, s.c_in}, ACL_FLOAT, Layout::kContiguous, false);
    DeviceTensor w =
        ConvTbcTensor({s.taps, s.c_in, s.c_out}, ACL_FLOAT, Layout::kContiguous, false);
    DeviceTensor bias = ConvTbcTensor({s.c_out}, ACL_FLOAT, Layout::kContiguous, false);
    // gradInput repeats over time, gradWeight over taps, gradBias everywhere.
    DeviceTensor gx({s.t_in, s.batch, s.c_in}, ACL_FLOAT16,
                    TensorLayout::Explicit({0, s.c_in, 1}).WithTail(16).WithNanCanary());
    DeviceTensor gw({s.taps, s.c_in, s.c_out}, ACL_FLOAT,
                    TensorLayout::Explicit({0, s.c_out, 1}).WithTail(16).WithNanCanary());
    DeviceTensor gb({s.c_out}, ACL_BF16, TensorLayout::Explicit({0}).WithTail(16).WithNanCanary());
    std::vector<float> v[3];
    DeviceTensor* ins[3] = {&dy, &x, &w};
    for (int j = 0; j < 3; ++j) {
      std::vector<float> values(ins[j]->numel());
      for (int64_t i = 0; i < ins[j]->numel(); ++i) values[i] = SmallInt(j, i);
      ins[j]->Fill(values);
      v[j] = ins[j]->Values();
    }
    ASSERT_EQ(CallOnStream(dy.get(), x.get(), w.get(), bias.get(), s.pad, cube, gx.get(), gw.get(),
                           gb.get(), stream()),
              "");
    const std::vector<double> dyd(v[0].begin(), v[0].end()), xd(v[1].begin(), v[1].end()),
        wd(v[2].begin(), v[2].end());
    std::vector<double> gx_g(xd.size()), gw_g(wd.size()), gb_g(s.c_out);
    conv_tbc::ConvTbcBackwardF64(s, dyd.data(), xd.data(), wd.data(), gx_g.data(), gw_g.data(),
                                 gb_g.data());
    const std::vector<float> gx_v = gx.Values(), gw_v = gw.Values(), gb_v = gb.Values();
    for (const DeviceTensor* t : {&gx, &gw, &gb}) EXPECT_EQ(t->DamagedCanaries(), 0);
    const int64_t gx_last = (s.t_in - 1) * s.batch * s.c_in;  // time step T_in - 1 wins
    for (int64_t i = 0; i < s.batch * s.c_in; ++i) {
      for (int64_t t = 0; t < s.t_in; ++t) {
        ASSERT_EQ(gx_v[t * s.batch * s.c_in + i], RoundThroughHalf(gx_g[gx_last + i]))
            << "gradInput " << i << " cube " << cube;
      }
    }
    const int64_t gw_last = (s.taps - 1) * s.c_in * s.c_out;  // tap K - 1 wins
    for (int64_t i = 0; i < s.c_in * s.c_out; ++i) {
      ASSERT_EQ(gw_v[i], cube == 2 ? RoundThroughHalf(gw_g[gw_last + i]) : gw_g[gw_last + i])
          << "gradWeight " << i << " cube " << cube;
    }
    for (int64_t i = 0; i < s.c_out; ++i) {
      ASSERT_EQ(gb_v[i], RoundThroughBFloat16(gb_g[s.c_out - 1])) << "gradBias " << i;
    }
  }
}

}  // namespace
}  // namespace openaclnn::test

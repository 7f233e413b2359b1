// The fast implementation (and the reference one, forced) against the float64 golden fed the same
// rounded inputs: every element within the mixed-tolerance rule, every byte outside the output
// views untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "api/dtype.h"
#include "ops/layer_norm_backward/lnb_test_util.h"
#include "util/precision.h"

namespace openaclnn::lnb_test {
namespace {

constexpr aclDataType kDtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
enum WeightKind { kNoWeight = 0, kFloatWeight = 1, kSameWeight = 2 };

struct Case {
  std::vector<int64_t> shape;
  int norm_len = 1;
  aclDataType in = ACL_FLOAT;
  int weight = kNoWeight;
  aclDataType stat = ACL_FLOAT;
  bool mask[3] = {true, true, true};
  aclDataType out[3] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT};
  Layout dy_layout = Layout::kContiguous;
  Layout x_layout = Layout::kContiguous;
  Layout dx_layout = Layout::kContiguous;
  bool strided_params = false;  // weight, gradWeight, gradBias as strided normalizedShape views
  bool flat_stats = false;      // mean/rstd as [M] instead of [lead..., 1...]
  bool unmasked_given = false;  // pass tensors for unmasked outputs; they must stay untouched
  uint32_t seed = 1;

  std::string Name() const {
    std::string s = "shape=[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
    s += "] norm_len=" + std::to_string(norm_len) + " in=" + DTypeName(in) +
         " weight=" + std::to_string(weight) + " stat=" + DTypeName(stat) +
         " mask=" + std::to_string(mask[0]) + std::to_string(mask[1]) + std::to_string(mask[2]) +
         " out=" + DTypeName(out[0]) + "/" + DTypeName(out[1]) + "/" + DTypeName(out[2]) +
         " layouts=" + LayoutName(dy_layout) + "/" + LayoutName(x_layout) + "/" +
         LayoutName(dx_layout) + (strided_params ? " strided_params" : "") +
         (flat_stats ? " flat_stats" : "");
    return s;
  }
};

// Runs one case through the public API and checks it; returns "" on success.
std::string RunCase(const Case& c) {
  const int rank = static_cast<int>(c.shape.size());
  const int begin = rank - c.norm_len;
  int64_t m = 1, n = 1;
  for (int i = 0; i < begin; ++i) m *= c.shape[i];
  for (int i = begin; i < rank; ++i) n *= c.shape[i];
  const std::vector<int64_t> norm(c.shape.begin() + begin, c.shape.end());
  std::vector<int64_t> stat_shape;
  if (c.flat_stats) {
    stat_shape = {m};
  } else {
    stat_shape.assign(c.shape.begin(), c.shape.begin() + begin);
    stat_shape.resize(rank, 1);
  }
  std::mt19937 rng(c.seed);
  DeviceTensor dy(c.shape, c.in, RowLayout(c.dy_layout, c.shape, begin));
  DeviceTensor x(c.shape, c.in, RowLayout(c.x_layout, c.shape, begin));
  DeviceTensor mean(stat_shape, c.stat);
  DeviceTensor rstd(stat_shape, c.stat);
  std::unique_ptr<DeviceTensor> w, b;
  const std::vector<double> dy_v = dy.FillUniform(&rng, -1.0f, 1.0f);
  // x with a per-row offset so |mean| is not small next to the spread.
  std::vector<float> x_drawn(static_cast<size_t>(m * n));
  std::uniform_real_distribution<float> unit(-2.0f, 2.0f);
  for (int64_t r = 0; r < m; ++r) {
    const float shift = 0.5f * static_cast<float>(r % 7) - 1.5f;
    for (int64_t k = 0; k < n; ++k) x_drawn[r * n + k] = unit(rng) + shift;
  }
  x.Fill(x_drawn);
  const std::vector<double> x_v = x.ValuesDouble();
  std::vector<float> mean_drawn(m), rstd_drawn(m);
  for (int64_t r = 0; r < m; ++r) {
    double s = 0, s2 = 0;
    for (int64_t k = 0; k < n; ++k) s += x_v[r * n + k];
    const double mu = n > 0 ? s / n : 0;
    for (int64_t k = 0; k < n; ++k) s2 += (x_v[r * n + k] - mu) * (x_v[r * n + k] - mu);
    const double var = n > 0 ? s2 / n : 0;
    // N == 1 rows get a mean away from x: the result must still be exactly 0.
    mean_drawn[r] = static_cast<float>(n == 1 ? mu + 0.75 : mu);
    rstd_drawn[r] = static_cast<float>(1.0 / std::sqrt(var + 1e-5));
  }
  mean.Fill(mean_drawn);
  rstd.Fill(rstd_drawn);
  const std::vector<double> mean_v = mean.ValuesDouble(), rstd_v = rstd.ValuesDouble();
  std::vector<double> w_v;
  const Layout param_layout = c.strided_params ? Layout::kStrided : Layout::kContiguous;
  if (c.weight != kNoWeight) {
    // A strided weight with the strided outputs: the kernel's weight row is then gathered
    // element by element, not copied as one run.
    w = std::make_unique<DeviceTensor>(norm, c.weight == kFloatWeight ? ACL_FLOAT : c.in,
                                       RowLayout(param_layout, norm, 0));
    w_v = w->FillUniform(&rng, -1.5f, 1.5f);
  }
  if (c.seed % 2 == 0) {
    b = std::make_unique<DeviceTensor>(norm, ACL_BF16);
    b->FillUniform(&rng, -1.0f, 1.0f);
  }
  std::unique_ptr<DeviceTensor> outs[3];
  for (int i = 0; i < 3; ++i) {
    if (!c.mask[i] && !c.unmasked_given) continue;
    if (i == 0) {
      outs[i] =
          std::make_unique<DeviceTensor>(c.shape, c.out[0], RowLayout(c.dx_layout, c.shape, begin));
    } else if (c.strided_params) {
      outs[i] = std::make_unique<DeviceTensor>(norm, c.out[i], RowLayout(param_layout, norm, 0));
    } else {
      outs[i] = std::make_unique<DeviceTensor>(std::vector<int64_t>{n}, c.out[i],
                                               RowLayout(param_layout, {n}, 0));
    }
  }
  const aclnnStatus status =
      RunLayerNormBackward(dy.get(), x.get(), norm, mean.get(), rstd.get(), w ? w->get() : nullptr,
                           b ? b->get() : nullptr, c.mask, outs[0] ? outs[0]->get() : nullptr,
                           outs[1] ? outs[1]->get() : nullptr, outs[2] ? outs[2]->get() : nullptr);
  if (status != ACLNN_SUCCESS) {
    return "status " + std::to_string(status) + ": " +
           (aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");
  }
  std::vector<double> g_dx, g_gw, g_gb;
  GoldenLayerNormBackward(m, n, c.mask, dy_v, x_v, mean_v, rstd_v, w ? &w_v : nullptr, &g_dx, &g_gw,
                          &g_gb);
  const std::vector<double>* golden[3] = {&g_dx, &g_gw, &g_gb};
  const char* names[3] = {"gradInput", "gradWeight", "gradBias"};
  std::string failures;
  for (int i = 0; i < 3; ++i) {
    if (!outs[i]) continue;
    if (!c.mask[i]) {
      if (!outs[i]->Untouched()) failures += std::string(names[i]) + " written while unmasked; ";
      continue;
    }
    const std::vector<float> got = outs[i]->Values();
    const std::string err = test::CheckMixedTolerance(c.out[i], got.data(), golden[i]->data(),
                                                      outs[i]->numel(), names[i]);
    if (!err.empty()) failures += err + "; ";
    if (outs[i]->DamagedCanaries() != 0) failures += std::string(names[i]) + " gap bytes written; ";
    if (i == 0 && n == 1) {
      for (float v : got) {
        if (v != 0.0f || std::signbit(v)) {
          failures += "N == 1 gradInput not exactly +0; ";
          break;
        }
      }
    }
    if (i == 1 && n == 1 && got[0] != 0.0f) failures += "N == 1 gradWeight not exactly 0; ";
  }
  return failures;
}

Layout LayoutAt(int i) { return kAllLayouts[i % 5]; }

TEST(LayerNormBackwardVsReference, AllDtypesWeightsAndMasks) {
  struct Shape {
    std::vector<int64_t> dims;
    int norm_len;
  };
  const Shape shapes[] = {{{3, 5, 37}, 1},  {{4, 1}, 1}, {{1, 17}, 1},
                          {{2, 3, 130}, 2}, {{0, 7}, 1}, {{3, 0}, 1}};
  int k = 0;
  for (const Shape& shape : shapes) {
    for (aclDataType in : kDtypes) {
      for (int weight = 0; weight < 3; ++weight) {
        for (int mask = 0; mask < 8; ++mask, ++k) {
          Case c;
          c.shape = shape.dims;
          c.norm_len = shape.norm_len;
          c.in = in;
          c.weight = weight;
          c.stat = kDtypes[k % 3];
          for (int i = 0; i < 3; ++i) {
            c.mask[i] = (mask >> i) & 1;
            c.out[i] = kDtypes[(k + i) % 3];
          }
          c.dy_layout = LayoutAt(k);
          c.x_layout = LayoutAt(k + 1);
          c.dx_layout = LayoutAt(k + 2);
          c.strided_params = k % 2 == 1;
          c.flat_stats = k % 3 == 2;
          c.unmasked_given = k % 2 == 0;
          c.seed = 100 + k;
          const std::string err = RunCase(c);
          EXPECT_EQ(err, "") << c.Name();
        }
      }
    }
  }
}

TEST(LayerNormBackwardVsReference, RowLengthsAndRowCounts) {
  const int64_t ns[] = {1, 2, 3, 7, 15, 16, 17, 127, 768, 1000, 4097, 65536};
  const int64_t ms[] = {0, 1, 3, 1000};
  int k = 0;
  for (int64_t n : ns) {
    for (int64_t m : ms) {
      if (m * n > (int64_t{1} << 20) && m > 3) continue;
      for (aclDataType in : kDtypes) {
        Case c;
        c.shape = {m, n};
        c.in = in;
        c.weight = k % 3;
        c.stat = ACL_FLOAT;
        for (int i = 0; i < 3; ++i) c.out[i] = i == 0 ? in : ACL_FLOAT;
        c.dy_layout = k % 4 == 3 ? Layout::kPaddedRows : Layout::kContiguous;
        c.x_layout = k % 4 == 1 ? Layout::kOffset : Layout::kContiguous;
        c.dx_layout = k % 4 == 2 ? Layout::kPaddedRows : Layout::kContiguous;
        c.seed = 1000 + k++;
        const std::string err = RunCase(c);
        EXPECT_EQ(err, "") << c.Name();
      }
    }
  }
}

TEST(LayerNormBackwardVsReference, RanksNormalizedDimsAndLayouts) {
  int k = 0;
  for (int rank = 1; rank <= 8; ++rank) {
    for (int norm_len = 1; norm_len <= std::min(rank, 3); ++norm_len) {
      for (Layout layout : kAllLayouts) {
        Case c;
        for (int i = 0; i < rank; ++i) c.shape.push_back(i % 2 == 0 ? 3 : 2);
        if (rank >= 2) c.shape[rank - 1] = 9;  // rows of 9 to 54 elements
        c.norm_len = norm_len;
        c.in = kDtypes[k % 3];
        c.weight = (k / 3) % 3;
        c.stat = kDtypes[(k / 2) % 3];
        for (int i = 0; i < 3; ++i) c.out[i] = kDtypes[(k + 2 * i) % 3];
        c.x_layout = layout;
        c.dy_layout = LayoutAt(k + 3);
        c.dx_layout = LayoutAt(k + 1);
        c.strided_params = k % 2 == 0;
        c.flat_stats = k % 2 == 1;
        c.seed = 5000 + k++;
        const std::string err = RunCase(c);
        EXPECT_EQ(err, "") << c.Name();
      }
    }
  }
}

TEST(LayerNormBackwardVsReference, ManyChunksAndLongRows) {
  struct Shape {
    std::vector<int64_t> shape;
    int norm_len;
  };
  const Shape shapes[] = {{{5000, 24}, 1},   {{300000, 3}, 1},  {{2, 1 << 20}, 1},
                          {{100, 8, 16}, 2}, {{7, 3, 4097}, 1}, {{1, 1 << 20}, 1}};
  int k = 0;
  for (const Shape& s : shapes) {
    for (aclDataType in : {ACL_FLOAT, ACL_BF16}) {
      Case c;
      c.shape = s.shape;
      c.norm_len = s.norm_len;
      c.in = in;
      c.weight = in == ACL_BF16 ? kFloatWeight : kSameWeight;
      for (int i = 0; i < 3; ++i) c.out[i] = i == 0 ? in : ACL_FLOAT;
      c.dx_layout = k % 3 == 1 ? Layout::kStrided : Layout::kContiguous;
      c.seed = 9000 + k++;
      const std::string err = RunCase(c);
      EXPECT_EQ(err, "") << c.Name();
    }
  }
}

// The reference implementation, forced through OPENACLNN_FORCE_IMPL, on a few layouts.
TEST(LayerNormBackwardVsReference, ForcedReferenceImplementation) {
  setenv("OPENACLNN_FORCE_IMPL", "layer_norm_backward=reference", 1);
  int k = 0;
  for (aclDataType in : kDtypes) {
    for (Layout layout : kAllLayouts) {
      Case c;
      c.shape = {4, 3, 33};
      c.norm_len = 1 + k % 2;
      c.in = in;
      c.weight = k % 3;
      for (int i = 0; i < 3; ++i) {
        c.out[i] = kDtypes[(k + i) % 3];
        c.mask[i] = ((k + 1) >> i) & 1 || i == 0;
      }
      c.x_layout = layout;
      c.dx_layout = LayoutAt(k + 2);
      c.strided_params = k % 2 == 0;
      c.seed = 7000 + k++;
      const std::string err = RunCase(c);
      EXPECT_EQ(err, "") << c.Name();
    }
  }
  unsetenv("OPENACLNN_FORCE_IMPL");
}

}  // namespace
}  // namespace openaclnn::lnb_test

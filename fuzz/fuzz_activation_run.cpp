// aclnnGelu, aclnnGeluV2, aclnnGeluBackward, aclnnGeluBackwardV2, aclnnGlu and aclnnGluBackward
// end to end on small problems with fuzzed shapes (rank 0 to 4, dims 0 to 6; GLU's split dim even
// and nonzero), both GELU forms, FLOAT/FLOAT16/BFLOAT16 and layouts of every tensor: each output
// must match a float64 golden computed here from the stored inputs (mixed tolerance of the
// output's dtype), and no byte outside the output view may change.

#include <cmath>
#include <vector>

#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_gelu_backward_v2.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_glu.h"
#include "aclnnop/aclnn_glu_backward.h"
#include "fuzz_layout.h"

using namespace openaclnn;
using namespace openaclnn::fuzz;

namespace {

enum class Mode { kGelu, kGeluV2, kGeluBackward, kGeluBackwardV2, kGlu, kGluBackward };

constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kCubic = 0.044715;

double Gelu(double x, bool tanh_form) {
  if (tanh_form) return 0.5 * x * (1 + std::tanh(kSqrt2OverPi * (x + kCubic * x * x * x)));
  return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
}

double GeluGrad(double x, bool tanh_form) {
  if (tanh_form) {
    const double t = std::tanh(kSqrt2OverPi * (x + kCubic * x * x * x));
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * kSqrt2OverPi * (1 + 3 * kCubic * x * x);
  }
  const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
  return 0.5 * std::erfc(-x / std::sqrt(2.0)) + x * pdf;
}

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  FuzzRuntime::Get();
  Arena arena;
  const Mode mode = static_cast<Mode>(fdp.ConsumeIntegralInRange(0, 5));
  const bool glu = mode == Mode::kGlu || mode == Mode::kGluBackward;
  std::vector<int64_t> shape;
  for (int i = fdp.ConsumeIntegralInRange(glu ? 1 : 0, 4); i > 0; --i) {
    shape.push_back(fdp.ConsumeIntegralInRange(0, 6));
  }
  const int rank = static_cast<int>(shape.size());
  // GLU: a split dim of even, nonzero size; the halves are (outer, half, inner) views.
  int split = 0;
  int64_t dim = 0, outer = 1, half = 1, inner = 1;
  std::vector<int64_t> half_shape = shape;
  if (glu) {
    split = fdp.ConsumeIntegralInRange(0, rank - 1);
    dim = fdp.ConsumeBool() ? split : split - rank;
    shape[split] = 2 * fdp.ConsumeIntegralInRange(1, 3);
    half_shape = shape;
    half_shape[split] = shape[split] / 2;
    for (int k = 0; k < rank; ++k) {
      if (k < split) outer *= shape[k];
      if (k > split) inner *= shape[k];
    }
    half = shape[split] / 2;
  }
  const bool tanh_form =
      mode == Mode::kGelu ||
      ((mode == Mode::kGeluV2 || mode == Mode::kGeluBackwardV2) && fdp.ConsumeBool());
  const aclDataType dtype = ConsumeFloatDtype(fdp);
  const bool backward =
      mode == Mode::kGeluBackward || mode == Mode::kGeluBackwardV2 || mode == Mode::kGluBackward;
  StridedTensor self(fdp, arena, shape, dtype);
  // The gradient flowing in: self's shape for GELU, the halves' for GLU.
  StridedTensor grad(fdp, arena, mode == Mode::kGluBackward ? half_shape : shape, dtype);
  StridedTensor out(fdp, arena, mode == Mode::kGlu ? half_shape : shape, dtype);
  for (int64_t k = 0; k < self.numel(); ++k) {
    self.Set(k, static_cast<float>(fdp.ConsumeIntegralInRange(-48, 48)) / 8);
  }
  for (int64_t k = 0; backward && k < grad.numel(); ++k) {
    grad.Set(k, static_cast<float>(fdp.ConsumeIntegralInRange(-16, 16)) / 8);
  }

  char none[] = "none";
  char tanh_name[] = "tanh";
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = 0;
  switch (mode) {
    case Mode::kGelu:
      status = aclnnGeluGetWorkspaceSize(self.tensor(), out.tensor(), &workspace_size, &executor);
      break;
    case Mode::kGeluV2:
      status = aclnnGeluV2GetWorkspaceSize(self.tensor(), tanh_form ? 1 : 0, out.tensor(),
                                           &workspace_size, &executor);
      break;
    case Mode::kGeluBackward:
      status = aclnnGeluBackwardGetWorkspaceSize(grad.tensor(), self.tensor(), out.tensor(),
                                                 &workspace_size, &executor);
      break;
    case Mode::kGeluBackwardV2:
      status = aclnnGeluBackwardV2GetWorkspaceSize(grad.tensor(), self.tensor(),
                                                   tanh_form ? tanh_name : none, out.tensor(),
                                                   &workspace_size, &executor);
      break;
    case Mode::kGlu:
      status =
          aclnnGluGetWorkspaceSize(self.tensor(), dim, out.tensor(), &workspace_size, &executor);
      break;
    case Mode::kGluBackward:
      status = aclnnGluBackwardGetWorkspaceSize(grad.tensor(), self.tensor(), dim, out.tensor(),
                                                &workspace_size, &executor);
      break;
  }
  FUZZ_CHECK(status == 0, "phase 1 refused a valid problem: %d %s", status, aclGetRecentErrMsg());
  switch (mode) {
    case Mode::kGelu:
      status = RunPhase2AndSync(aclnnGelu, workspace_size, executor);
      break;
    case Mode::kGeluV2:
      status = RunPhase2AndSync(aclnnGeluV2, workspace_size, executor);
      break;
    case Mode::kGeluBackward:
      status = RunPhase2AndSync(aclnnGeluBackward, workspace_size, executor);
      break;
    case Mode::kGeluBackwardV2:
      status = RunPhase2AndSync(aclnnGeluBackwardV2, workspace_size, executor);
      break;
    case Mode::kGlu:
      status = RunPhase2AndSync(aclnnGlu, workspace_size, executor);
      break;
    case Mode::kGluBackward:
      status = RunPhase2AndSync(aclnnGluBackward, workspace_size, executor);
      break;
  }
  FUZZ_CHECK(status == 0, "phase 2 failed: %d", status);

  std::vector<double> golden(static_cast<size_t>(out.numel()), 0.0);
  if (!glu) {
    for (int64_t k = 0; k < self.numel(); ++k) {
      const double x = self.Get(k);
      golden[static_cast<size_t>(k)] =
          backward ? grad.Get(k) * GeluGrad(x, tanh_form) : Gelu(x, tanh_form);
    }
  } else {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < half; ++j) {
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t ka = (o * 2 * half + j) * inner + i;  // first half
          const int64_t kb = (o * 2 * half + half + j) * inner + i;
          const int64_t kh = (o * half + j) * inner + i;
          const double a = self.Get(ka);
          const double s = Sigmoid(self.Get(kb));
          if (mode == Mode::kGlu) {
            golden[static_cast<size_t>(kh)] = a * s;
          } else {
            const double g = grad.Get(kh);
            golden[static_cast<size_t>(ka)] = g * s;
            golden[static_cast<size_t>(kb)] = g * a * s * (1 - s);
          }
        }
      }
    }
  }
  CheckAgainstGolden(out, golden, glu ? "out" : backward ? "gradInput" : "out");
  return 0;
}

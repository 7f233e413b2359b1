// aclnnSoftmax, aclnnLogSoftmax and their backwards end to end on small problems with fuzzed
// shapes (rank 0 to 4, dims 0 to 6), dims in either spelling, FLOAT/FLOAT16/BFLOAT16 and layouts of
// every tensor: each output must match a float64 golden computed here from the stored inputs
// (mixed tolerance of the output's dtype), and no byte outside the output view may change.

#include <cmath>
#include <vector>

#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_logsoftmax_backward.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_backward.h"
#include "fuzz_layout.h"

using namespace openaclnn;
using namespace openaclnn::fuzz;

namespace {

enum class Mode { kSoftmax, kLogSoftmax, kSoftmaxBackward, kLogSoftmaxBackward };

// Row-major index of element (o, j, i) of a shape viewed as (outer, n, inner) around `dim`.
int64_t At(int64_t o, int64_t j, int64_t i, int64_t n, int64_t inner) {
  return (o * n + j) * inner + i;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  FuzzRuntime::Get();
  Arena arena;
  const Mode mode = static_cast<Mode>(fdp.ConsumeIntegralInRange(0, 3));
  std::vector<int64_t> shape;
  for (int i = fdp.ConsumeIntegralInRange(0, 4); i > 0; --i) {
    shape.push_back(fdp.ConsumeIntegralInRange(0, 6));
  }
  const int rank = static_cast<int>(shape.size());
  const int span = rank == 0 ? 1 : rank;  // a 0-d tensor takes dim 0 or -1
  const int d = fdp.ConsumeIntegralInRange(0, span - 1);
  const int64_t dim = fdp.ConsumeBool() ? d : d - span;
  int64_t outer = 1, n = 1, inner = 1;
  for (int k = 0; k < rank; ++k) {
    if (k < d) outer *= shape[k];
    if (k == d) n = shape[k];
    if (k > d) inner *= shape[k];
  }
  const aclDataType dtype = ConsumeFloatDtype(fdp);
  const bool backward = mode == Mode::kSoftmaxBackward || mode == Mode::kLogSoftmaxBackward;
  StridedTensor x(fdp, arena, shape, dtype);  // self, or gradOutput for the backwards
  StridedTensor y(fdp, arena, shape, dtype);  // output (backwards only)
  StridedTensor out(fdp, arena, shape, dtype);
  for (int64_t k = 0; k < x.numel(); ++k) {
    x.Set(k, static_cast<float>(fdp.ConsumeIntegralInRange(-32, 32)) / 8);
    if (mode == Mode::kSoftmaxBackward) {  // a probability-like output in [0, 1]
      y.Set(k, static_cast<float>(fdp.ConsumeIntegralInRange(0, 16)) / 16);
    } else if (mode == Mode::kLogSoftmaxBackward) {  // a log-probability-like output in [-4, 0]
      y.Set(k, static_cast<float>(fdp.ConsumeIntegralInRange(-32, 0)) / 8);
    }
  }

  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = 0;
  switch (mode) {
    case Mode::kSoftmax:
      status =
          aclnnSoftmaxGetWorkspaceSize(x.tensor(), dim, out.tensor(), &workspace_size, &executor);
      break;
    case Mode::kLogSoftmax:
      status = aclnnLogSoftmaxGetWorkspaceSize(x.tensor(), dim, out.tensor(), &workspace_size,
                                               &executor);
      break;
    case Mode::kSoftmaxBackward:
      status = aclnnSoftmaxBackwardGetWorkspaceSize(x.tensor(), y.tensor(), dim, out.tensor(),
                                                    &workspace_size, &executor);
      break;
    case Mode::kLogSoftmaxBackward:
      status = aclnnLogSoftmaxBackwardGetWorkspaceSize(x.tensor(), y.tensor(), dim, out.tensor(),
                                                       &workspace_size, &executor);
      break;
  }
  FUZZ_CHECK(status == 0, "phase 1 refused a valid problem: %d %s", status, aclGetRecentErrMsg());
  switch (mode) {
    case Mode::kSoftmax:
      status = RunPhase2AndSync(aclnnSoftmax, workspace_size, executor);
      break;
    case Mode::kLogSoftmax:
      status = RunPhase2AndSync(aclnnLogSoftmax, workspace_size, executor);
      break;
    case Mode::kSoftmaxBackward:
      status = RunPhase2AndSync(aclnnSoftmaxBackward, workspace_size, executor);
      break;
    case Mode::kLogSoftmaxBackward:
      status = RunPhase2AndSync(aclnnLogSoftmaxBackward, workspace_size, executor);
      break;
  }
  FUZZ_CHECK(status == 0, "phase 2 failed: %d", status);

  std::vector<double> golden(static_cast<size_t>(out.numel()), 0.0);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      if (!backward) {
        double max = -INFINITY;
        for (int64_t j = 0; j < n; ++j) max = std::fmax(max, x.Get(At(o, j, i, n, inner)));
        double sum = 0;
        for (int64_t j = 0; j < n; ++j) sum += std::exp(x.Get(At(o, j, i, n, inner)) - max);
        for (int64_t j = 0; j < n; ++j) {
          const double shifted = x.Get(At(o, j, i, n, inner)) - max;
          golden[static_cast<size_t>(At(o, j, i, n, inner))] =
              mode == Mode::kSoftmax ? std::exp(shifted) / sum : shifted - std::log(sum);
        }
        continue;
      }
      double dot = 0;  // sum(g * y) for softmax, sum(g) for log-softmax
      for (int64_t j = 0; j < n; ++j) {
        const int64_t k = At(o, j, i, n, inner);
        dot += mode == Mode::kSoftmaxBackward ? x.Get(k) * y.Get(k) : x.Get(k);
      }
      for (int64_t j = 0; j < n; ++j) {
        const int64_t k = At(o, j, i, n, inner);
        golden[static_cast<size_t>(k)] = mode == Mode::kSoftmaxBackward
                                             ? y.Get(k) * (x.Get(k) - dot)
                                             : x.Get(k) - std::exp(y.Get(k)) * dot;
      }
    }
  }
  CheckAgainstGolden(out, golden, "out");
  FUZZ_CHECK(!backward || x.CanariesIntact(), "gradOutput changed outside its view");
  return 0;
}

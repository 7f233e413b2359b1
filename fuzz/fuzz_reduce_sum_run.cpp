// aclnnReduceSum end to end on small problems with fuzzed shapes (rank 0 to 4, dims 0 to 6),
// dims lists (any subset in either spelling, or the empty list), keepDims, FLOAT/FLOAT16/BFLOAT16
// input and output dtypes, and layouts of self and out: every output must match a float64 golden
// (mixed tolerance; the inputs are multiples of 1/8, so the sums are nearly exact), and no byte
// outside the output view may change.

#include <vector>

#include "aclnnop/aclnn_reduce_sum.h"
#include "fuzz_layout.h"

using namespace openaclnn;
using namespace openaclnn::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  FuzzRuntime::Get();
  Arena arena;
  std::vector<int64_t> shape;
  for (int i = fdp.ConsumeIntegralInRange(0, 4); i > 0; --i) {
    shape.push_back(fdp.ConsumeIntegralInRange(0, 6));
  }
  const int rank = static_cast<int>(shape.size());
  std::vector<int64_t> dims;
  uint32_t mask = 0;
  if (fdp.ConsumeBool()) {
    for (int d = 0; d < rank; ++d) {
      if (!fdp.ConsumeBool()) continue;
      dims.push_back(fdp.ConsumeBool() ? d : d - rank);
      mask |= 1u << d;
    }
  }
  if (dims.empty()) mask = rank == 0 ? 0 : (1u << rank) - 1;
  const bool keep_dims = fdp.ConsumeBool();
  std::vector<int64_t> out_shape;
  for (int d = 0; d < rank; ++d) {
    if (!((mask >> d) & 1u)) {
      out_shape.push_back(shape[d]);
    } else if (keep_dims) {
      out_shape.push_back(1);
    }
  }
  const aclDataType in_dtype = ConsumeFloatDtype(fdp);
  const aclDataType out_dtype = ConsumeFloatDtype(fdp);
  StridedTensor self(fdp, arena, shape, in_dtype);
  StridedTensor out(fdp, arena, out_shape, out_dtype);
  for (int64_t i = 0; i < self.numel(); ++i) {
    self.Set(i, static_cast<float>(fdp.ConsumeIntegralInRange(-8, 8)) / 8);
  }

  const aclIntArray* dims_array =
      arena.Keep(aclCreateIntArray(dims.data(), static_cast<uint64_t>(dims.size())));
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = aclnnReduceSumGetWorkspaceSize(
      self.tensor(), dims_array, keep_dims, out_dtype, out.tensor(), &workspace_size, &executor);
  FUZZ_CHECK(status == 0, "phase 1 refused a valid problem: %d %s", status, aclGetRecentErrMsg());
  status = RunPhase2AndSync(aclnnReduceSum, workspace_size, executor);
  FUZZ_CHECK(status == 0, "phase 2 failed: %d", status);

  // Row-major kept index of each input element; the sum of its stored values in float64.
  std::vector<double> golden(static_cast<size_t>(out.numel()), 0.0);
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t i = 0; i < self.numel(); ++i) {
    int64_t k = 0;
    for (int d = 0; d < rank; ++d) {
      if (!((mask >> d) & 1u)) k = k * shape[d] + index[d];
    }
    golden[static_cast<size_t>(k)] += self.Get(i);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  CheckAgainstGolden(out, golden, "out");
  return 0;
}

// The pointwise operators end to end on small problems: Add, Sub, Mul, Div in their tensor,
// scalar and Inplace forms, InplaceCopy and Cast, with fuzzed float dtypes (each operand its own),
// broadcast shapes of rank 0 to 3 (empty dims too), alpha, scalar values and layouts. The output
// must match a float64 golden on every element (mixed tolerance of its dtype), and no byte outside
// an output view may change.

#include <cmath>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_sub.h"
#include "fuzz_layout.h"
#include "util/precision.h"

using namespace openaclnn;
using namespace openaclnn::fuzz;

namespace {

enum Op { kAdd, kSub, kMul, kDiv, kCopy, kCast };
enum Form { kTensor, kScalar, kInplaceTensor, kInplaceScalar };

double Apply(Op op, double x, double y, double alpha) {
  switch (op) {
    case kAdd:
      return x + alpha * y;
    case kSub:
      return x - alpha * y;
    case kMul:
      return x * y;
    default:
      return x / y;
  }
}

template <class Phase1, class Phase2>
void Run(Phase1 phase1, Phase2 phase2, const char* what) {
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  aclnnStatus status = phase1(&workspace_size, &executor);
  FUZZ_CHECK(status == 0, "%s: phase 1 refused a valid problem: %d %s", what, status,
             aclGetRecentErrMsg());
  status = RunPhase2AndSync(phase2, workspace_size, executor);
  FUZZ_CHECK(status == 0, "%s: phase 2 failed: %d", what, status);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  FuzzRuntime::Get();
  Arena arena;
  const Op op = static_cast<Op>(fdp.ConsumeIntegralInRange(0, 5));
  const Form form = static_cast<Form>(fdp.ConsumeIntegralInRange(0, 3));
  const bool scalar_form = op <= kDiv && (form == kScalar || form == kInplaceScalar);
  const bool inplace = op <= kDiv && (form == kInplaceTensor || form == kInplaceScalar);
  // The broadcast shape, then other's: a suffix of it with some dims 1.
  std::vector<int64_t> shape;
  for (int i = fdp.ConsumeIntegralInRange(0, 3); i > 0; --i) {
    shape.push_back(fdp.ConsumeIntegralInRange(0, 5));
  }
  std::vector<int64_t> other_shape(
      shape.begin() + fdp.ConsumeIntegralInRange<size_t>(0, shape.size()), shape.end());
  for (int64_t& d : other_shape) {
    if (fdp.ConsumeBool()) d = 1;
  }
  // Copy broadcasts src to selfRef; the binary forms broadcast other to self's shape (self has
  // the full shape, so Inplace forms are valid too).
  const aclDataType self_dtype = ConsumeFloatDtype(fdp);
  const aclDataType other_dtype = ConsumeFloatDtype(fdp);
  aclDataType out_dtype = ConsumeFloatDtype(fdp);
  if (inplace) out_dtype = self_dtype;
  StridedTensor self(fdp, arena, op == kCopy ? other_shape : shape, self_dtype);
  StridedTensor other(fdp, arena, other_shape, other_dtype);
  StridedTensor out(fdp, arena, shape, out_dtype);
  for (int64_t i = 0; i < self.numel(); ++i) {
    self.Set(i, static_cast<float>(fdp.ConsumeIntegralInRange(-32, 32)) / 8);
  }
  for (int64_t i = 0; i < other.numel(); ++i) {
    float v = static_cast<float>(fdp.ConsumeIntegralInRange(-32, 32)) / 8;
    if (op == kDiv && v == 0) v = 0.375f;  // no division by zero: the tolerance rule is for finite
    other.Set(i, v);
  }
  const float alpha_value = static_cast<float>(fdp.ConsumeIntegralInRange(-8, 8)) / 4;
  const float scalar_value = static_cast<float>(fdp.ConsumeIntegralInRange(1, 16)) / 4;
  aclScalar* alpha = aclCreateScalar(const_cast<float*>(&alpha_value), ACL_FLOAT);
  aclScalar* scalar = aclCreateScalar(const_cast<float*>(&scalar_value), ACL_FLOAT);

  // The golden values before the run (an Inplace form overwrites self).
  const int64_t n = out.numel();
  std::vector<double> golden(static_cast<size_t>(n));
  const int rank = static_cast<int>(shape.size());
  const int lead = rank - static_cast<int>(other_shape.size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t io = 0, rest = i, mul = 1;
    for (int d = rank - 1; d >= lead; --d) {
      const int64_t idx = rest % shape[d];
      rest /= shape[d];
      if (other_shape[d - lead] != 1) io += idx * mul;
      mul *= other_shape[d - lead];
    }
    if (op == kCopy) {
      golden[i] = other.Get(io);
    } else if (op == kCast) {
      golden[i] = self.Get(i);
    } else {
      // Binary: the compute dtype's fp32 for the three float types; scalars enter as fp32.
      const double y = scalar_form ? scalar_value : other.Get(io);
      golden[i] = Apply(op, self.Get(i), y, alpha_value);
    }
  }

  switch (op) {
    case kCopy:
      Run(
          [&](uint64_t* w, aclOpExecutor** e) {
            return aclnnInplaceCopyGetWorkspaceSize(out.tensor(), other.tensor(), w, e);
          },
          aclnnInplaceCopy, "InplaceCopy");
      break;
    case kCast:
      Run(
          [&](uint64_t* w, aclOpExecutor** e) {
            return aclnnCastGetWorkspaceSize(self.tensor(), out_dtype, out.tensor(), w, e);
          },
          aclnnCast, "Cast");
      break;
    default: {
      aclTensor* s = self.tensor();
      aclTensor* o = other.tensor();
      aclTensor* d = out.tensor();
      const char* what = "binary";
      if (op == kAdd) {
        if (form == kTensor)
          Run([&](uint64_t* w,
                  aclOpExecutor** e) { return aclnnAddGetWorkspaceSize(s, o, alpha, d, w, e); },
              aclnnAdd, what);
        if (form == kScalar)
          Run(
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnAddsGetWorkspaceSize(s, scalar, alpha, d, w, e);
              },
              aclnnAdds, what);
        if (form == kInplaceTensor)
          Run([&](uint64_t* w,
                  aclOpExecutor** e) { return aclnnInplaceAddGetWorkspaceSize(s, o, alpha, w, e); },
              aclnnInplaceAdd, what);
        if (form == kInplaceScalar)
          Run(
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnInplaceAddsGetWorkspaceSize(s, scalar, alpha, w, e);
              },
              aclnnInplaceAdds, what);
      } else if (op == kSub) {
        if (form == kTensor)
          Run([&](uint64_t* w,
                  aclOpExecutor** e) { return aclnnSubGetWorkspaceSize(s, o, alpha, d, w, e); },
              aclnnSub, what);
        if (form == kScalar)
          Run(
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnSubsGetWorkspaceSize(s, scalar, alpha, d, w, e);
              },
              aclnnSubs, what);
        if (form == kInplaceTensor)
          Run([&](uint64_t* w,
                  aclOpExecutor** e) { return aclnnInplaceSubGetWorkspaceSize(s, o, alpha, w, e); },
              aclnnInplaceSub, what);
        if (form == kInplaceScalar)
          Run(
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnInplaceSubsGetWorkspaceSize(s, scalar, alpha, w, e);
              },
              aclnnInplaceSubs, what);
      } else if (op == kMul) {
        if (form == kTensor)
          Run([&](uint64_t* w,
                  aclOpExecutor** e) { return aclnnMulGetWorkspaceSize(s, o, d, w, e); },
              aclnnMul, what);
        if (form == kScalar)
          Run([&](uint64_t* w,
                  aclOpExecutor** e) { return aclnnMulsGetWorkspaceSize(s, scalar, d, w, e); },
              aclnnMuls, what);
        if (form == kInplaceTensor)
          Run([&](uint64_t* w,
                  aclOpExecutor** e) { return aclnnInplaceMulGetWorkspaceSize(s, o, w, e); },
              aclnnInplaceMul, what);
        if (form == kInplaceScalar)
          Run([&](uint64_t* w,
                  aclOpExecutor** e) { return aclnnInplaceMulsGetWorkspaceSize(s, scalar, w, e); },
              aclnnInplaceMuls, what);
      } else {
        if (form == kTensor)
          Run([&](uint64_t* w,
                  aclOpExecutor** e) { return aclnnDivGetWorkspaceSize(s, o, d, w, e); },
              aclnnDiv, what);
        if (form == kScalar)
          Run([&](uint64_t* w,
                  aclOpExecutor** e) { return aclnnDivsGetWorkspaceSize(s, scalar, d, w, e); },
              aclnnDivs, what);
        if (form == kInplaceTensor)
          Run([&](uint64_t* w,
                  aclOpExecutor** e) { return aclnnInplaceDivGetWorkspaceSize(s, o, w, e); },
              aclnnInplaceDiv, what);
        if (form == kInplaceScalar)
          Run([&](uint64_t* w,
                  aclOpExecutor** e) { return aclnnInplaceDivsGetWorkspaceSize(s, scalar, w, e); },
              aclnnInplaceDivs, what);
      }
      break;
    }
  }
  aclDestroyScalar(alpha);
  aclDestroyScalar(scalar);
  if (op == kCast) {
    CheckAgainstGolden(out, golden, "Cast out");
  } else if (inplace) {
    CheckAgainstGolden(self, golden, "selfRef");
    FUZZ_CHECK(out.Untouched(), "an Inplace form wrote to the unused out tensor");
  } else {
    CheckAgainstGolden(out, golden, "out");
    FUZZ_CHECK(self.CanariesIntact() && other.CanariesIntact(), "an input's canaries changed");
  }
  return 0;
}

#include "ops/softmax/cpu/row_engine.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "ops/softmax/cpu/row_kernels.h"

namespace openaclnn::softmax::cpu {
namespace {

// Elements per task: rows are grouped so each task touches about this many elements; the grouping
// depends on the shape only, so every thread count computes the same sums in the same order.
constexpr int64_t kElementsPerTask = 1 << 16;

// Row gather and scatter with the dtype switch outside the element loop (a loop per dtype the
// compiler can vectorise when step is 1).
template <typename T>
void GatherRow(T* dst, const void* base, aclDataType dtype, int64_t start, int64_t step,
               int64_t n) {
  switch (dtype) {
    case ACL_DOUBLE: {
      const double* p = static_cast<const double*>(base) + start;
      for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<T>(p[i * step]);
      break;
    }
    case ACL_FLOAT: {
      const float* p = static_cast<const float*>(base) + start;
      if (step == 1) {
        for (int64_t i = 0; i < n; ++i) dst[i] = p[i];
      } else {
        for (int64_t i = 0; i < n; ++i) dst[i] = p[i * step];
      }
      break;
    }
    case ACL_BF16: {
      const uint16_t* p = static_cast<const uint16_t*>(base) + start;
      for (int64_t i = 0; i < n; ++i) dst[i] = BFloat16ToFloat(p[i * step]);
      break;
    }
    default: {
      const uint16_t* p = static_cast<const uint16_t*>(base) + start;
      for (int64_t i = 0; i < n; ++i) dst[i] = HalfToFloat(p[i * step]);
      break;
    }
  }
}

template <typename T>
void ScatterRow(void* base, aclDataType dtype, int64_t start, int64_t step, const T* src,
                int64_t n) {
  switch (dtype) {
    case ACL_DOUBLE: {
      double* p = static_cast<double*>(base) + start;
      for (int64_t i = 0; i < n; ++i) p[i * step] = static_cast<double>(src[i]);
      break;
    }
    case ACL_FLOAT: {
      float* p = static_cast<float*>(base) + start;
      if (step == 1) {
        for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(src[i]);
      } else {
        for (int64_t i = 0; i < n; ++i) p[i * step] = static_cast<float>(src[i]);
      }
      break;
    }
    case ACL_BF16: {
      uint16_t* p = static_cast<uint16_t*>(base) + start;
      for (int64_t i = 0; i < n; ++i) p[i * step] = FloatToBFloat16(static_cast<float>(src[i]));
      break;
    }
    default: {
      uint16_t* p = static_cast<uint16_t*>(base) + start;
      for (int64_t i = 0; i < n; ++i) p[i * step] = FloatToHalf(static_cast<float>(src[i]));
      break;
    }
  }
}

// Sum of v[0..n) in 8 interleaved partial sums per block of 128 (vectorisable, error growing with
// the block and not the row), block sums added in double.
template <typename T, typename F>
double RowSum(int64_t n, F&& term) {
  constexpr int kLanes = 8;
  constexpr int64_t kBlock = 128;
  double total = 0.0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t end = std::min(n, b + kBlock);
    T lanes[kLanes] = {};
    int64_t i = b;
    for (; i + kLanes <= end; i += kLanes) {
      for (int l = 0; l < kLanes; ++l) lanes[l] += term(i + l);
    }
    for (; i < end; ++i) lanes[0] += term(i);
    T block = 0;
    for (int l = 0; l < kLanes; ++l) block += lanes[l];
    total += static_cast<double>(block);
  }
  return total;
}

// The fp32 forward rows and the log-softmax gradient on the Highway kernels of the plan's target.
bool RunRowSimd(const openaclnn::cpu::KernelTarget& target, Kind kind, int64_t n, float* a,
                const float* b) {
  switch (kind) {
    case Kind::kSoftmax: {
      const float m = RowMax(target, a, n);
      const float s = static_cast<float>(RowExpSum(target, a, n, m, true));
      RowAffine(target, a, n, 1.0f / s, 0.0f);
      return true;
    }
    case Kind::kLogSoftmax: {
      const float m = RowMax(target, a, n);
      const float log_sum = std::log(static_cast<float>(RowExpSum(target, a, n, m, false)));
      // (x - max) first: exact for x near max, so equal values give exactly -log(n).
      RowAffine(target, a, n, 1.0f, -m);
      RowAffine(target, a, n, 1.0f, -log_sum);
      return true;
    }
    case Kind::kLogSoftmaxBackward: {
      const float s = static_cast<float>(RowSum<float>(n, [&](int64_t i) { return a[i]; }));
      RowSubExpScaled(target, a, b, n, s);
      return true;
    }
    default:
      return false;
  }
}

template <typename T>
void RunRow(Kind kind, int64_t n, T* a, const T* b) {
  switch (kind) {
    case Kind::kSoftmax:
    case Kind::kLogSoftmax: {
      T m = -INFINITY;
      bool nan = false;
      for (int64_t i = 0; i < n; ++i) {
        m = std::max(m, a[i]);
        nan |= std::isnan(a[i]);
      }
      if (nan) m = NAN;  // the whole row NaN, as PyTorch
      if (kind == Kind::kSoftmax) {
        for (int64_t i = 0; i < n; ++i) a[i] = std::exp(a[i] - m);
        const T s = static_cast<T>(RowSum<T>(n, [&](int64_t i) { return a[i]; }));
        for (int64_t i = 0; i < n; ++i) a[i] = a[i] / s;
      } else {
        const T s = static_cast<T>(RowSum<T>(n, [&](int64_t i) { return std::exp(a[i] - m); }));
        // (x - max) first: exact for x near max, so equal values give exactly -log(n).
        const T log_sum = std::log(s);
        for (int64_t i = 0; i < n; ++i) a[i] = (a[i] - m) - log_sum;
      }
      break;
    }
    case Kind::kSoftmaxBackward: {
      const T s = static_cast<T>(RowSum<T>(n, [&](int64_t i) { return a[i] * b[i]; }));
      for (int64_t i = 0; i < n; ++i) a[i] = b[i] * (a[i] - s);
      break;
    }
    case Kind::kLogSoftmaxBackward: {
      const T s = static_cast<T>(RowSum<T>(n, [&](int64_t i) { return a[i]; }));
      for (int64_t i = 0; i < n; ++i) a[i] = a[i] - std::exp(b[i]) * s;
      break;
    }
  }
}

class FastPlan : public Plan {
 public:
  explicit FastPlan(const Problem& p)
      : p_(p), view_(p), target_(openaclnn::cpu::PlanningTarget()) {}

  Status Run(const Bindings& bindings, void* /*workspace*/) const override {
    if (p_.x.dtype == ACL_DOUBLE) return RunTyped<double>(bindings);
    return RunTyped<float>(bindings);
  }

 private:
  template <typename T>
  Status RunTyped(const Bindings& bindings) const {
    const bool backward = IsBackward(p_.kind);
    const void* x = p_.x.First(bindings.inputs[backward ? kGradOutput : kSelf]);
    const void* y = backward ? p_.y.First(bindings.inputs[kOutput]) : nullptr;
    void* out = p_.out.First(bindings.outputs[kOut]);
    const int64_t n = view_.n;
    const int64_t rows_per_task = std::max<int64_t>(1, kElementsPerTask / std::max<int64_t>(n, 1));
    const int64_t tasks = (view_.rows + rows_per_task - 1) / rows_per_task;
    openaclnn::cpu::ParallelFor(tasks, [&](int64_t task) {
      std::vector<T> a(static_cast<size_t>(n)), b(backward ? static_cast<size_t>(n) : 0);
      const int64_t end = std::min(view_.rows, (task + 1) * rows_per_task);
      for (int64_t r = task * rows_per_task; r < end; ++r) {
        int64_t start[3];
        view_.RowStart(r, start);
        GatherRow<T>(a.data(), x, p_.x.dtype, start[0], view_.step[0], n);
        if (backward) GatherRow<T>(b.data(), y, p_.y.dtype, start[1], view_.step[1], n);
        bool done = false;
        if constexpr (sizeof(T) == sizeof(float)) {
          done = RunRowSimd(target_, p_.kind, n, a.data(), b.data());
        }
        if (!done) RunRow<T>(p_.kind, n, a.data(), b.data());
        ScatterRow<T>(out, p_.out.dtype, start[2], view_.step[2], a.data(), n);
      }
    });
    return Status::Ok();
  }

  Problem p_;
  RowView view_;
  openaclnn::cpu::KernelTarget target_;
};

}  // namespace

const char* FastDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking*) {
  return std::make_unique<FastPlan>(problem);
}

}  // namespace openaclnn::softmax::cpu

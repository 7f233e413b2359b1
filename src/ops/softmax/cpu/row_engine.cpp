#include "ops/softmax/cpu/row_engine.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "api/byte_span.h"
#include "api/elem_type.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/float_runs.h"
#include "ops/softmax/cpu/column_kernels.h"
#include "ops/softmax/cpu/row_kernels.h"

namespace openaclnn::softmax::cpu {
namespace {

// Elements per task: rows are grouped so each task touches about this many elements; the grouping
// depends on the shape only, so every thread count computes the same sums in the same order.
constexpr int64_t kElementsPerTask = 1 << 16;
// Rows gathered together when the softmax dim is not the innermost one.
constexpr int64_t kTileColumns = 16;
// The outer-dim panels: at least this many rows side by side, and at most this many elements a
// panel (1 MiB of fp32, about a core's L2 cache: wider panels gave no more on Zen 4).
constexpr int64_t kMinPanelRows = 8;
constexpr int64_t kPanelElements = 1 << 18;

// Gather of `cols` rows (row c starts col_step elements after row c - 1) into dst[c * n + k], and
// the scatter back. The element loop walks the columns innermost, so rows of adjacent columns (an
// outer-dim softmax over contiguous inner dims) read whole cache lines; the dtype switch sits
// outside the loops.
template <typename T, typename E, typename Convert>
void GatherTyped(T* dst, const E* p, int64_t step, int64_t n, int64_t cols, int64_t col_step,
                 Convert convert) {
  if (cols == 1) {
    for (int64_t k = 0; k < n; ++k) dst[k] = static_cast<T>(convert(p[k * step]));
    return;
  }
  for (int64_t k = 0; k < n; ++k) {
    for (int64_t c = 0; c < cols; ++c) {
      dst[c * n + k] = static_cast<T>(convert(p[k * step + c * col_step]));
    }
  }
}

template <typename T>
void GatherRows(const openaclnn::cpu::KernelTarget& target, T* dst, const void* base,
                aclDataType dtype, int64_t start, int64_t step, int64_t n, int64_t cols,
                int64_t col_step) {
  // One contiguous fp32, fp16 or bf16 row into an fp32 buffer: the kit's vector conversions.
  if constexpr (std::is_same_v<T, float>) {
    if (cols == 1 && (step == 1 || n == 1) && dtype != ACL_DOUBLE) {
      const ElemType type = ToElemType(dtype);
      openaclnn::cpu::LoadFloatRun(
          target, type,
          static_cast<const unsigned char*>(base) + start * static_cast<int64_t>(ElemSize(type)), n,
          dst);
      return;
    }
  }
  auto same = [](auto v) { return v; };
  switch (dtype) {
    case ACL_DOUBLE:
      GatherTyped(dst, static_cast<const double*>(base) + start, step, n, cols, col_step, same);
      break;
    case ACL_FLOAT:
      GatherTyped(dst, static_cast<const float*>(base) + start, step, n, cols, col_step, same);
      break;
    case ACL_BF16:
      GatherTyped(dst, static_cast<const uint16_t*>(base) + start, step, n, cols, col_step,
                  BFloat16ToFloat);
      break;
    default:
      GatherTyped(dst, static_cast<const uint16_t*>(base) + start, step, n, cols, col_step,
                  HalfToFloat);
      break;
  }
}

template <typename T, typename E, typename Convert>
void ScatterTyped(E* p, int64_t step, const T* src, int64_t n, int64_t cols, int64_t col_step,
                  Convert convert) {
  if (cols == 1) {
    for (int64_t k = 0; k < n; ++k) p[k * step] = convert(src[k]);
    return;
  }
  for (int64_t k = 0; k < n; ++k) {
    for (int64_t c = 0; c < cols; ++c) p[k * step + c * col_step] = convert(src[c * n + k]);
  }
}

template <typename T>
void ScatterRows(const openaclnn::cpu::KernelTarget& target, void* base, aclDataType dtype,
                 int64_t start, int64_t step, const T* src, int64_t n, int64_t cols,
                 int64_t col_step) {
  if constexpr (std::is_same_v<T, float>) {
    if (cols == 1 && (step == 1 || n == 1) && dtype != ACL_DOUBLE) {
      const ElemType type = ToElemType(dtype);
      openaclnn::cpu::StoreFloatRun(
          target, type, src, n,
          static_cast<unsigned char*>(base) + start * static_cast<int64_t>(ElemSize(type)));
      return;
    }
  }
  switch (dtype) {
    case ACL_DOUBLE:
      ScatterTyped(static_cast<double*>(base) + start, step, src, n, cols, col_step,
                   [](T v) { return static_cast<double>(v); });
      break;
    case ACL_FLOAT:
      ScatterTyped(static_cast<float*>(base) + start, step, src, n, cols, col_step,
                   [](T v) { return static_cast<float>(v); });
      break;
    case ACL_BF16:
      ScatterTyped(static_cast<uint16_t*>(base) + start, step, src, n, cols, col_step,
                   [](T v) { return FloatToBFloat16(static_cast<float>(v)); });
      break;
    default:
      ScatterTyped(static_cast<uint16_t*>(base) + start, step, src, n, cols, col_step,
                   [](T v) { return FloatToHalf(static_cast<float>(v)); });
      break;
  }
}

// Per-thread scratch (slot 0 or 1), grown as needed and kept between tasks and calls: a fresh
// vector per task maps and unmaps pages for rows or panels of 128 KiB and more, every task.
template <typename T>
T* ThreadScratch(int slot, size_t count) {
  thread_local std::vector<T> buffers[2];
  std::vector<T>& buffer = buffers[slot];
  if (buffer.size() < count) buffer.resize(count);
  return buffer.data();
}

// Panels of the outer-dim path: up to kMaxPanelRows adjacent rows whose elements are `step` apart
// and whose neighbours are neighbouring elements, stored as panel[k * w + c] (element k of row c;
// rows cols..w are zero padding so the kernels run whole vectors). Each k reads or writes one
// contiguous run of `cols` elements; the run kPrefetchAhead steps ahead is requested first, as the
// runs usually sit in pages of their own, where the hardware prefetchers do not follow the stride.
constexpr int64_t kPrefetchAhead = 16;

template <int kWrite, typename E>
void PrefetchRun(const E* run, int64_t cols) {
  const char* bytes = reinterpret_cast<const char*>(run);
  for (int64_t b = 0; b < cols * static_cast<int64_t>(sizeof(E)); b += 64) {
    __builtin_prefetch(bytes + b, kWrite);
  }
}

template <typename E, typename Convert>
void GatherPanelTyped(float* panel, const E* p, int64_t step, int64_t n, int64_t cols, int64_t w,
                      Convert convert) {
  for (int64_t k = 0; k < n; ++k) {
    const E* src = p + k * step;
    if (k + kPrefetchAhead < n) PrefetchRun<0>(src + kPrefetchAhead * step, cols);
    float* row = panel + k * w;
    for (int64_t c = 0; c < cols; ++c) row[c] = convert(src[c]);
    for (int64_t c = cols; c < w; ++c) row[c] = 0.f;
  }
}

void GatherPanel(float* panel, const void* base, aclDataType dtype, int64_t start, int64_t step,
                 int64_t n, int64_t cols, int64_t w) {
  switch (dtype) {
    case ACL_FLOAT:
      GatherPanelTyped(panel, static_cast<const float*>(base) + start, step, n, cols, w,
                       [](float v) { return v; });
      break;
    case ACL_BF16:
      GatherPanelTyped(panel, static_cast<const uint16_t*>(base) + start, step, n, cols, w,
                       BFloat16ToFloat);
      break;
    default:
      GatherPanelTyped(panel, static_cast<const uint16_t*>(base) + start, step, n, cols, w,
                       HalfToFloat);
      break;
  }
}

template <typename E, typename Convert>
void ScatterPanelTyped(E* p, int64_t step, const float* panel, int64_t n, int64_t cols, int64_t w,
                       Convert convert) {
  for (int64_t k = 0; k < n; ++k) {
    E* dst = p + k * step;
    if (k + kPrefetchAhead < n) PrefetchRun<1>(dst + kPrefetchAhead * step, cols);
    const float* row = panel + k * w;
    for (int64_t c = 0; c < cols; ++c) dst[c] = convert(row[c]);
  }
}

void ScatterPanel(void* base, aclDataType dtype, int64_t start, int64_t step, const float* panel,
                  int64_t n, int64_t cols, int64_t w) {
  switch (dtype) {
    case ACL_DOUBLE:
      ScatterPanelTyped(static_cast<double*>(base) + start, step, panel, n, cols, w,
                        [](float v) { return static_cast<double>(v); });
      break;
    case ACL_FLOAT:
      ScatterPanelTyped(static_cast<float*>(base) + start, step, panel, n, cols, w,
                        [](float v) { return v; });
      break;
    case ACL_BF16:
      ScatterPanelTyped(static_cast<uint16_t*>(base) + start, step, panel, n, cols, w,
                        FloatToBFloat16);
      break;
    default:
      ScatterPanelTyped(static_cast<uint16_t*>(base) + start, step, panel, n, cols, w, FloatToHalf);
      break;
  }
}

// Sum of v[0..n) in 8 interleaved partial sums per block of 128 (vectorisable, error growing with
// the block and not the row), block sums added in double.
template <typename T, typename F>
double RowSum(int64_t n, F&& term) {
  constexpr int kLanes = kScalarSumLanes;
  constexpr int64_t kBlock = kScalarSumBlock;
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

// A DOUBLE row: the same steps in scalar double.
template <typename T>
void RunRowDouble(Kind kind, int64_t n, T* a, const T* b) {
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
    if (UsesPanels()) return RunPanels(bindings);
    if (ContiguousRows()) return RunContiguousRows(bindings);
    return RunTyped<float>(bindings);
  }

 private:
  // Contiguous rows in every tensor (FLOAT, FLOAT16 or BFLOAT16): one row kernel call a row.
  bool ContiguousRows() const {
    const bool backward = IsBackward(p_.kind);
    return view_.step[0] == 1 && view_.step[2] == 1 && p_.out.dtype != ACL_DOUBLE &&
           (!backward || (view_.step[1] == 1 && p_.y.dtype != ACL_DOUBLE));
  }

  // All FLOAT, with an output that shares no byte with an input or is exactly that input: the
  // kernel reads and writes the tensors themselves, no row buffer.
  bool ComputesInPlace(const Bindings& bindings) const {
    const bool backward = IsBackward(p_.kind);
    const void* out_base = bindings.outputs[kOut];
    const auto fits = [&](const TensorDesc& in, const void* in_base) {
      if (in.dtype != ACL_FLOAT) return false;
      return !SpansOverlap(p_.out, out_base, in, in_base) ||
             (in_base == out_base && SameView(in, p_.out));
    };
    return p_.out.dtype == ACL_FLOAT &&
           fits(p_.x, bindings.inputs[backward ? kGradOutput : kSelf]) &&
           (!backward || fits(p_.y, bindings.inputs[kOutput]));
  }

  // The same rows per task as RunTyped, each computed alone by the same kernel: the same bits.
  // Rows of 16-bit or mixed types are widened into row buffers and rounded back in the same call.
  Status RunContiguousRows(const Bindings& bindings) const {
    const bool backward = IsBackward(p_.kind);
    const void* x = p_.x.First(bindings.inputs[backward ? kGradOutput : kSelf]);
    const void* y = backward ? p_.y.First(bindings.inputs[kOutput]) : nullptr;
    void* out = p_.out.First(bindings.outputs[kOut]);
    const bool in_place = ComputesInPlace(bindings);
    const ElemType x_type = ToElemType(p_.x.dtype), out_type = ToElemType(p_.out.dtype);
    const ElemType y_type = backward ? ToElemType(p_.y.dtype) : x_type;
    const int64_t x_size = static_cast<int64_t>(ElemSize(x_type));
    const int64_t y_size = static_cast<int64_t>(ElemSize(y_type));
    const int64_t out_size = static_cast<int64_t>(ElemSize(out_type));
    const int64_t n = view_.n;
    const int64_t rows_per_task = std::max<int64_t>(1, kElementsPerTask / std::max<int64_t>(n, 1));
    const int64_t tasks = (view_.rows + rows_per_task - 1) / rows_per_task;
    openaclnn::cpu::ParallelFor(tasks, [&](int64_t task) {
      float* a = in_place ? nullptr : ThreadScratch<float>(0, n);
      float* b = in_place || !backward ? nullptr : ThreadScratch<float>(1, n);
      const int64_t end = std::min(view_.rows, (task + 1) * rows_per_task);
      for (int64_t r = task * rows_per_task; r < end; ++r) {
        int64_t start[3];
        view_.RowStart(r, start);
        const void* x_row = static_cast<const char*>(x) + start[0] * x_size;
        const void* y_row = backward ? static_cast<const char*>(y) + start[1] * y_size : nullptr;
        void* out_row = static_cast<char*>(out) + start[2] * out_size;
        if (in_place) {
          RunRow(target_, p_.kind, n, static_cast<const float*>(x_row),
                 static_cast<const float*>(y_row), static_cast<float*>(out_row));
        } else {
          RunRowConverted(target_, p_.kind, n, {x_row, x_type, y_row, y_type, out_row, out_type}, a,
                          b);
        }
      }
    });
    return Status::Ok();
  }

  // The outer-dim path: rows whose elements are apart in memory (dim is not the innermost stored
  // dim) while neighbouring rows are neighbouring elements in every tensor, with at least
  // kMinPanelRows of them side by side and rows short enough for a panel of 16 in the budget.
  bool UsesPanels() const {
    const int last = view_.outer_rank - 1;
    if (last < 0 || view_.step[0] == 1 || view_.outer_dims[last] < kMinPanelRows ||
        view_.n * 16 > kPanelElements) {
      return false;
    }
    for (int set = 0; set < 3; ++set) {
      if (set == 1 && !IsBackward(p_.kind)) continue;
      if (view_.outer_strides[set][last] != 1) return false;
    }
    return true;
  }

  // Panels of up to kMaxPanelRows adjacent rows (a multiple of 16, within kPanelElements), as
  // many per task as make about kElementsPerTask elements: the split depends on the shape only,
  // and each row is computed alone, so any thread count gives the same bits.
  Status RunPanels(const Bindings& bindings) const {
    const bool backward = IsBackward(p_.kind);
    const void* x = p_.x.First(bindings.inputs[backward ? kGradOutput : kSelf]);
    const void* y = backward ? p_.y.First(bindings.inputs[kOutput]) : nullptr;
    void* out = p_.out.First(bindings.outputs[kOut]);
    const int64_t n = view_.n;
    const int64_t side = view_.outer_dims[view_.outer_rank - 1];
    const int64_t width =
        std::min<int64_t>(kMaxPanelRows, std::max<int64_t>(16, kPanelElements / n / 16 * 16));
    const int64_t panels_per_group = (side + width - 1) / width;
    const int64_t panels = view_.rows / side * panels_per_group;
    const int64_t per_task = std::max<int64_t>(1, kElementsPerTask / (n * width));
    const int64_t tasks = (panels + per_task - 1) / per_task;
    openaclnn::cpu::ParallelFor(tasks, [&](int64_t task) {
      const size_t size = static_cast<size_t>(n * width);
      float* a = ThreadScratch<float>(0, size);
      float* b = backward ? ThreadScratch<float>(1, size) : nullptr;
      const int64_t end = std::min(panels, (task + 1) * per_task);
      for (int64_t panel = task * per_task; panel < end; ++panel) {
        const int64_t first = panel % panels_per_group * width;
        const int64_t r = panel / panels_per_group * side + first;
        const int64_t cols = std::min(width, side - first);
        const int64_t w = (cols + 15) / 16 * 16;
        int64_t start[3];
        view_.RowStart(r, start);
        GatherPanel(a, x, p_.x.dtype, start[0], view_.step[0], n, cols, w);
        if (backward) GatherPanel(b, y, p_.y.dtype, start[1], view_.step[1], n, cols, w);
        RunColumnPanel(target_, p_.kind, n, w, a, b);
        ScatterPanel(out, p_.out.dtype, start[2], view_.step[2], a, n, cols, w);
      }
    });
    return Status::Ok();
  }

  template <typename T>
  Status RunTyped(const Bindings& bindings) const {
    const bool backward = IsBackward(p_.kind);
    const void* x = p_.x.First(bindings.inputs[backward ? kGradOutput : kSelf]);
    const void* y = backward ? p_.y.First(bindings.inputs[kOutput]) : nullptr;
    void* out = p_.out.First(bindings.outputs[kOut]);
    const int64_t n = view_.n;
    const int64_t rows_per_task = std::max<int64_t>(1, kElementsPerTask / std::max<int64_t>(n, 1));
    const int64_t tasks = (view_.rows + rows_per_task - 1) / rows_per_task;
    // Rows of adjacent columns (consecutive row indices along the last outer dim) are gathered
    // together, up to kTileColumns and kElementsPerTask elements; each row is still computed
    // alone, so the tiling changes no result.
    const int last = view_.outer_rank - 1;
    const int64_t tile =
        (last < 0 || view_.step[0] == 1)
            ? 1
            : std::max<int64_t>(1, std::min<int64_t>(kTileColumns, kElementsPerTask / n));
    openaclnn::cpu::ParallelFor(tasks, [&](int64_t task) {
      const size_t size = static_cast<size_t>(n * tile);
      T* a = ThreadScratch<T>(0, size);
      T* b = backward ? ThreadScratch<T>(1, size) : nullptr;
      const int64_t end = std::min(view_.rows, (task + 1) * rows_per_task);
      for (int64_t r = task * rows_per_task; r < end;) {
        int64_t cols = std::min(tile, end - r);
        if (last >= 0) cols = std::min(cols, view_.outer_dims[last] - r % view_.outer_dims[last]);
        int64_t start[3];
        view_.RowStart(r, start);
        const int64_t col_step[3] = {last >= 0 ? view_.outer_strides[0][last] : 0,
                                     last >= 0 ? view_.outer_strides[1][last] : 0,
                                     last >= 0 ? view_.outer_strides[2][last] : 0};
        GatherRows<T>(target_, a, x, p_.x.dtype, start[0], view_.step[0], n, cols, col_step[0]);
        if (backward) {
          GatherRows<T>(target_, b, y, p_.y.dtype, start[1], view_.step[1], n, cols, col_step[1]);
        }
        for (int64_t c = 0; c < cols; ++c) {
          T* row = a + c * n;
          const T* grad_row = backward ? b + c * n : nullptr;
          if constexpr (std::is_same_v<T, float>) {
            RunRow(target_, p_.kind, n, row, grad_row, row);
          } else {
            RunRowDouble<T>(p_.kind, n, row, grad_row);
          }
        }
        ScatterRows<T>(target_, out, p_.out.dtype, start[2], view_.step[2], a, n, cols,
                       col_step[2]);
        r += cols;
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

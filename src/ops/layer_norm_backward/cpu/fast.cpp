#include "ops/layer_norm_backward/cpu/fast.h"

#include <algorithm>
#include <cstring>

#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "ops/layer_norm_backward/cpu/row_kernels.h"

namespace openaclnn::layer_norm_backward::cpu {
namespace {

constexpr int64_t kColumnBlock = 4096;  // columns per task when filling weight or reducing
static_assert(kColumnBlock % 16 == 0, "a task's columns must hold whole groups of SwappedColumn");
constexpr size_t kHalfPage = 2048;
// Column work this small runs on the calling thread: waking the pool costs more (each wake-up
// is a scheduling delay on a busy machine).
constexpr int64_t kSerialColumns = int64_t{1} << 18;
// Likewise problems of at most this many elements run their row chunks on the calling thread
// (the same chunks, hence the same bits). Through the pool, the stream's thread, the pool's
// worker and the caller spinning in aclrtSynchronizeStream are three threads on two CPUs: (1000,
// 1) took 6-8 us; back-to-back calls on a Zen 3 VM, two threads against one: (64, 1024) FLOAT
// 26 us against 25, (128, 1024) FLOAT 88 us against 47 and BF16 128 against 76; from about
// 200000 elements on, two threads were as fast or faster ((256, 768) FLOAT 131 us against 128,
// (8192, 24) 118 against 141, (256, 1024) BF16 151 against 198).
constexpr int64_t kSerialElements = int64_t{1} << 17;

template <class Fn>
void ForTasks(int64_t tasks, bool serial, const Fn& fn) {
  if (serial) {
    for (int64_t t = 0; t < tasks; ++t) fn(t);
  } else {
    openaclnn::cpu::ParallelFor(tasks, fn);
  }
}

// Columns [c0, c1) of a weight laid out as one run, as floats, into w[at(c)]. The per-column work
// of small-M problems: a switch and an odometer step per element cost about as much as the rows
// of (8, 4096) themselves.
template <class At>
void CopyWeightRun(const void* weight, aclDataType dtype, int64_t c0, int64_t c1, bool swapped,
                   const At& at, float* w) {
  const uint16_t* halves = static_cast<const uint16_t*>(weight);
  if (dtype == ACL_BF16) {
    for (int64_t c = c0; c < c1; ++c) w[at(c)] = BFloat16ToFloat(halves[c]);
    return;
  }
  if (dtype == ACL_FLOAT16) {
    for (int64_t c = c0; c < c1; ++c) w[at(c)] = HalfToFloat(halves[c]);
    return;
  }
  const float* src = static_cast<const float*>(weight);
  if (!swapped) {
    std::memcpy(w + c0, src + c0, static_cast<size_t>(c1 - c0) * sizeof(float));
    return;
  }
  for (int64_t c = c0; c < c1; ++c) w[at(c)] = src[c];
}

// acc[0, c1 - c0) rounded once into columns [c0, c1) of an output laid out as one run.
void StoreRun(const float* acc, int64_t c0, int64_t c1, aclDataType dtype, void* out) {
  const int64_t count = c1 - c0;
  switch (dtype) {
    case ACL_FLOAT16: {
      uint16_t* dst = static_cast<uint16_t*>(out) + c0;
      for (int64_t i = 0; i < count; ++i) dst[i] = FloatToHalf(acc[i]);
      break;
    }
    case ACL_BF16: {
      uint16_t* dst = static_cast<uint16_t*>(out) + c0;
      for (int64_t i = 0; i < count; ++i) dst[i] = FloatToBFloat16(acc[i]);
      break;
    }
    default:
      std::memcpy(static_cast<float*>(out) + c0, acc, static_cast<size_t>(count) * sizeof(float));
      break;
  }
}

class FastPlan : public Plan {
 public:
  FastPlan(const Problem& p, WorkspaceBooking* ws)
      : p_(p), target_(openaclnn::cpu::PlanningTarget()) {
    const int64_t n = p.n;
    args_.n = n;
    args_.n_pad = (n + kBlock - 1) / kBlock * kBlock;
    args_.in = ToElemType(p.input.dtype);
    args_.dx = ToElemType(p.mask[0] ? p.grad_input.dtype : ACL_FLOAT);
    args_.mean = ToElemType(p.mean.dtype);
    args_.rstd = ToElemType(p.rstd.dtype);
    args_.want_dx = p.mask[0];
    args_.want_params = p.AnyParamGrad();
    // Without gradInput, give its stride set dy's strides so it never blocks a merge.
    const TensorDesc& dx_desc = p.mask[0] ? p.grad_input : p.grad_out;
    const int64_t* sets[3] = {p.grad_out.strides.data(), p.input.strides.data(),
                              dx_desc.strides.data()};
    args_.lead = Collapse<3>(p.input.dims.data(), 0, p.begin, sets);
    args_.trail = Collapse<3>(p.input.dims.data(), p.begin, p.input.rank, sets);
    args_.rows_contiguous = args_.trail.AllUnitStride();
    // Non-temporal stores pay once what one call streams (dy, x and dx) no longer fits in the
    // caches: dx's lines would be evicted before reuse anyway, and regular stores first read them
    // (machine.md: 23 -> 31 GB/s from DRAM on 2 threads). Below that they cost.
    const int64_t streamed_bytes =
        p.m * n *
        static_cast<int64_t>(DTypeSize(p.grad_out.dtype) + DTypeSize(p.input.dtype) +
                             DTypeSize(p.grad_input.dtype));
    args_.stream_dx =
        args_.want_dx && args_.rows_contiguous && streamed_bytes >= (int64_t{32} << 20);
    args_.native_bf16 = target_.native_bf16;
    args_.narrow_stores = openaclnn::cpu::NarrowVectorStores();
    args_.prefetch_l2 = openaclnn::cpu::PrefetchRowsToL2();
    const int64_t* stat_sets[2] = {p.mean.strides.data(), p.rstd.strides.data()};
    args_.stat = Collapse<2>(p.mean.dims.data(), 0, p.mean.rank, stat_sets);
    // The order in which the row kernel of this target wants the weight and the partials.
    swapped_ = RowsSwapColumns(target_, args_);
    weight_dims_ = p.has_weight ? CollapsedView(p.weight) : MultiStrided<1>();
    gw_dims_ = p.mask[1] ? CollapsedView(p.grad_weight) : MultiStrided<1>();
    gb_dims_ = p.mask[2] ? CollapsedView(p.grad_bias) : MultiStrided<1>();

    rows_per_chunk_ = RowsPerChunk(p.m, n, args_.want_params);
    chunks_ = p.m == 0 ? 0 : (p.m + rows_per_chunk_ - 1) / rows_per_chunk_;
    const size_t row_bytes = static_cast<size_t>(args_.n_pad) * sizeof(float);
    if (args_.want_dx && n > 1) weight_offset_ = ws->Book(row_bytes);
    if (args_.want_params) {
      gw_offset_ = ws->Book(row_bytes * static_cast<size_t>(chunks_));
      // Pass 1 loads gradBias[c] right after storing gradWeight[c]. Were the two arrays a whole
      // number of pages apart (always so with 64 chunks), the load's address would match the
      // store's in its low 12 bits, and the CPU holds such a load back as if it depended on the
      // store: half a page between them. Measured on a Zen 4 core (row kernel, one thread, rows
      // in L2, the two layouts called in turn, medians of the ratio): BF16 parameter gradients
      // alone (16, 4096) 1.7x and (64, 1024) 1.14x faster; with gradInput too within 2 % either
      // way but (64, 1024) FLOAT, 6 % faster. Same bits.
      const size_t gap = (gw_offset_ + kHalfPage - ws->total()) % (2 * kHalfPage);
      if (gap > 0) ws->Book(gap);
      gb_offset_ = ws->Book(row_bytes * static_cast<size_t>(chunks_));
    }
  }

  Status Run(const Bindings& b, void* workspace) const override {
    const Problem& p = p_;
    RowPointers ptrs;
    ptrs.dy = p.grad_out.First(static_cast<const void*>(b.inputs[kGradOut]));
    ptrs.x = p.input.First(static_cast<const void*>(b.inputs[kInput]));
    ptrs.mean = p.mean.First(static_cast<const void*>(b.inputs[kMean]));
    ptrs.rstd = p.rstd.First(static_cast<const void*>(b.inputs[kRstd]));
    if (p.mask[0]) ptrs.dx = p.grad_input.First(b.outputs[kGradInput]);
    const int64_t n = p.n;
    const int64_t n_pad = args_.n_pad;
    const int64_t column_tasks = (n + kColumnBlock - 1) / kColumnBlock;
    float* gw_part = WorkspaceBooking::At<float>(workspace, gw_offset_);
    float* gb_part = WorkspaceBooking::At<float>(workspace, gb_offset_);

    // The weight and the partials in the order the row kernel wants them (see RowsSwapColumns).
    const bool swapped = swapped_;
    if (args_.want_dx && n > 1) {
      float* w = WorkspaceBooking::At<float>(workspace, weight_offset_);
      const void* weight =
          p.has_weight ? p.weight.First(static_cast<const void*>(b.inputs[kWeight])) : nullptr;
      ForTasks(column_tasks, n <= kSerialColumns, [&](int64_t task) {
        const int64_t c0 = task * kColumnBlock;
        const int64_t c1 = std::min(n_pad, c0 + kColumnBlock);
        // c0 is a multiple of 16: each task's columns stay within its range when swapped.
        auto at = [swapped](int64_t c) { return swapped ? SwappedColumn(c) : c; };
        if (weight == nullptr) {
          for (int64_t c = c0; c < c1; ++c) w[at(c)] = c < n ? 1.0f : 0.0f;
          return;
        }
        if (p.weight.IsContiguous()) {
          CopyWeightRun(weight, p.weight.dtype, c0, std::min(n, c1), swapped, at, w);
        } else {
          LayoutOdometer<1> it(weight_dims_, false, c0);
          for (int64_t c = c0; c < std::min(n, c1); ++c, it.Next()) {
            w[at(c)] = LoadAsFloat(weight, p.weight.dtype, it.offset(0));
          }
        }
        for (int64_t c = std::max(c0, n); c < c1; ++c) w[at(c)] = 0.0f;
      });
      ptrs.weight = w;
    }

    if (chunks_ > 0) {
      ForTasks(chunks_, p.m * n <= kSerialElements, [&](int64_t chunk) {
        const int64_t r0 = chunk * rows_per_chunk_;
        const int64_t r1 = std::min(p.m, r0 + rows_per_chunk_);
        float* gw = args_.want_params ? gw_part + chunk * n_pad : nullptr;
        float* gb = args_.want_params ? gb_part + chunk * n_pad : nullptr;
        if (args_.want_params) {
          std::memset(gw, 0, static_cast<size_t>(n_pad) * sizeof(float));
          std::memset(gb, 0, static_cast<size_t>(n_pad) * sizeof(float));
        }
        if (n == 1) {
          RowsOfOne(ptrs, r0, r1, gb);
        } else {
          ProcessRows(target_, args_, ptrs, r0, r1, gw, gb);
        }
      });
    }

    if (args_.want_params) {
      void* gw_out = p.mask[1] ? p.grad_weight.First(b.outputs[kGradWeight]) : nullptr;
      void* gb_out = p.mask[2] ? p.grad_bias.First(b.outputs[kGradBias]) : nullptr;
      // Numerics: the chunk partials are added in chunk order, in fp32, then rounded once.
      ForTasks(column_tasks, n * chunks_ <= kSerialColumns * 16, [&](int64_t task) {
        const int64_t c0 = task * kColumnBlock;
        const int64_t c1 = std::min(n, c0 + kColumnBlock);
        float acc[kColumnBlock];
        if (gw_out != nullptr) {
          SumChunks(gw_part, c0, c1, swapped, acc);
          // N == 1: the normalised value is 0 by definition, so gradWeight is exactly 0.
          if (n == 1) acc[0] = 0.0f;
          StoreColumns(acc, c0, c1, gw_dims_, p.grad_weight, gw_out);
        }
        if (gb_out != nullptr) {
          SumChunks(gb_part, c0, c1, swapped, acc);
          StoreColumns(acc, c0, c1, gb_dims_, p.grad_bias, gb_out);
        }
      });
    }
    return Status::Ok();
  }

  const char* target_name() const override { return target_.name; }

 private:
  // N == 1: dx is exactly 0 and only the gradBias partial (the sum of dy) is needed. Row i of the
  // chunk adds into accumulator i % kOneLanes, then a fixed tree adds those: the same operations
  // for every layout and target, without one long chain of dependent additions.
  void RowsOfOne(const RowPointers& ptrs, int64_t r0, int64_t r1, float* gb) const {
    const Problem& p = p_;
    if (args_.want_dx) ZeroRowsOfOne(ptrs.dx, r0, r1);
    if (gb == nullptr) return;
    float sum = 0.0f;
    switch (p.grad_out.dtype) {
      case ACL_FLOAT16:
        sum = SumRowsOfOne(static_cast<const uint16_t*>(ptrs.dy), r0, r1,
                           [](uint16_t h) { return HalfToFloat(h); });
        break;
      case ACL_BF16:
        sum = SumRowsOfOne(static_cast<const uint16_t*>(ptrs.dy), r0, r1,
                           [](uint16_t h) { return BFloat16ToFloat(h); });
        break;
      default:
        sum = SumRowsOfOne(static_cast<const float*>(ptrs.dy), r0, r1, [](float f) { return f; });
        break;
    }
    gb[0] += sum;
  }

  template <class T, class ToFloat>
  float SumRowsOfOne(const T* dy, int64_t r0, int64_t r1, ToFloat to_float) const {
    constexpr int64_t kOneLanes = 8;
    float acc[kOneLanes] = {};
    const int64_t count = r1 - r0;
    LayoutOdometer<3> lead(args_.lead, false, r0);
    if (args_.lead.rank <= 1) {
      const T* first = dy + lead.offset(0);
      const int64_t stride = args_.lead.rank == 1 ? args_.lead.strides[0][0] : 0;
      int64_t i = 0;
      for (; i + kOneLanes <= count; i += kOneLanes) {
        for (int64_t l = 0; l < kOneLanes; ++l) acc[l] += to_float(first[(i + l) * stride]);
      }
      for (; i < count; ++i) acc[i % kOneLanes] += to_float(first[i * stride]);
    } else {
      for (int64_t i = 0; i < count; ++i, lead.Next()) {
        acc[i % kOneLanes] += to_float(dy[lead.offset(0)]);
      }
    }
    return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
  }

  void ZeroRowsOfOne(void* dx, int64_t r0, int64_t r1) const {
    const size_t size = DTypeSize(p_.grad_input.dtype);  // 0.0 is all zero bits in each dtype
    char* const base = static_cast<char*>(dx);
    LayoutOdometer<3> lead(args_.lead, false, r0);
    if (args_.lead.rank <= 1) {
      const int64_t stride = args_.lead.rank == 1 ? args_.lead.strides[2][0] : 0;
      char* const first = base + lead.offset(2) * static_cast<int64_t>(size);
      if (stride == 1) {
        std::memset(first, 0, static_cast<size_t>(r1 - r0) * size);
        return;
      }
      for (int64_t i = 0; i < r1 - r0; ++i) {
        std::memset(first + i * stride * static_cast<int64_t>(size), 0, size);
      }
      return;
    }
    for (int64_t r = r0; r < r1; ++r, lead.Next()) {
      std::memset(base + lead.offset(2) * static_cast<int64_t>(size), 0, size);
    }
  }

  // Columns [c0, c1) of the partials, c0 a multiple of 16, added in chunk order into acc (which
  // holds whole groups of 16 columns); in swapped order, column c0 + i of a chunk is at
  // c0 + SwappedColumn(i): the middle two runs of four columns of every 16 trade places. The
  // groups of 16 may reach past c1, never past n_pad.
  void SumChunks(const float* part, int64_t c0, int64_t c1, bool swapped, float* acc) const {
    const int64_t count = swapped ? (c1 - c0 + 15) / 16 * 16 : c1 - c0;
    for (int64_t i = 0; i < count; ++i) acc[i] = 0.0f;
    for (int64_t chunk = 0; chunk < chunks_; ++chunk) {
      const float* src = part + chunk * args_.n_pad + c0;
      if (!swapped) {
        for (int64_t i = 0; i < count; ++i) acc[i] += src[i];
        continue;
      }
      for (int64_t i = 0; i < count; i += 16) {
        for (int64_t q = 0; q < 16; q += 4) {
          const float* run = src + i + SwappedColumn(q);
          for (int64_t j = 0; j < 4; ++j) acc[i + q + j] += run[j];
        }
      }
    }
  }

  static void StoreColumns(const float* acc, int64_t c0, int64_t c1, const MultiStrided<1>& dims,
                           const TensorDesc& desc, void* out) {
    if (desc.IsContiguous()) {
      StoreRun(acc, c0, c1, desc.dtype, out);
      return;
    }
    LayoutOdometer<1> it(dims, false, c0);
    for (int64_t c = c0; c < c1; ++c, it.Next())
      StoreFromFloat(out, desc.dtype, it.offset(0), acc[c - c0]);
  }

  const Problem p_;
  const openaclnn::cpu::KernelTarget target_;  // the SIMD target of the row kernel
  RowArgs args_;
  bool swapped_ = false;  // RowsSwapColumns for target_
  MultiStrided<1> weight_dims_;
  MultiStrided<1> gw_dims_;
  MultiStrided<1> gb_dims_;
  int64_t rows_per_chunk_ = 1;
  int64_t chunks_ = 0;
  size_t weight_offset_ = 0;
  size_t gw_offset_ = 0;
  size_t gb_offset_ = 0;
};

}  // namespace

int64_t RowsPerChunk(int64_t m, int64_t n, bool param_grads) {
  // Rows of one element (only gradBias is summed) take the largest chunks: smaller ones cost a
  // chunk's bookkeeping per few elements.
  if (n == 1) return 4096;
  // At least 32 rows so the partials cost little next to the rows themselves, at most 64 chunks
  // until rows reach 4096 per chunk (fp32 partial sums of at most 4096 terms).
  int64_t rows = std::max<int64_t>(32, (m + 63) / 64);
  rows = std::min<int64_t>(rows, 4096);
  if (param_grads && m > 0) {
    // Keep each partial array under 32 MiB.
    const int64_t n_pad = (n + kBlock - 1) / kBlock * kBlock;
    const int64_t max_chunks =
        std::max<int64_t>(1, (int64_t{1} << 23) / std::max<int64_t>(1, n_pad));
    if ((m + rows - 1) / rows > max_chunks) rows = (m + max_chunks - 1) / max_chunks;
  }
  return rows;
}

const char* FastDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace) {
  return std::make_unique<FastPlan>(problem, workspace);
}

}  // namespace openaclnn::layer_norm_backward::cpu

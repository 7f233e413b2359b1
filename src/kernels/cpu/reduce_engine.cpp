#include "kernels/cpu/reduce_engine.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <type_traits>
#include <vector>

#include "api/dtype.h"
#include "api/reduce_convert.h"
#include "api/tensor_desc.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/reduce_sum.h"

namespace openaclnn::cpu {
namespace {

// One element converted to the output dtype, widened to the accumulator.
template <class Acc>
Acc LoadAcc(const unsigned char* p, ElemType in, ElemType out);
template <>
float LoadAcc<float>(const unsigned char* p, ElemType in, ElemType out) {
  return ConvertElementToFloatOutput(p, in, out);
}
template <>
double LoadAcc<double>(const unsigned char* p, ElemType in, ElemType) {
  return ConvertElementToDoubleOutput(p, in);
}
// Integer sums accumulate in uint64_t: two's complement wrap-around without signed overflow.
template <>
uint64_t LoadAcc<uint64_t>(const unsigned char* p, ElemType in, ElemType out) {
  return static_cast<uint64_t>(ConvertElementToIntegerOutput(p, in, out));
}

void StoreAcc(unsigned char* p, ElemType out, float v) { StoreFloatSum(p, out, v); }
void StoreAcc(unsigned char* p, ElemType, double v) { std::memcpy(p, &v, sizeof(v)); }
void StoreAcc(unsigned char* p, ElemType out, uint64_t v) {
  StoreIntegerSum(p, out, static_cast<int64_t>(v));
}

// Streams leaves into the pairwise tree of api/reduce.h: level l holds the sum of 2^l leaves;
// a new leaf merges with equal-sized sums on its left, and Result folds the rest right to left.
template <class Acc>
class Cascade {
 public:
  void Push(Acc v) {
    int l = 0;
    for (; used_ >> l & 1u; ++l) {
      v = level_[l] + v;
      used_ &= ~(uint64_t{1} << l);
    }
    level_[l] = v;
    used_ |= uint64_t{1} << l;
  }
  Acc Result() const {
    uint64_t rest = used_;
    Acc acc = level_[__builtin_ctzll(rest)];
    for (rest &= rest - 1; rest != 0; rest &= rest - 1) acc = level_[__builtin_ctzll(rest)] + acc;
    return acc;
  }

 private:
  Acc level_[64] = {};
  uint64_t used_ = 0;
};

// The same tree over vectors of `width` sums (column order), levels kept in one buffer.
template <class Acc>
class ColumnCascade {
 public:
  ColumnCascade(int64_t width, int64_t max_leaves) : width_(width) {
    int levels = 1;
    while ((int64_t{1} << (levels - 1)) < max_leaves) ++levels;
    buffer_.resize(static_cast<size_t>((levels + 1) * width));
  }
  // Adds the leaf in `v` (clobbered).
  void Push(Acc* v) {
    int l = 0;
    for (; used_ >> l & 1u; ++l) {
      const Acc* older = Level(l);
      for (int64_t c = 0; c < width_; ++c) v[c] = older[c] + v[c];
      used_ &= ~(uint64_t{1} << l);
    }
    std::memcpy(Level(l), v, sizeof(Acc) * static_cast<size_t>(width_));
    used_ |= uint64_t{1} << l;
  }
  void Result(Acc* out) const {
    bool have = false;
    for (int l = 0; l < 64; ++l) {
      if (!(used_ >> l & 1u)) continue;
      const Acc* s = Level(l);
      for (int64_t c = 0; c < width_; ++c) out[c] = have ? s[c] + out[c] : s[c];
      have = true;
    }
  }

 private:
  Acc* Level(int l) { return buffer_.data() + static_cast<size_t>(l) * width_; }
  const Acc* Level(int l) const { return buffer_.data() + static_cast<size_t>(l) * width_; }
  int64_t width_;
  std::vector<Acc> buffer_;
  uint64_t used_ = 0;
};

void ForTasks(int64_t tasks, bool serial, const std::function<void(int64_t)>& fn) {
  if (serial) {
    for (int64_t t = 0; t < tasks; ++t) fn(t);
  } else {
    ParallelFor(tasks, fn);
  }
}

}  // namespace

ReduceSumEngine::ReduceSumEngine(const ReduceProblem& problem, const KernelTarget& target,
                                 WorkspaceBooking* workspace)
    : p_(problem), g_(PlanReduce(problem)), target_(target) {
  const bool simd_input = p_.in_type == ElemType::kFloat32 || p_.in_type == ElemType::kFloat16 ||
                          p_.in_type == ElemType::kBFloat16;
  vector_ = simd_input && (p_.out_type == ElemType::kFloat32 || p_.out_type == p_.in_type);
  if (!g_.empty_input && g_.groups_per_output > 1) {
    const Accumulator acc = AccumulatorOf(p_.out_type);
    const size_t size = acc == Accumulator::kFloat ? sizeof(float) : sizeof(double);
    partials_offset_ =
        workspace->Book(size * static_cast<size_t>(g_.kept_count * g_.groups_per_output));
  }
}

void ReduceSumEngine::Run(const void* in, void* out, void* workspace) const {
  auto* out_bytes = static_cast<unsigned char*>(out);
  if (g_.empty_input) {
    // Every output element is 0 (all-zero bytes in every dtype), whatever the output's shape.
    const size_t size = ElemSize(p_.out_type);
    for (int64_t i = 0; i < g_.kept_count; ++i) {
      std::memset(out_bytes + ElementOffset(p_.out, i) * static_cast<int64_t>(size), 0, size);
    }
    return;
  }
  const auto* in_bytes = static_cast<const unsigned char*>(in);
  switch (AccumulatorOf(p_.out_type)) {
    case Accumulator::kFloat:
      RunTyped<float>(in_bytes, out_bytes,
                      WorkspaceBooking::At<float>(workspace, partials_offset_));
      break;
    case Accumulator::kDouble:
      RunTyped<double>(in_bytes, out_bytes,
                       WorkspaceBooking::At<double>(workspace, partials_offset_));
      break;
    case Accumulator::kInt64:
      RunTyped<uint64_t>(in_bytes, out_bytes,
                         WorkspaceBooking::At<uint64_t>(workspace, partials_offset_));
      break;
  }
}

template <class Acc>
void ReduceSumEngine::RunTyped(const unsigned char* in, unsigned char* out, Acc* partials) const {
  const ReduceGeometry& g = g_;
  const ElemType in_type = p_.in_type, out_type = p_.out_type;
  const int64_t in_size = static_cast<int64_t>(ElemSize(in_type));
  const int64_t out_size = static_cast<int64_t>(ElemSize(out_type));
  const bool simd = vector_ && std::is_same_v<Acc, float>;
  const bool serial = g.output_may_overlap;
  const int64_t gpo = g.groups_per_output;

  if (g.run_order) {
    // One leaf: a chunk of one run.
    auto leaf = [&](const unsigned char* p, int64_t n) -> Acc {
      if constexpr (std::is_same_v<Acc, float>) {
        if (simd) return SumRunChunk(target_, p, n, in_type);
      }
      Acc lanes[kRunLanes] = {};
      for (int64_t i = 0; i < n; ++i)
        lanes[i % kRunLanes] += LoadAcc<Acc>(p + i * in_size, in_type, out_type);
      for (int h = kRunLanes / 2; h >= 1; h /= 2) {
        if (n <= h) continue;
        for (int j = 0; j < h; ++j) lanes[j] = lanes[j] + lanes[j + h];
      }
      return lanes[0];
    };
    // Sum of leaves [l0, l1) of the output whose run starts at input element `base`.
    auto sum_leaves = [&](int64_t base, int64_t l0, int64_t l1) -> Acc {
      Cascade<Acc> cascade;
      int64_t q = l0 / g.chunks_per_run, chunk = l0 % g.chunks_per_run;
      LayoutOdometer<1> outer(g.run_outer, false, q);
      for (int64_t l = l0; l < l1; ++l) {
        const int64_t start = chunk * kRunChunk;
        const int64_t n = std::min(kRunChunk, g.run_length - start);
        cascade.Push(leaf(in + (base + outer.offset(0) + start) * in_size, n));
        if (++chunk == g.chunks_per_run) {
          chunk = 0;
          outer.Next();
        }
      }
      return cascade.Result();
    };
    if (gpo == 1 && g.leaves == 1 && simd) {
      // One chunk per output: runs of outputs go to the kernel together. With one kept dim (the
      // common case) the rows are equally spaced, and unit-stride outputs of a float type are
      // stored by a vector kernel.
      const bool one_kept_dim = g.kept.rank == 1;
      const bool contiguous_out =
          one_kept_dim && g.kept.InnerStride(1) == 1 &&
          (out_type == ElemType::kFloat32 || out_type == ElemType::kFloat16 ||
           out_type == ElemType::kBFloat16);
      ForTasks(g.tasks, serial, [&](int64_t t) {
        const int64_t k0 = t * g.outputs_per_task;
        const int64_t k1 = std::min(g.kept_count, k0 + g.outputs_per_task);
        LayoutOdometer<2> kept(g.kept, false, k0);
        constexpr int64_t kBatch = 256;
        int64_t rows[kBatch], outs[kBatch];
        float sums[kBatch];
        for (int64_t k = k0; k < k1;) {
          const int64_t count = std::min(kBatch, k1 - k);
          if (one_kept_dim) {
            const int64_t in_stride = g.kept.InnerStride(0), out_stride = g.kept.InnerStride(1);
            for (int64_t r = 0; r < count; ++r) {
              rows[r] = (k + r) * in_stride;
              outs[r] = (k + r) * out_stride;
            }
          } else {
            for (int64_t r = 0; r < count; ++r, kept.Next()) {
              rows[r] = kept.offset(0);
              outs[r] = kept.offset(1);
            }
          }
          SumRunRows(target_, in, rows, count, g.run_length, in_type, sums);
          if (contiguous_out) {
            StoreSums(target_, sums, count, out + outs[0] * out_size, out_type);
          } else {
            for (int64_t r = 0; r < count; ++r) {
              StoreAcc(out + outs[r] * out_size, out_type, static_cast<Acc>(sums[r]));
            }
          }
          k += count;
        }
      });
    } else if (gpo == 1) {
      ForTasks(g.tasks, serial, [&](int64_t t) {
        const int64_t k0 = t * g.outputs_per_task;
        const int64_t k1 = std::min(g.kept_count, k0 + g.outputs_per_task);
        LayoutOdometer<2> kept(g.kept, false, k0);
        for (int64_t k = k0; k < k1; ++k, kept.Next()) {
          StoreAcc(out + kept.offset(1) * out_size, out_type,
                   sum_leaves(kept.offset(0), 0, g.leaves));
        }
      });
    } else {
      ForTasks(g.tasks, serial, [&](int64_t t) {
        const int64_t k = t / gpo, group = t % gpo;
        int64_t offsets[2];
        OffsetsAt(g.kept, k, offsets);
        const int64_t l0 = group * g.group_leaves;
        partials[t] = sum_leaves(offsets[0], l0, std::min(g.leaves, l0 + g.group_leaves));
      });
      // Each output's groups are summed on their own: about 2^14 partial sums a task.
      const int64_t per_task = std::max<int64_t>(1, (int64_t{1} << 14) / gpo);
      ForTasks((g.kept_count + per_task - 1) / per_task, serial, [&](int64_t t) {
        const int64_t k0 = t * per_task, k1 = std::min(g.kept_count, k0 + per_task);
        LayoutOdometer<2> kept(g.kept, false, k0);
        for (int64_t k = k0; k < k1; ++k, kept.Next()) {
          StoreAcc(out + kept.offset(1) * out_size, out_type, PairwiseSum(partials + k * gpo, gpo));
        }
      });
    }
    return;
  }

  // Column order: a task sums tile `tile` (up to column_tile columns of one outer kept position)
  // over leaf group `group` (blocks of kColumnBlock reduced positions).
  const bool simd_columns = simd && g.column_in_stride == 1;
  ForTasks(g.tasks, serial, [&](int64_t t) {
    const int64_t tile = t / gpo, group = t % gpo;
    const int64_t outer = tile / g.tiles_per_outer;
    const int64_t c0 = tile % g.tiles_per_outer * g.column_tile;
    const int64_t width = std::min(g.column_tile, g.columns - c0);
    int64_t outer_offsets[2];
    OffsetsAt(g.kept_outer, outer, outer_offsets);
    const int64_t first_column = outer_offsets[0] + c0 * g.column_in_stride;
    const int64_t l0 = group * g.group_leaves;
    const int64_t l1 = std::min(g.leaves, l0 + g.group_leaves);
    ColumnCascade<Acc> cascade(width, l1 - l0);
    std::vector<Acc> acc(static_cast<size_t>(width));
    // The tile's sums (the cascade's result) to the outputs, or to the partial sums of its group.
    auto finish_tile = [&](const ColumnCascade<Acc>& leaves, Acc* sums) {
      leaves.Result(sums);
      if (gpo == 1) {
        for (int64_t c = 0; c < width; ++c) {
          StoreAcc(out + (outer_offsets[1] + (c0 + c) * g.column_out_stride) * out_size, out_type,
                   sums[c]);
        }
      } else {
        for (int64_t c = 0; c < width; ++c) {
          partials[group * g.kept_count + outer * g.columns + c0 + c] = sums[c];
        }
      }
    };
    int64_t rows[kColumnBlock];
    if constexpr (std::is_same_v<Acc, float>) {
      if (simd_columns && g.reduced.rank == 1) {
        // Equally spaced rows: several blocks a call (narrow tiles sum them side by side).
        constexpr int64_t kBlocksPerCall = 8;
        const int64_t row_stride = g.reduced.InnerStride(0);
        std::vector<float> blocks(static_cast<size_t>(kBlocksPerCall * width));
        for (int64_t l = l0; l < l1; l += kBlocksPerCall) {
          const int64_t count = std::min(kBlocksPerCall, l1 - l);
          const int64_t row_count =
              std::min(count * kColumnBlock, g.reduced_count - l * kColumnBlock);
          SumColumnBlocksStrided(target_,
                                 in + (first_column + l * kColumnBlock * row_stride) * in_size,
                                 row_stride, row_count, width, in_type, blocks.data());
          for (int64_t b = 0; b < count; ++b) cascade.Push(blocks.data() + b * width);
        }
        finish_tile(cascade, acc.data());
        return;
      }
    }
    LayoutOdometer<1> reduced(g.reduced, false, l0 * kColumnBlock);
    for (int64_t l = l0; l < l1; ++l) {
      const int64_t count = std::min(kColumnBlock, g.reduced_count - l * kColumnBlock);
      for (int64_t r = 0; r < count; ++r, reduced.Next()) rows[r] = reduced.offset(0);
      bool done = false;
      if constexpr (std::is_same_v<Acc, float>) {
        if (simd_columns) {
          SumColumnBlock(target_, in + first_column * in_size, rows, count, width, in_type,
                         acc.data());
          done = true;
        }
      }
      if (!done) {
        std::fill(acc.begin(), acc.end(), Acc{});
        for (int64_t r = 0; r < count; ++r) {
          const unsigned char* row = in + (first_column + rows[r]) * in_size;
          for (int64_t c = 0; c < width; ++c) {
            acc[c] =
                acc[c] + LoadAcc<Acc>(row + c * g.column_in_stride * in_size, in_type, out_type);
          }
        }
      }
      cascade.Push(acc.data());
    }
    finish_tile(cascade, acc.data());
  });
  if (gpo > 1) {
    // The groups of each output summed with the pairwise tree. The partial sums are stored group
    // by group (partials[group * kept_count + k]), so that a task runs the tree over a range of
    // outputs at once, one vector addition per node (the additions PairwiseSum makes per output):
    // about 2^14 partial sums a task.
    const int64_t per_task = std::max<int64_t>(1, (int64_t{1} << 14) / gpo);
    ForTasks((g.kept_count + per_task - 1) / per_task, serial, [&](int64_t t) {
      const int64_t k0 = t * per_task, k1 = std::min(g.kept_count, k0 + per_task);
      const int64_t width = k1 - k0;
      ColumnCascade<Acc> cascade(width, gpo);
      std::vector<Acc> sums(static_cast<size_t>(width));
      for (int64_t group = 0; group < gpo; ++group) {
        std::memcpy(sums.data(), partials + group * g.kept_count + k0,
                    sizeof(Acc) * static_cast<size_t>(width));
        cascade.Push(sums.data());
      }
      cascade.Result(sums.data());
      int64_t outer = k0 / g.columns, column = k0 % g.columns;
      int64_t outer_offsets[2];
      OffsetsAt(g.kept_outer, outer, outer_offsets);
      for (int64_t k = k0; k < k1; ++k) {
        StoreAcc(out + (outer_offsets[1] + column * g.column_out_stride) * out_size, out_type,
                 sums[k - k0]);
        if (++column == g.columns && k + 1 < k1) {
          column = 0;
          OffsetsAt(g.kept_outer, ++outer, outer_offsets);
        }
      }
    });
  }
}

}  // namespace openaclnn::cpu

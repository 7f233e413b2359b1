// The CPU implementation of both NLL loss operators. The targets are read and checked once (into
// the workspace) before anything is written.
//
// Forward: each row's loss -weight[t] * self[r, t] is a product of two values widened to double.
// Reduction none (self (N, C)) writes them in fixed chunks of rows on the pool. Mean and sum add
// them, and the weights, in double per fixed chunk of rows (chunk partials in the workspace), then
// add the partials in chunk order: the same sums for any thread count.
//
// Backward: the out rows in fixed chunks on the pool; each row is zeroed and its target element
// set to -weight[t] * gradOutput (divided by totalWeight for mean), rounded once. Dense rows with
// one gradOutput (mean and sum, the usual case) are one run of n * c elements, written in pieces
// that stay in L1: each piece zeroed with vector stores, then the target elements that fall in it
// set (a row of a few classes is a handful of bytes; zeroing a 64 KiB chunk with memset and then
// going back for its targets ran about 1.5x slower on 1048576 rows of 10 BFLOAT16 classes, in a
// standalone loop on the Zen 4 build machine).
#include <algorithm>
#include <cstring>
#include <vector>

#include "api/dtype.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/element_convert.h"
#include "kernels/cpu/pointwise_kernels.h"
#include "ops/nll_loss/problem.h"

namespace openaclnn::nll_loss::cpu {
namespace {

// Rows per chunk of the forward's sums and per-row losses.
constexpr int64_t kForwardRowsPerChunk = 1 << 13;
// About this many out elements per chunk of the backward.
constexpr int64_t kBackwardElementsPerChunk = 1 << 15;
// Bytes of one piece of the dense one-gradOutput backward (zeroed, then its targets set).
constexpr int64_t kDensePieceBytes = 4096;

void Store(void* base, aclDataType dtype, int64_t i, double v) {
  StoreFromFloat(base, dtype, i, openaclnn::cpu::NarrowToFloat(v));
}

// The targets as the row loops read them: -1 for ignoreIndex, else a class in [0, c). Contiguous
// INT64 targets (the usual case) are checked in place and read from the user's tensor, with
// ignoreIndex mapped on the fly; any other target tensor is copied into the workspace by
// ReadTargets.
class TargetReader {
 public:
  int64_t operator[](int64_t r) const {
    const int64_t t = data_[r];
    return raw_ && t == ignore_ ? -1 : t;
  }

  // The targets as stored, and the value among them that means "ignored" (ignoreIndex when read
  // in place, else -1); every other value is a class in [0, c).
  const int64_t* data() const { return data_; }
  int64_t ignored() const { return raw_ ? ignore_ : -1; }

  // Whether the targets are read in place (no workspace copy).
  static bool InPlace(const Problem& p) {
    const MultiStrided<1> view = CollapsedView(p.target);
    return p.target.dtype == ACL_INT64 &&
           (view.rank == 0 || (view.rank == 1 && view.strides[0][0] == 1));
  }
  // Workspace bytes of the copy.
  static size_t CopyBytes(const Problem& p) {
    return InPlace(p) ? 0 : static_cast<size_t>(p.n) * sizeof(int64_t);
  }

  // Checks the targets (nothing is written before) and points the reader at them.
  Status Load(const Problem& p, const void* target_base, int64_t* workspace_copy) {
    raw_ = InPlace(p);
    ignore_ = p.ignore_index;
    OPENACLNN_RETURN_IF_ERROR(ReadTargets(p, target_base, raw_ ? nullptr : workspace_copy));
    data_ = raw_ ? static_cast<const int64_t*>(p.target.First(target_base)) : workspace_copy;
    return Status::Ok();
  }

 private:
  const int64_t* data_ = nullptr;
  bool raw_ = false;
  int64_t ignore_ = 0;
};

int64_t Chunks(int64_t rows, int64_t rows_per_chunk) {
  return (rows + rows_per_chunk - 1) / rows_per_chunk;
}

class ForwardPlan : public Plan {
 public:
  ForwardPlan(const Problem& p, WorkspaceBooking* workspace)
      : p_(p),
        target_offset_(workspace->Book(TargetReader::CopyBytes(p))),
        partial_offset_(
            workspace->Book(static_cast<size_t>(Chunks(p.n, kForwardRowsPerChunk)) * 16)) {}

  Status Run(const Bindings& bindings, void* workspace) const override {
    TargetReader target;
    OPENACLNN_RETURN_IF_ERROR(target.Load(
        p_, bindings.inputs[kFwdTarget], WorkspaceBooking::At<int64_t>(workspace, target_offset_)));
    double* partial = WorkspaceBooking::At<double>(workspace, partial_offset_);
    const void* self = p_.self.First(static_cast<const void*>(bindings.inputs[kFwdSelf]));
    const void* weight = p_.weight.First(static_cast<const void*>(bindings.inputs[kFwdWeight]));
    void* out = p_.out.First(bindings.outputs[kFwdOut]);
    void* total = p_.total.First(bindings.outputs[kFwdTotal]);
    const int64_t chunks = Chunks(p_.n, kForwardRowsPerChunk);
    openaclnn::cpu::ParallelFor(chunks, [&](int64_t chunk) {
      const int64_t end = std::min(p_.n, (chunk + 1) * kForwardRowsPerChunk);
      double sum = 0.0, total_weight = 0.0;
      for (int64_t r = chunk * kForwardRowsPerChunk; r < end; ++r) {
        const int64_t t = target[r];
        double loss = 0.0;
        if (t >= 0) {
          const double w = LoadAsFloat(weight, p_.weight.dtype, t * p_.weight.strides[0]);
          const double x =
              LoadAsFloat(self, p_.self.dtype, r * p_.row_stride + t * p_.class_stride);
          loss = -w * x;
          sum += loss;
          total_weight += w;
        }
        if (p_.per_row()) Store(out, p_.out.dtype, r * p_.per_row_stride, loss);
      }
      partial[2 * chunk] = sum;
      partial[2 * chunk + 1] = total_weight;
    });
    if (p_.per_row()) {
      Store(total, p_.total.dtype, 0, 0.0);
      return Status::Ok();
    }
    double sum = 0.0, total_weight = 0.0;
    for (int64_t chunk = 0; chunk < chunks; ++chunk) {
      sum += partial[2 * chunk];
      total_weight += partial[2 * chunk + 1];
    }
    Store(out, p_.out.dtype, 0, p_.reduction == kMean ? sum / total_weight : sum);
    Store(total, p_.total.dtype, 0, total_weight);
    return Status::Ok();
  }

 private:
  Problem p_;
  size_t target_offset_, partial_offset_;
};

class BackwardPlan : public Plan {
 public:
  BackwardPlan(const Problem& p, WorkspaceBooking* workspace)
      : p_(p),
        target_offset_(workspace->Book(TargetReader::CopyBytes(p))),
        isa_(openaclnn::cpu::PlanningTarget()) {}

  Status Run(const Bindings& bindings, void* workspace) const override {
    TargetReader target;
    OPENACLNN_RETURN_IF_ERROR(target.Load(
        p_, bindings.inputs[kBwdTarget], WorkspaceBooking::At<int64_t>(workspace, target_offset_)));
    const void* grad =
        p_.grad_output.First(static_cast<const void*>(bindings.inputs[kBwdGradOutput]));
    const void* weight = p_.weight.First(static_cast<const void*>(bindings.inputs[kBwdWeight]));
    auto* out = static_cast<unsigned char*>(p_.out.First(bindings.outputs[kBwdOut]));
    double total_weight = 1.0;
    if (p_.reduction == kMean) {
      const void* total = p_.total.First(static_cast<const void*>(bindings.inputs[kBwdTotal]));
      total_weight = LoadAsFloat(total, p_.total.dtype, 0);
    }
    const int64_t esize = static_cast<int64_t>(DTypeSize(p_.out.dtype));
    const int64_t rows_per_chunk =
        std::max<int64_t>(1, kBackwardElementsPerChunk / std::max<int64_t>(p_.c, 1));
    // One gradOutput for every row (mean and sum): the value a row stores depends on its target
    // alone, so each class's stored bytes are computed once, the same way, and copied per row.
    std::vector<unsigned char> by_class;
    if (p_.per_row_stride == 0 && p_.n > p_.c) {
      by_class.resize(static_cast<size_t>(p_.c * esize));
      double g = LoadAsFloat(grad, p_.grad_output.dtype, 0);
      if (p_.reduction == kMean) g /= total_weight;
      for (int64_t t = 0; t < p_.c; ++t) {
        const double w = LoadAsFloat(weight, p_.weight.dtype, t * p_.weight.strides[0]);
        Store(by_class.data(), p_.out.dtype, t, -w * g);
      }
    }
    // 0.0 is all zero bits in FLOAT, FLOAT16 and BFLOAT16.
    const bool dense = p_.class_stride == 1 && p_.row_stride == p_.c;
    if (dense && !by_class.empty() && (esize == 2 || esize == 4)) {
      const int64_t elements = p_.n * p_.c;
      const int64_t piece = kDensePieceBytes / esize;
      const int64_t per_chunk = std::max<int64_t>(1, kBackwardElementsPerChunk / piece) * piece;
      openaclnn::cpu::ParallelFor(Chunks(elements, per_chunk), [&](int64_t chunk) {
        const int64_t end = std::min(elements, (chunk + 1) * per_chunk);
        for (int64_t begin = chunk * per_chunk; begin < end; begin += piece) {
          const int64_t piece_end = std::min(end, begin + piece);
          openaclnn::cpu::ZeroBytes(isa_, out + begin * esize,
                                    static_cast<size_t>((piece_end - begin) * esize));
          if (esize == 2) {
            SetTargets<uint16_t>(out, by_class.data(), target, begin, piece_end);
          } else {
            SetTargets<uint32_t>(out, by_class.data(), target, begin, piece_end);
          }
        }
      });
      return Status::Ok();
    }
    openaclnn::cpu::ParallelFor(Chunks(p_.n, rows_per_chunk), [&](int64_t chunk) {
      const int64_t begin = chunk * rows_per_chunk;
      const int64_t end = std::min(p_.n, (chunk + 1) * rows_per_chunk);
      // Rows that follow each other in memory are zeroed in one pass.
      if (dense) {
        std::memset(out + begin * p_.row_stride * esize, 0,
                    static_cast<size_t>((end - begin) * p_.c * esize));
      }
      for (int64_t r = begin; r < end; ++r) {
        unsigned char* row = out + r * p_.row_stride * esize;
        if (dense) {
          // Zeroed above.
        } else if (p_.class_stride == 1) {
          std::memset(row, 0, static_cast<size_t>(p_.c * esize));
        } else {
          for (int64_t cls = 0; cls < p_.c; ++cls) {
            std::memset(row + cls * p_.class_stride * esize, 0, static_cast<size_t>(esize));
          }
        }
        const int64_t t = target[r];
        if (t < 0) continue;
        if (!by_class.empty()) {
          std::memcpy(row + t * p_.class_stride * esize, by_class.data() + t * esize,
                      static_cast<size_t>(esize));
          continue;
        }
        double g = LoadAsFloat(grad, p_.grad_output.dtype, r * p_.per_row_stride);
        if (p_.reduction == kMean) g /= total_weight;
        const double w = LoadAsFloat(weight, p_.weight.dtype, t * p_.weight.strides[0]);
        Store(row, p_.out.dtype, t * p_.class_stride, -w * g);
      }
    });
    return Status::Ok();
  }

 private:
  // Dense rows of p_.c elements of type T: of the elements [begin, end) of the run of all rows,
  // element target[r] of each row r gets that class's bytes. Only the first and the last row can
  // lie partly outside the piece; the rows between are checked for their target alone.
  template <class T>
  void SetTargets(unsigned char* out, const unsigned char* by_class, const TargetReader& target,
                  int64_t begin, int64_t end) const {
    T* rows = reinterpret_cast<T*>(out);
    const int64_t* targets = target.data();
    const int64_t c = p_.c;
    // As unsigned values, -1 and every other negative value are above any class.
    const auto classes = static_cast<uint64_t>(c);
    const auto ignored = static_cast<uint64_t>(target.ignored());
    auto set = [&](int64_t r, bool whole_row) {
      const auto t = static_cast<uint64_t>(targets[r]);
      if (t >= classes || t == ignored) return;
      const int64_t at = r * c + static_cast<int64_t>(t);
      if (!whole_row && (at < begin || at >= end)) return;
      T v;
      std::memcpy(&v, by_class + t * sizeof(T), sizeof(T));
      rows[at] = v;
    };
    const int64_t first = begin / c, last = (end - 1) / c;
    const int64_t whole_from = first * c == begin ? first : first + 1;
    const int64_t whole_to = (last + 1) * c <= end ? last + 1 : last;
    if (whole_from > first) set(first, false);
    for (int64_t r = whole_from; r < whole_to; ++r) set(r, true);
    if (whole_to <= last && whole_to >= whole_from) set(last, false);
  }

  Problem p_;
  size_t target_offset_;
  openaclnn::cpu::KernelTarget isa_;
};

}  // namespace

const char* FastDeclines(const Problem&) { return nullptr; }

std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace) {
  if (problem.kind == Kind::kForward) return std::make_unique<ForwardPlan>(problem, workspace);
  return std::make_unique<BackwardPlan>(problem, workspace);
}

}  // namespace openaclnn::nll_loss::cpu

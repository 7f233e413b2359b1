// The pointwise engine: CANN's dtype rules, the shared checks, and the two plans (the engine's
// fast plan and the float64 reference).
#include "api/pointwise.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "api/byte_span.h"
#include "api/dtype.h"
#include "api/layout.h"
#include "api/tensor_desc.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/pointwise_kernels.h"
#include "runtime/meta.h"

namespace openaclnn::pointwise {

const char* OpName(Op op) {
  switch (op) {
    case Op::kAdd:
      return "add";
    case Op::kSub:
      return "sub";
    case Op::kMul:
      return "mul";
    case Op::kDiv:
      return "div";
    case Op::kCopy:
      return "copy";
    case Op::kFill:
      return "fill";
  }
  return "?";
}

ComputeKind KindOf(ElemType compute) {
  switch (compute) {
    case ElemType::kFloat32:
    case ElemType::kFloat16:
    case ElemType::kBFloat16:
      return ComputeKind::kF32;
    case ElemType::kFloat64:
      return ComputeKind::kF64;
    case ElemType::kBool:
      return ComputeKind::kBool;
    default:
      return ComputeKind::kInt;
  }
}

aclDataType ScalarDtype(const aclScalar& scalar) { return scalar.dtype; }

bool ReadScalar(const aclScalar& scalar, ScalarValue* value) {
  const ElemType t = ToElemType(scalar.dtype);
  if (t == ElemType::kInvalid) return false;
  value->type = t;
  if (IsFloating(t)) {
    value->f = cpu::LoadAsDouble(t, scalar.value, 0);
    value->i = 0;
  } else {
    value->i = cpu::LoadAsInt64(t, scalar.value, 0);
    value->f = static_cast<double>(value->i);
  }
  return true;
}

bool IsSupported(aclDataType dtype) { return ToElemType(dtype) != ElemType::kInvalid; }

const char* SupportedList() {
  return "FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, UINT8, INT16, INT32, INT64, BOOL";
}

ElemType PromoteTypes(ElemType a, ElemType b) {
  if (a == ElemType::kInvalid || b == ElemType::kInvalid) return ElemType::kInvalid;
  if (a == b) return a;
  if (a == ElemType::kBool) return b;
  if (b == ElemType::kBool) return a;
  if (a == ElemType::kFloat64 || b == ElemType::kFloat64) return ElemType::kFloat64;
  const bool fa = IsFloating(a), fb = IsFloating(b);
  if (fa && fb) return ElemType::kFloat32;  // FLOAT with a 16-bit type, or FLOAT16 with BF16
  if (fa) return a;
  if (fb) return b;
  // Two different integer types: INT8 with UINT8 meet in INT16, otherwise the wider one (every
  // other pair differs in width).
  if (ElemSize(a) == ElemSize(b)) return ElemType::kInt16;
  return ElemSize(a) > ElemSize(b) ? a : b;
}

ElemType PromoteTensorScalar(ElemType tensor, ElemType scalar) {
  if (tensor == ElemType::kInvalid || scalar == ElemType::kInvalid) return ElemType::kInvalid;
  if (IsFloating(tensor)) return tensor;
  if (IsFloating(scalar)) return ElemType::kFloat32;
  if (tensor == ElemType::kBool) return scalar;  // an integer scalar's type, or BOOL
  return tensor;
}

bool CanCast(ElemType from, ElemType to) {
  if (from == ElemType::kInvalid || to == ElemType::kInvalid) return false;
  return to != ElemType::kBool || from == ElemType::kBool;
}

bool BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                     std::vector<int64_t>* out) {
  const size_t rank = std::max(a.size(), b.size());
  out->assign(rank, 1);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t da = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    const int64_t db = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    (*out)[k] = da == 1 ? db : da;
  }
  return true;
}

namespace {

const char* TypeName(ElemType t) { return DTypeName(ToAclDataType(t)); }

}  // namespace

std::string Problem::Describe() const {
  std::string s = std::string(OpName(op)) + " out=" + TypeName(out_type) + out.ShapeString();
  for (int k = 0; k < num_inputs; ++k) {
    s += std::string(k == 0 ? " a=" : " b=") + TypeName(in_type[k]) + in[k].ShapeString();
    if (!in[k].IsContiguous()) s += "(strided)";
    if (stage[k]) s += "(staged)";
  }
  if (!out.IsContiguous()) s += " out-strided";
  s += std::string(" compute=") + TypeName(compute);
  if (has_scalar) s += " scalar=" + std::to_string(scalar_f);
  if (op == Op::kAdd || op == Op::kSub) s += " alpha=" + std::to_string(alpha_f);
  return s;
}

void DescribeOperands(const aclTensor* out, const aclTensor* in0, const aclTensor* in1,
                      Problem* p) {
  DescribeTensor(*out, &p->out);
  p->out_type = ToElemType(out->dtype);
  const aclTensor* ins[2] = {in0, in1};
  p->num_inputs = 0;
  for (int k = 0; k < 2; ++k) {
    if (ins[k] == nullptr) continue;
    const int slot = p->num_inputs++;
    DescribeTensor(*ins[k], &p->in[slot]);
    p->in_type[slot] = ToElemType(ins[k]->dtype);
    // An input sharing bytes with the output, other than as the very same view (the Inplace
    // forms), is copied aside first.
    p->stage[slot] = false;
    if (ins[k]->data == nullptr || out->data == nullptr) continue;
    if (p->in[slot].Numel() == 0 || p->out.Numel() == 0) continue;
    if (ins[k]->data == out->data && SameView(p->in[slot], p->out)) continue;
    uintptr_t ib, ie, ob, oe;
    ByteSpan(p->in[slot], reinterpret_cast<uintptr_t>(ins[k]->data), &ib, &ie);
    ByteSpan(p->out, reinterpret_cast<uintptr_t>(out->data), &ob, &oe);
    p->stage[slot] = ib < oe && ob < ie;
  }
}

void SetScalar(const ScalarValue& v, ElemType compute, double* f, int64_t* i) {
  const bool is_float = IsFloating(v.type);
  switch (KindOf(compute)) {
    case ComputeKind::kF32:
      *f = is_float ? cpu::NarrowToFloat(v.f) : static_cast<float>(v.i);
      *i = 0;
      return;
    case ComputeKind::kF64:
      *f = is_float ? v.f : static_cast<double>(v.i);
      *i = 0;
      return;
    case ComputeKind::kInt:
    case ComputeKind::kBool: {
      int64_t raw = v.i;
      if (is_float) {
        unsigned char word[8];
        cpu::StoreDouble(ElemType::kInt64, word, 0, v.f);  // NaN 0, truncation, saturation
        raw = cpu::LoadAsInt64(ElemType::kInt64, word, 0);
        if (compute == ElemType::kBool) raw = (v.f != 0 || std::isnan(v.f)) ? 1 : 0;
      }
      *i = cpu::WrapToType(compute, raw);
      *f = static_cast<double>(*i);
      return;
    }
  }
}

Status CheckSupported(const aclTensor& t, const char* param) {
  if (IsSupported(t.dtype)) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dtype must be one of %s, got %s", param,
                     SupportedList(), DTypeName(t.dtype));
}

Status CheckMaxRank(const aclTensor& t, const char* param) {
  if (t.view_dims.size() <= static_cast<size_t>(kMaxRank)) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s rank must be at most %d, got %zu (shape %s)",
                     param, kMaxRank, t.view_dims.size(), ShapeString(t).c_str());
}

Status CheckOutShape(const aclTensor& out, const char* param,
                     const std::vector<int64_t>& expected) {
  if (out.view_dims == expected) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s shape must be %s, got %s", param,
                     DimsString(expected).c_str(), ShapeString(out).c_str());
}

Status CheckCast(ElemType compute, const aclTensor& out, const char* param) {
  if (CanCast(compute, ToElemType(out.dtype))) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                     "%s dtype must be one the promoted dtype %s converts to, got %s", param,
                     TypeName(compute), DTypeName(out.dtype));
}

Status CheckAlpha(const ScalarValue& alpha, ElemType compute) {
  if (compute == ElemType::kBool && IsFloating(alpha.type)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "alpha dtype must be an integer type or BOOL when the promoted dtype is "
                       "BOOL, got %s",
                       TypeName(alpha.type));
  }
  if (!CanCast(alpha.type, compute) && compute != ElemType::kBool) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "alpha dtype %s cannot be cast to %s",
                       TypeName(alpha.type), TypeName(compute));
  }
  return Status::Ok();
}

Status ReadScalarChecked(const aclScalar& scalar, const char* param, ScalarValue* value) {
  if (ReadScalar(scalar, value)) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dtype must be one of %s, got %s", param,
                     SupportedList(), DTypeName(scalar.dtype));
}

Status Broadcast(const aclTensor& a, const char* a_name, const aclTensor& b, const char* b_name,
                 std::vector<int64_t>* shape) {
  if (BroadcastShapes(a.view_dims, b.view_dims, shape)) return Status::Ok();
  return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s shape %s and %s shape %s cannot broadcast",
                     a_name, ShapeString(a).c_str(), b_name, ShapeString(b).c_str());
}

// ---------------------------------------------------------------------------------------------
// Plans.

namespace {

// Elements per task: a function of the problem only (the split never depends on the thread
// count), large enough that a task's scheduling cost is small against its memory traffic.
constexpr int64_t kChunkElements = int64_t{1} << 16;
// Bytes moved (inputs read and output written) from which the fast plan writes its output with
// non-temporal stores: the last-level cache of one Zen 4 / Zen 5 CCD (32 MiB); Intel server
// parts have less per socket slice.
constexpr int64_t kStreamingBytes = int64_t{32} << 20;

cpu::RunOp ToRunOp(Op op) {
  switch (op) {
    case Op::kAdd:
      return cpu::RunOp::kAdd;
    case Op::kSub:
      return cpu::RunOp::kSub;
    case Op::kMul:
      return cpu::RunOp::kMul;
    case Op::kDiv:
      return cpu::RunOp::kDiv;
    default:
      return cpu::RunOp::kCopy;
  }
}

cpu::RunKind ToRunKind(ComputeKind k) {
  switch (k) {
    case ComputeKind::kF32:
      return cpu::RunKind::kF32;
    case ComputeKind::kF64:
      return cpu::RunKind::kF64;
    case ComputeKind::kInt:
      return cpu::RunKind::kInt;
    default:
      return cpu::RunKind::kBool;
  }
}

// Strides of `in` aligned to the output's dims (numpy: trailing dims line up; a dim of 1 or a
// missing leading dim is broadcast with stride 0).
void AlignedStrides(const TensorDesc& in, const TensorDesc& out, int64_t* strides) {
  const int lead = out.rank - in.rank;
  for (int i = 0; i < out.rank; ++i) {
    const int j = i - lead;
    strides[i] = (j < 0 || in.dims[j] == 1) ? 0 : in.strides[j];
  }
}

// Where each input is read at phase 2: its own storage, or its copy in the workspace.
struct StagedInput {
  size_t offset = 0;  // workspace booking
  TensorDesc view;    // contiguous view of the copy (offset 0)
};

TensorDesc ContiguousLike(const TensorDesc& d) {
  TensorDesc c = d;
  c.offset = 0;
  int64_t stride = 1;
  for (int i = d.rank - 1; i >= 0; --i) {
    c.strides[i] = stride;
    stride *= std::max<int64_t>(d.dims[i], 1);
  }
  return c;
}

// Copies a staged input (any view) to its contiguous workspace copy, element by element.
void StageCopy(const TensorDesc& from, ElemType type, const void* base, void* to) {
  const int64_t n = from.Numel();
  const void* first = from.First(base);
  for (int64_t i = 0; i < n; ++i)
    cpu::ConvertElement(type, first, ElementOffset(from, i), type, to, i);
}

// What both plans share: the operand views after staging, and the collapsed iteration.
class PlanBase : public Plan {
 public:
  PlanBase(const Problem& p, WorkspaceBooking* ws) : p_(p) {
    for (int k = 0; k < p.num_inputs; ++k) {
      if (!p.stage[k]) continue;
      staged_[k].view = ContiguousLike(p.in[k]);
      staged_[k].offset = ws->Book(static_cast<size_t>(p.in[k].Numel()) * ElemSize(p.in_type[k]));
    }
  }

 protected:
  // The inputs' first-element addresses and views at phase 2 (staged ones copied first).
  void ResolveInputs(const Bindings& b, void* workspace, const void* first[2],
                     TensorDesc views[2]) const {
    for (int k = 0; k < p_.num_inputs; ++k) {
      if (p_.stage[k]) {
        void* copy = WorkspaceBooking::At<void>(workspace, staged_[k].offset);
        StageCopy(p_.in[k], p_.in_type[k], b.inputs[k], copy);
        first[k] = copy;
        views[k] = staged_[k].view;
      } else {
        first[k] = p_.in[k].First(b.inputs[k]);
        views[k] = p_.in[k];
      }
    }
  }

  Problem p_;
  StagedInput staged_[2];
};

// The engine's plan.
class FastPlan : public PlanBase {
 public:
  FastPlan(const Problem& p, WorkspaceBooking* ws) : PlanBase(p, ws) {
    target_ = cpu::PlanningTarget();
    args_.op = ToRunOp(p.op);
    args_.kind = ToRunKind(KindOf(p.compute));
    args_.a = p.num_inputs > 0 ? p.in_type[0] : p.out_type;
    args_.b = p.num_inputs > 1 ? p.in_type[1] : args_.a;
    args_.out = p.out_type;
    args_.compute = p.compute;
    args_.b_is_scalar = p.has_scalar && p.op != Op::kFill;
    args_.scalar_f = p.scalar_f;
    args_.scalar_i = p.scalar_i;
    args_.alpha_f = p.alpha_f;
    args_.alpha_i = p.alpha_i;
    simd_ = cpu::SimdHandles(args_);
    // Non-temporal output stores once the bytes the operator moves exceed what the last-level
    // cache could hold (kStreamingBytes): the output is then evicted before anyone reads it, and
    // a plain store would first read every output line from memory.
    int64_t moved = static_cast<int64_t>(ElemSize(p.out_type));
    for (int k = 0; k < p.num_inputs; ++k) moved += static_cast<int64_t>(ElemSize(p.in_type[k]));
    args_.stream_out = simd_ && p.out.Numel() * moved >= kStreamingBytes;
    tile_args_ = args_;
    tile_args_.stream_out = false;
    if (p.op == Op::kFill) {
      // The output element's bytes, converted once.
      if (IsFloating(p.scalar_type)) {
        cpu::StoreDouble(p.out_type, pattern_, 0, p.scalar_f);
      } else {
        cpu::StoreInt64(p.out_type, pattern_, 0, p.scalar_i);
      }
    }
    // Several output indices on one address (a stride-0 output): one task, in index order, so
    // the last write is always the same.
    serial_ = !CertainlyDisjoint(p.out);
  }

  Status Run(const Bindings& b, void* workspace) const override {
    const void* first[2] = {nullptr, nullptr};
    TensorDesc views[2];
    ResolveInputs(b, workspace, first, views);
    void* out = p_.out.First(b.outputs[0]);
    // The iteration: sets {out, a, b} over the output's dims, collapsed.
    int64_t strides[3][kMaxRank] = {};
    for (int i = 0; i < p_.out.rank; ++i) strides[0][i] = p_.out.strides[i];
    for (int k = 0; k < p_.num_inputs; ++k) AlignedStrides(views[k], p_.out, strides[k + 1]);
    const int64_t* sets[3] = {strides[0], strides[1], strides[2]};
    const MultiStrided<3> s = Collapse<3>(p_.out.dims.data(), 0, p_.out.rank, sets);
    const int64_t total = s.Numel();
    if (total == 0) return Status::Ok();
    auto chunk = [&](int64_t t) {
      const int64_t begin = t * kChunkElements;
      RunRange(s, begin, std::min(total, begin + kChunkElements), first, out);
    };
    if (serial_) {
      RunRange(s, 0, total, first, out);
    } else if (Transposing(s)) {
      RunTiles(s, first, out);
    } else {
      cpu::ParallelFor((total + kChunkElements - 1) / kChunkElements, chunk);
    }
    return Status::Ok();
  }

 private:
  // Tiles of the two inner dims: kTileRows x kTile elements (32 KiB of FLOAT per operand; a
  // transposed FLOAT operand is read 512 contiguous bytes per column).
  static constexpr int64_t kTile = 64;
  static constexpr int64_t kTileRows = 128;
  // Tiles of a transposed copy straight into the output (no buffer): kDirectRows x kDirectCols,
  // read 1 KiB (FLOAT) down each source column, written 1 KiB along each output row. Measured on
  // Zen 5 (4096 x 4096, 2 threads, shares of the paired stream copy): FLOAT 62 %, BF16 55 %
  // against 56 % and 40 % with 128 x 64 tiles; 512 x 128 to 2048 x 64 measured the same within
  // the noise, and taller tasks would leave fewer of them for many threads.
  static constexpr int64_t kDirectRows = 256;
  static constexpr int64_t kDirectCols = 256;

  // True when an operand walks the inner dim at a large stride but the next dim at unit stride (a
  // transposed operand): row-major runs would then touch a new cache line per element, so the two
  // inner dims are walked in tiles instead, whose lines stay in L1 between rows.
  static bool Transposing(const MultiStrided<3>& s) {
    if (s.rank < 2 || s.dims[s.rank - 1] < kTile || s.dims[s.rank - 2] < kTile) return false;
    for (int k = 0; k < 3; ++k) {
      const int64_t inner = s.strides[k][s.rank - 1], next = s.strides[k][s.rank - 2];
      if ((inner > 1 || inner < -1) && (next == 1 || next == -1)) return true;
    }
    return false;
  }

  // Tasks of kTileRows rows (dim rank-2) of one outer index each, a function of the problem only;
  // each element is written once, so the order of the tiles changes no result. An operand walked
  // across rows (unit stride along dim rank-2: a transposed view) goes through a tile buffer:
  // inputs are gathered column by column (each column a contiguous read of whole cache lines),
  // outputs computed into the buffer and scattered column by column. Without the buffer a
  // power-of-two row length puts a tile's columns in one cache set, which evicts each line
  // before the next row uses it.
  void RunTiles(const MultiStrided<3>& s, const void* const first[2], void* out) const {
    const int r = s.rank;
    const int64_t rows = s.dims[r - 2], cols = s.dims[r - 1];
    MultiStrided<3> outer = s;
    outer.rank = r - 2;
    const int64_t outer_count = outer.Numel();
    const int64_t esize[3] = {static_cast<int64_t>(ElemSize(args_.out)),
                              static_cast<int64_t>(ElemSize(args_.a)),
                              static_cast<int64_t>(ElemSize(args_.b))};
    unsigned char* const bases[3] = {
        static_cast<unsigned char*>(out),
        const_cast<unsigned char*>(static_cast<const unsigned char*>(first[0])),
        const_cast<unsigned char*>(static_cast<const unsigned char*>(first[1]))};
    bool across[3] = {false, false, false};
    for (int k = 0; k < 3; ++k) {
      const int64_t inner = s.strides[k][r - 1], next = s.strides[k][r - 2];
      across[k] = bases[k] != nullptr && (inner > 1 || inner < -1) && (next == 1 || next == -1);
    }
    // A transposed source of the same dtype as a unit-stride output (InplaceCopy of a transposed
    // view): transposed in registers straight into the output, no buffer and no row pass.
    const bool direct = p_.op == Op::kCopy && args_.a == args_.out && across[1] && !across[0] &&
                        s.strides[0][r - 1] == 1 && s.strides[1][r - 2] == 1 &&
                        (esize[1] == 2 || esize[1] == 4);
    // Direct tiles need no buffer, so they may be longer along the source's contiguous columns.
    const int64_t task_rows = direct ? kDirectRows : kTileRows;
    const int64_t tile_cols = direct ? kDirectCols : kTile;
    const int64_t row_blocks = (rows + task_rows - 1) / task_rows;
    cpu::ParallelFor(outer_count * row_blocks, [&](int64_t t) {
      alignas(64) unsigned char buffers[3][kTileRows * kTile * 8];
      int64_t off[3];
      OffsetsAt(outer, t / row_blocks, off);
      const int64_t r0 = (t % row_blocks) * task_rows, r1 = std::min(rows, r0 + task_rows);
      for (int64_t c0 = 0; c0 < cols; c0 += tile_cols) {
        const int64_t n = std::min(tile_cols, cols - c0);
        unsigned char* corner[3];
        for (int k = 0; k < 3; ++k) {
          corner[k] =
              bases[k] == nullptr
                  ? nullptr
                  : bases[k] +
                        (off[k] + r0 * s.strides[k][r - 2] + c0 * s.strides[k][r - 1]) * esize[k];
        }
        for (int k = 1; k < 3; ++k) {
          if (across[k]) {
            // The next tile's columns are requested while this one's are gathered: they are short
            // runs at a large stride, which the hardware prefetchers do not follow.
            const int64_t ahead_cols =
                std::max<int64_t>(0, std::min(tile_cols, cols - c0 - tile_cols));
            const unsigned char* ahead =
                ahead_cols > 0 ? corner[k] + tile_cols * s.strides[k][r - 1] * esize[k] : nullptr;
            if (direct) {
              cpu::TransposeTile(target_, corner[1], s.strides[1][r - 1], corner[0],
                                 s.strides[0][r - 2], r1 - r0, n, esize[1], args_.stream_out, ahead,
                                 ahead_cols);
            } else if (s.strides[k][r - 2] == 1 && (esize[k] == 2 || esize[k] == 4)) {
              cpu::TransposeTile(target_, corner[k], s.strides[k][r - 1], buffers[k], kTile,
                                 r1 - r0, n, esize[k], false, ahead, ahead_cols);
            } else {
              TileTranspose(corner[k], s.strides[k][r - 2], s.strides[k][r - 1], buffers[k],
                            r1 - r0, n, esize[k], true, ahead, ahead_cols);
            }
          }
        }
        if (direct) continue;
        for (int64_t row = r0; row < r1; ++row) {
          const void* p[3];
          int64_t stride[3];
          for (int k = 0; k < 3; ++k) {
            if (across[k]) {
              p[k] = buffers[k] + (row - r0) * kTile * esize[k];
              stride[k] = 1;
            } else {
              p[k] = corner[k] == nullptr ? nullptr
                                          : corner[k] + (row - r0) * s.strides[k][r - 2] * esize[k];
              stride[k] = s.strides[k][r - 1];
            }
          }
          RunOne(tile_args_, p[1], stride[1], p[2], stride[2], const_cast<void*>(p[0]), stride[0],
                 n);
        }
        if (across[0]) {
          TileTranspose(corner[0], s.strides[0][r - 2], s.strides[0][r - 1], buffers[0], r1 - r0, n,
                        esize[0], false, nullptr, 0);
        }
      }
    });
  }

  // Between a tile of a view (`rows` x `cols` elements from `corner`, strides in elements) and a
  // row-major kTile-wide buffer: gather (view -> buffer) or scatter (buffer -> view), walking the
  // view column by column. While column c is moved, the lines of column c of `ahead` (the next
  // tile, `ahead_cols` columns; nullptr for none) are prefetched, spread over the tile's work.
  template <class W>
  static void TileTransposeTyped(W* view, int64_t s_row, int64_t s_col, W* buffer, int64_t rows,
                                 int64_t cols, bool gather, const W* ahead, int64_t ahead_cols) {
    constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(W));
    for (int64_t c = 0; c < cols; ++c) {
      W* column = view + c * s_col;
      if (c < ahead_cols) {
        const W* next = ahead + c * s_col;
        for (int64_t i = 0; i < rows; i += kLine) __builtin_prefetch(next + i * s_row);
      }
      if (gather && s_row == 1) {  // the usual transposed view: a contiguous column
        for (int64_t i = 0; i < rows; ++i) buffer[i * kTile + c] = column[i];
      } else if (gather) {
        for (int64_t i = 0; i < rows; ++i) buffer[i * kTile + c] = column[i * s_row];
      } else {
        for (int64_t i = 0; i < rows; ++i) column[i * s_row] = buffer[i * kTile + c];
      }
    }
  }
  static void TileTranspose(unsigned char* view, int64_t s_row, int64_t s_col,
                            unsigned char* buffer, int64_t rows, int64_t cols, int64_t esize,
                            bool gather, const unsigned char* ahead, int64_t ahead_cols) {
    typedef uint8_t __attribute__((may_alias)) W1;
    typedef uint16_t __attribute__((may_alias)) W2;
    typedef uint32_t __attribute__((may_alias)) W4;
    typedef uint64_t __attribute__((may_alias)) W8;
    switch (esize) {
      case 1:
        return TileTransposeTyped(reinterpret_cast<W1*>(view), s_row, s_col,
                                  reinterpret_cast<W1*>(buffer), rows, cols, gather,
                                  reinterpret_cast<const W1*>(ahead), ahead_cols);
      case 2:
        return TileTransposeTyped(reinterpret_cast<W2*>(view), s_row, s_col,
                                  reinterpret_cast<W2*>(buffer), rows, cols, gather,
                                  reinterpret_cast<const W2*>(ahead), ahead_cols);
      case 4:
        return TileTransposeTyped(reinterpret_cast<W4*>(view), s_row, s_col,
                                  reinterpret_cast<W4*>(buffer), rows, cols, gather,
                                  reinterpret_cast<const W4*>(ahead), ahead_cols);
      default:
        return TileTransposeTyped(reinterpret_cast<W8*>(view), s_row, s_col,
                                  reinterpret_cast<W8*>(buffer), rows, cols, gather,
                                  reinterpret_cast<const W8*>(ahead), ahead_cols);
    }
  }

  // Elements [begin, end) in row-major order of the collapsed iteration, one inner run (or the
  // part of one inside the range) at a time.
  void RunRange(const MultiStrided<3>& s, int64_t begin, int64_t end, const void* const first[2],
                void* out) const {
    const int64_t inner = s.InnerDim();
    const int64_t so = s.InnerStride(0), sa = s.InnerStride(1), sb = s.InnerStride(2);
    LayoutOdometer<3> odo(s, true, begin / inner);
    int64_t pos = begin;
    int64_t within = begin % inner;
    while (pos < end) {
      const int64_t n = std::min(inner - within, end - pos);
      unsigned char* o = static_cast<unsigned char*>(out) +
                         (odo.offset(0) + within * so) * static_cast<int64_t>(ElemSize(args_.out));
      const unsigned char* a = p_.num_inputs > 0 ? static_cast<const unsigned char*>(first[0]) +
                                                       (odo.offset(1) + within * sa) *
                                                           static_cast<int64_t>(ElemSize(args_.a))
                                                 : nullptr;
      const unsigned char* bp = p_.num_inputs > 1 ? static_cast<const unsigned char*>(first[1]) +
                                                        (odo.offset(2) + within * sb) *
                                                            static_cast<int64_t>(ElemSize(args_.b))
                                                  : nullptr;
      RunOne(args_, a, sa, bp, sb, o, so, n);
      pos += n;
      within = 0;
      odo.Next();
    }
  }

  void RunOne(const cpu::RunArgs& args, const void* a, int64_t sa, const void* b, int64_t sb,
              void* out, int64_t so, int64_t n) const {
    if (p_.op == Op::kFill) {
      cpu::FillRun(pattern_, ElemSize(p_.out_type), out, so, n);
      return;
    }
    const bool b_tensor = p_.num_inputs > 1;
    if (simd_ && so == 1 && (sa == 1 || sa == 0) && (!b_tensor || sb == 1 || sb == 0)) {
      const float av = sa == 0 ? cpu::LoadAsF32(args_.a, a, 0) : 0.0f;
      const float bv = !b_tensor ? static_cast<float>(p_.scalar_f)
                       : sb == 0 ? cpu::LoadAsF32(args_.b, b, 0)
                                 : 0.0f;
      cpu::RunContiguousSimd(target_, args, sa == 0 ? nullptr : a, av,
                             b_tensor && sb != 0 ? b : nullptr, bv, out, n);
      return;
    }
    cpu::RunStrided(args, a, sa, b, sb, out, so, n);
  }

  cpu::KernelTarget target_;
  cpu::RunArgs args_;
  cpu::RunArgs tile_args_;  // args_ without streaming: the tile path's runs are a few lines long
  bool simd_ = false;
  bool serial_ = false;
  alignas(8) unsigned char pattern_[8] = {};
};

// The float64 reference: every output element in row-major order from the inputs' float64 (or,
// for integer and BOOL compute types, exact int64) values, rounded once to the output.
class ReferencePlan : public PlanBase {
 public:
  ReferencePlan(const Problem& p, WorkspaceBooking* ws, const ReferenceArithmetic& arithmetic)
      : PlanBase(p, ws), arithmetic_(arithmetic) {}

  Status Run(const Bindings& b, void* workspace) const override {
    const void* first[2] = {nullptr, nullptr};
    TensorDesc views[2];
    ResolveInputs(b, workspace, first, views);
    void* out = p_.out.First(b.outputs[0]);
    const int64_t n = p_.out.Numel();
    // Input element offsets through the broadcast: each input's strides aligned to out's dims.
    TensorDesc aligned[2];
    for (int k = 0; k < p_.num_inputs; ++k) {
      aligned[k] = p_.out;
      aligned[k].offset = 0;
      AlignedStrides(views[k], p_.out, aligned[k].strides.data());
    }
    const ComputeKind kind = KindOf(p_.compute);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t o = ElementOffset(p_.out, i);
      const int64_t ia = p_.num_inputs > 0 ? ElementOffset(aligned[0], i) : 0;
      const int64_t ib = p_.num_inputs > 1 ? ElementOffset(aligned[1], i) : 0;
      if (p_.op == Op::kFill) {
        if (IsFloating(p_.scalar_type)) {
          cpu::StoreDouble(p_.out_type, out, o, p_.scalar_f);
        } else {
          cpu::StoreInt64(p_.out_type, out, o, p_.scalar_i);
        }
        continue;
      }
      if (p_.op == Op::kCopy) {
        cpu::ConvertElement(p_.in_type[0], first[0], ia, p_.out_type, out, o);
        continue;
      }
      if (kind == ComputeKind::kInt || kind == ComputeKind::kBool) {
        const int64_t x = cpu::LoadAsInt64(p_.in_type[0], first[0], ia);
        const int64_t y =
            p_.num_inputs > 1 ? cpu::LoadAsInt64(p_.in_type[1], first[1], ib) : p_.scalar_i;
        // Exact integer arithmetic on 64-bit words (the wrap is modular, so the result wrapped to
        // the compute type is the narrow type's own).
        const uint64_t ux = static_cast<uint64_t>(x), uy = static_cast<uint64_t>(y),
                       ua = static_cast<uint64_t>(p_.alpha_i);
        const uint64_t r = arithmetic_.on_words(ux, uy, ua);
        cpu::StoreInt64(p_.out_type, out, o, cpu::WrapToType(p_.compute, static_cast<int64_t>(r)));
        continue;
      }
      // Float compute types: the operands as the compute type holds them (fp32 for the three
      // float types, so an INT64 operand is rounded to fp32 first, as the engine does), then
      // float64 arithmetic and one rounding to the output.
      const bool f32 = kind == ComputeKind::kF32;
      auto load = [&](int k, int64_t idx) {
        return f32 ? static_cast<double>(cpu::LoadAsF32(p_.in_type[k], first[k], idx))
                   : cpu::LoadAsDouble(p_.in_type[k], first[k], idx);
      };
      const double x = load(0, ia);
      const double y = p_.num_inputs > 1 ? load(1, ib) : p_.scalar_f;
      const double r = arithmetic_.on_doubles(x, y, p_.alpha_f);
      if (f32) {
        cpu::StoreF32(p_.out_type, out, o, cpu::NarrowToFloat(r));
      } else {
        cpu::StoreDouble(p_.out_type, out, o, r);
      }
    }
    return Status::Ok();
  }

 private:
  ReferenceArithmetic arithmetic_;
};

}  // namespace

std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* workspace) {
  return std::make_unique<FastPlan>(problem, workspace);
}

std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* workspace,
                                        const ReferenceArithmetic& arithmetic) {
  return std::make_unique<ReferencePlan>(problem, workspace, arithmetic);
}

}  // namespace openaclnn::pointwise

namespace openaclnn::pointwise {

Status CheckExtents(std::initializer_list<std::pair<const aclTensor*, const char*>> tensors) {
  for (const auto& [t, name] : tensors) {
    if (t != nullptr) OPENACLNN_RETURN_IF_ERROR(CheckTensorExtent(*t, name));
  }
  return Status::Ok();
}

Status CheckBinary(const BinaryArgs& a, Problem* p) {
  const bool tensor_form = a.other != nullptr;
  std::vector<int64_t> shape;
  auto check_shapes = [&]() -> Status {
    OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*a.self, a.self_name));
    if (tensor_form) {
      OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*a.other, a.other_name));
      OPENACLNN_RETURN_IF_ERROR(Broadcast(*a.self, a.self_name, *a.other, a.other_name, &shape));
    } else {
      shape = a.self->view_dims;
    }
    OPENACLNN_RETURN_IF_ERROR(CheckMaxRank(*a.out, a.out_name));
    return CheckOutShape(*a.out, a.out_name, shape);
  };
  if (a.shape_first) OPENACLNN_RETURN_IF_ERROR(check_shapes());

  OPENACLNN_RETURN_IF_ERROR(CheckSupported(*a.self, a.self_name));
  const ElemType self_type = ToElemType(a.self->dtype);
  ScalarValue other_value;
  ElemType compute;
  if (tensor_form) {
    OPENACLNN_RETURN_IF_ERROR(CheckSupported(*a.other, a.other_name));
    compute = PromoteTypes(self_type, ToElemType(a.other->dtype));
  } else {
    OPENACLNN_RETURN_IF_ERROR(ReadScalarChecked(*a.other_scalar, a.other_name, &other_value));
    compute = PromoteTensorScalar(self_type, other_value.type);
  }
  if (a.float_result && !IsFloating(compute)) compute = ElemType::kFloat32;
  ScalarValue alpha_value;
  alpha_value.type = ElemType::kInt64;
  alpha_value.i = 1;
  alpha_value.f = 1;
  if (a.alpha != nullptr) {
    OPENACLNN_RETURN_IF_ERROR(ReadScalarChecked(*a.alpha, "alpha", &alpha_value));
    OPENACLNN_RETURN_IF_ERROR(CheckAlpha(alpha_value, compute));
  }
  if (!IsSupported(a.out->dtype)) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID, "%s dtype must be one of %s, got %s", a.out_name,
                       SupportedList(), DTypeName(a.out->dtype));
  }
  if (a.float_result && !IsFloating(ToElemType(a.out->dtype))) {
    return ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                       "%s dtype must be FLOAT, FLOAT16, BFLOAT16 or DOUBLE (the quotient is "
                       "floating), got %s",
                       a.out_name, DTypeName(a.out->dtype));
  }
  OPENACLNN_RETURN_IF_ERROR(CheckCast(compute, *a.out, a.out_name));
  if (!a.shape_first) OPENACLNN_RETURN_IF_ERROR(check_shapes());
  OPENACLNN_RETURN_IF_ERROR(
      CheckExtents({{a.self, a.self_name}, {a.other, a.other_name}, {a.out, a.out_name}}));

  p->op = a.op;
  p->op_key = a.op_key;
  p->compute = compute;
  DescribeOperands(a.out, a.self, a.other, p);
  if (!tensor_form) {
    p->has_scalar = true;
    p->scalar_type = other_value.type;
    SetScalar(other_value, compute, &p->scalar_f, &p->scalar_i);
  }
  SetScalar(alpha_value, compute, &p->alpha_f, &p->alpha_i);
  return Status::Ok();
}

}  // namespace openaclnn::pointwise

// The plans of the GELU and GLU families (ops/gelu/activation.h): one walk over the iteration
// shape, in fixed chunks of the row-major element order on the thread pool (the split depends on
// the problem only, and every element is computed alone, so any thread count gives the same
// bits). The fast plan computes in fp32 (float64 for DOUBLE) and rounds each output once (a GELU
// whose x is FLOAT16 or BFLOAT16 looks the fp32 result up in a table of every x, GetGeluTable);
// the reference computes everything in float64 and rounds once.
#include "ops/gelu/activation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <type_traits>

#include "api/dtype.h"
#include "backend/cpu/isa.h"
#include "backend/cpu/thread_pool.h"
#include "kernels/cpu/float_runs.h"
#include "ops/gelu/cpu/activation_batch.h"

namespace openaclnn::activation {

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kGeluErf:
      return "gelu_erf";
    case Kind::kGeluTanh:
      return "gelu_tanh";
    case Kind::kGeluGradErf:
      return "gelu_grad_erf";
    case Kind::kGeluGradTanh:
      return "gelu_grad_tanh";
    case Kind::kGlu:
      return "glu";
    case Kind::kGluGrad:
      return "glu_grad";
  }
  return "?";
}

int InputCount(Kind kind) {
  switch (kind) {
    case Kind::kGeluErf:
    case Kind::kGeluTanh:
      return 1;
    case Kind::kGluGrad:
      return 3;
    default:
      return 2;
  }
}

int OutputCount(Kind kind) { return kind == Kind::kGluGrad ? 2 : 1; }

int64_t Problem::Numel() const {
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= dims[d];
  return n;
}

std::string Problem::Describe() const {
  std::string s = std::string(KindName(kind)) + " shape=[";
  for (int d = 0; d < rank; ++d) s += (d ? ", " : "") + std::to_string(dims[d]);
  s += "]";
  for (int i = 0; i < InputCount(kind); ++i) {
    s += std::string(" in") + std::to_string(i) + "=" + DTypeName(ToAclDataType(in[i].type));
  }
  for (int i = 0; i < OutputCount(kind); ++i) {
    s += std::string(" out") + std::to_string(i) + "=" + DTypeName(ToAclDataType(out[i].type));
  }
  return s;
}

View MakeView(const TensorDesc& desc, int binding, int rank, const int64_t* dims) {
  View v;
  v.binding = binding;
  v.type = ToElemType(desc.dtype);
  v.offset = desc.offset;
  const int lead = rank - desc.rank;
  for (int d = 0; d < rank; ++d) {
    const int src = d - lead;
    const bool broadcast = src < 0 || (desc.dims[src] == 1 && dims[d] != 1);
    v.strides[d] = broadcast ? 0 : desc.strides[src];
  }
  return v;
}

namespace {

// The formulas, written once for float (the fast plan) and double (the reference, and GLU's
// DOUBLE tensors).
template <class T>
T GeluErf(T x) {
  return T(0.5) * x * (T(1) + std::erf(x * T(kSqrtHalf)));
}
template <class T>
T GeluTanh(T x) {
  const T inner = T(kSqrt2OverPi) * (x + T(kTanhCubic) * x * x * x);
  return T(0.5) * x * (T(1) + std::tanh(inner));
}
template <class T>
T GeluGradErf(T dy, T x) {
  const T cdf = T(0.5) * (T(1) + std::erf(x * T(kSqrtHalf)));
  const T pdf = T(kInvSqrt2Pi) * std::exp(T(-0.5) * x * x);
  return dy * (cdf + x * pdf);
}
template <class T>
T GeluGradTanh(T dy, T x) {
  const T x2 = x * x;
  const T inner = T(kSqrt2OverPi) * (x + T(kTanhCubic) * x2 * x);
  const T t = std::tanh(inner);
  const T d_inner = T(kSqrt2OverPi) * (T(1) + T(3 * kTanhCubic) * x2);
  return dy * (T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * d_inner);
}
template <class T>
T Sigmoid(T b) {
  return T(1) / (T(1) + std::exp(-b));
}

// Elements per block of the fp32 batch path.
constexpr int kBlock = 256;

// Typed block loads and stores at a fixed stride (the switch once per block, not per element).
void LoadBlock(const unsigned char* base, ElemType type, int64_t offset, int64_t stride, int n,
               float* dst) {
  switch (type) {
    case ElemType::kFloat16: {
      const auto* p = reinterpret_cast<const uint16_t*>(base) + offset;
      for (int i = 0; i < n; ++i) dst[i] = HalfToFloat(p[i * stride]);
      break;
    }
    case ElemType::kBFloat16: {
      const auto* p = reinterpret_cast<const uint16_t*>(base) + offset;
      for (int i = 0; i < n; ++i) dst[i] = BFloat16ToFloat(p[i * stride]);
      break;
    }
    default: {
      const auto* p = reinterpret_cast<const float*>(base) + offset;
      for (int i = 0; i < n; ++i) dst[i] = p[i * stride];
      break;
    }
  }
}

void StoreBlock(unsigned char* base, ElemType type, int64_t offset, int64_t stride, int n,
                const float* src) {
  switch (type) {
    case ElemType::kFloat16: {
      auto* p = reinterpret_cast<uint16_t*>(base) + offset;
      for (int i = 0; i < n; ++i) p[i * stride] = FloatToHalf(src[i]);
      break;
    }
    case ElemType::kBFloat16: {
      auto* p = reinterpret_cast<uint16_t*>(base) + offset;
      for (int i = 0; i < n; ++i) p[i * stride] = FloatToBFloat16(src[i]);
      break;
    }
    case ElemType::kFloat64: {
      auto* p = reinterpret_cast<double*>(base) + offset;
      for (int i = 0; i < n; ++i) p[i * stride] = src[i];
      break;
    }
    default: {
      auto* p = reinterpret_cast<float*>(base) + offset;
      for (int i = 0; i < n; ++i) p[i * stride] = src[i];
      break;
    }
  }
}

template <class T>
T Load(const unsigned char* base, ElemType type, int64_t index) {
  switch (type) {
    case ElemType::kFloat16: {
      uint16_t h;
      std::memcpy(&h, base + index * 2, 2);
      return static_cast<T>(HalfToFloat(h));
    }
    case ElemType::kBFloat16: {
      uint16_t h;
      std::memcpy(&h, base + index * 2, 2);
      return static_cast<T>(BFloat16ToFloat(h));
    }
    case ElemType::kFloat64: {
      double v;
      std::memcpy(&v, base + index * 8, 8);
      return static_cast<T>(v);
    }
    default: {
      float v;
      std::memcpy(&v, base + index * 4, 4);
      return static_cast<T>(v);
    }
  }
}

// One rounding to the output type: a double goes straight to FLOAT16 / BFLOAT16 through float
// only when it is already a float (the fast plan); the reference rounds double -> float -> 16-bit,
// whose double rounding can differ from a single rounding only on exact float ties, far below the
// tolerance the tests allow.
template <class T>
void Store(unsigned char* base, ElemType type, int64_t index, T value) {
  switch (type) {
    case ElemType::kFloat16: {
      const uint16_t h = FloatToHalf(static_cast<float>(value));
      std::memcpy(base + index * 2, &h, 2);
      break;
    }
    case ElemType::kBFloat16: {
      const uint16_t h = FloatToBFloat16(static_cast<float>(value));
      std::memcpy(base + index * 2, &h, 2);
      break;
    }
    case ElemType::kFloat64: {
      const double v = static_cast<double>(value);
      std::memcpy(base + index * 8, &v, 8);
      break;
    }
    default: {
      const float v = static_cast<float>(value);
      std::memcpy(base + index * 4, &v, 4);
      break;
    }
  }
}

// Elements per task: fixed, so the split depends on the problem only.
constexpr int64_t kChunk = 1 << 15;

// The input whose values a table can hold: GELU's x (input 0 of the forward, input 1 of the
// gradients), and GLU's gate b (input 1: out = a * sigmoid(b)).
int TabulatedInput(Kind kind) {
  switch (kind) {
    case Kind::kGeluErf:
    case Kind::kGeluTanh:
      return 0;
    case Kind::kGeluGradErf:
    case Kind::kGeluGradTanh:
    case Kind::kGlu:
      return 1;
    default:
      return -1;
  }
}

// A FLOAT16 or BFLOAT16 x takes one of 65536 values, so the fp32 math of GELU is a table indexed
// by x's bits: GELU(x) for the forward, and for the gradients the factor D(x) of dx = dy * D(x)
// (cpu::BatchF32 computes dx as dy * (D(x)), so D(x) is what it returns for dy = 1, and dy times
// the entry is the product BatchF32 would have formed). Every entry comes from BatchF32 itself,
// whose bits depend neither on the block nor on the lane an element lands in, so a lookup gives
// the bits the computed path gives (the tests compare every x). A forward whose out is 16-bit as
// well takes the entries rounded once to out's type. Built in phase 1, once per kind, x type and
// SIMD target (65536 GELU evaluations, under a millisecond), kept for the process in a map
// that is never freed: phase 2 may still run in the pool's detached workers at exit.
constexpr int kTableValues = 1 << 16;

struct GeluTable {
  std::unique_ptr<float[]> values;     // the fp32 result (forward) or factor (gradients)
  std::unique_ptr<uint16_t[]> half;    // values rounded to FLOAT16, for a forward's FLOAT16 out
  std::unique_ptr<uint16_t[]> bfloat;  // values rounded to BFLOAT16, for a BFLOAT16 out
};

struct GeluTableEntries {
  const float* values = nullptr;
  const uint16_t* rounded = nullptr;  // when asked for
};

// The table of `kind` for an x of x_type (FLOAT16 or BFLOAT16) on `target`, and its entries
// rounded to `rounded_to` when that is FLOAT16 or BFLOAT16.
GeluTableEntries GetGeluTable(const openaclnn::cpu::KernelTarget& target, Kind kind,
                              ElemType x_type, ElemType rounded_to) {
  using Key = std::tuple<int, int, int>;
  static std::mutex mutex;
  static auto* tables = new std::map<Key, GeluTable>;
  const std::lock_guard<std::mutex> lock(mutex);
  GeluTable& table =
      (*tables)[Key{static_cast<int>(kind), static_cast<int>(x_type), target.dispatch_index}];
  if (table.values == nullptr) {
    table.values = std::make_unique<float[]>(kTableValues);
    constexpr int kStep = 1024;
    float xs[kStep], ones[kStep];
    std::fill(ones, ones + kStep, 1.0f);
    const bool gradient = TabulatedInput(kind) == 1;
    for (int base = 0; base < kTableValues; base += kStep) {
      for (int i = 0; i < kStep; ++i) {
        const auto bits = static_cast<uint16_t>(base + i);
        xs[i] = x_type == ElemType::kFloat16 ? HalfToFloat(bits) : BFloat16ToFloat(bits);
      }
      cpu::BatchF32(target, kind, gradient ? ones : xs, xs, nullptr, table.values.get() + base,
                    nullptr, kStep);
    }
  }
  const bool to_half = rounded_to == ElemType::kFloat16;
  std::unique_ptr<uint16_t[]>& rounded = to_half ? table.half : table.bfloat;
  if ((to_half || rounded_to == ElemType::kBFloat16) && rounded == nullptr) {
    rounded = std::make_unique<uint16_t[]>(kTableValues);
    for (int i = 0; i < kTableValues; ++i) {
      rounded[i] = to_half ? FloatToHalf(table.values[i]) : FloatToBFloat16(table.values[i]);
    }
  }
  const bool wants_rounded = to_half || rounded_to == ElemType::kBFloat16;
  return {table.values.get(), wants_rounded ? rounded.get() : nullptr};
}

bool IsSixteenBit(ElemType t) { return t == ElemType::kFloat16 || t == ElemType::kBFloat16; }

template <class T>
class ActivationPlan : public Plan {
 public:
  ActivationPlan(const Problem& p, const char* name)
      : p_(p), name_(name), target_(openaclnn::cpu::PlanningTarget()) {
    const int x = TabulatedInput(p.kind);
    if (std::is_same<T, float>::value && x >= 0 && p.rank > 0 && IsSixteenBit(p.in[x].type)) {
      const ElemType out = p.out[0].type;
      const GeluTableEntries table =
          GetGeluTable(target_, p.kind, p.in[x].type, x == 0 ? out : ElemType::kFloat32);
      table_ = table.values;
      rounded_table_ = table.rounded;
      // A gradient's dy (GLU's a) times the entry, on unit-stride runs of one dtype: one pass of
      // cpu::TableProduct instead of loads, lookups and stores through the block buffers.
      const int inner = p.rank - 1;
      table_product_ = x == 1 && p.in[0].type == p.out[0].type &&
                       (p.out[0].type == ElemType::kFloat32 || IsSixteenBit(p.out[0].type)) &&
                       p.in[0].strides[inner] == 1 && p.in[1].strides[inner] == 1 &&
                       p.out[0].strides[inner] == 1;
    }
    // GluBackward with a 16-bit b: the sigmoid from GLU's table, where g, a, b and both halves of
    // out are unit-stride runs of b's type (cpu::GluGradTable); otherwise the block math.
    if (std::is_same<T, float>::value && p.kind == Kind::kGluGrad && p.rank > 0 &&
        IsSixteenBit(p.in[2].type)) {
      const int inner = p.rank - 1;
      bool runs = true;
      for (int i = 0; i < 3; ++i) {
        runs = runs && p.in[i].type == p.in[2].type && p.in[i].strides[inner] == 1;
      }
      for (int o = 0; o < 2; ++o) {
        runs = runs && p.out[o].type == p.in[2].type && p.out[o].strides[inner] == 1;
      }
      if (runs) {
        glu_grad_table_ =
            GetGeluTable(target_, Kind::kGlu, p.in[2].type, ElemType::kFloat32).values;
      }
    }
  }
  // The fp32 plan runs its block math on the SIMD target phase 1 chose.
  const char* target_name() const override {
    return std::is_same<T, float>::value ? target_.name : name_;
  }

  Status Run(const Bindings& bindings, void* /*workspace*/) const override {
    const int nin = InputCount(p_.kind);
    const int nout = OutputCount(p_.kind);
    const unsigned char* in_base[3] = {};
    unsigned char* out_base[2] = {};
    for (int i = 0; i < nin; ++i) {
      in_base[i] = static_cast<const unsigned char*>(bindings.inputs[p_.in[i].binding]) +
                   p_.in[i].offset * static_cast<int64_t>(ElemSize(p_.in[i].type));
    }
    for (int i = 0; i < nout; ++i) {
      out_base[i] = static_cast<unsigned char*>(bindings.outputs[p_.out[i].binding]) +
                    p_.out[i].offset * static_cast<int64_t>(ElemSize(p_.out[i].type));
    }
    const int64_t total = p_.Numel();
    const int64_t tasks = (total + kChunk - 1) / kChunk;
    openaclnn::cpu::ParallelFor(tasks, [&](int64_t task) {
      RunRange(in_base, out_base, task * kChunk, std::min(total, (task + 1) * kChunk));
    });
    return Status::Ok();
  }

 private:
  void RunRange(const unsigned char* const* in_base, unsigned char* const* out_base, int64_t begin,
                int64_t end) const {
    const int rank = p_.rank;
    int64_t index[kMaxRank] = {};
    int64_t in_off[3] = {}, out_off[2] = {};
    int64_t rest = begin;
    for (int d = rank - 1; d >= 0; --d) {
      index[d] = rest % p_.dims[d];
      rest /= p_.dims[d];
    }
    for (int d = 0; d < rank; ++d) {
      for (int i = 0; i < 3; ++i) in_off[i] += index[d] * p_.in[i].strides[d];
      for (int i = 0; i < 2; ++i) out_off[i] += index[d] * p_.out[i].strides[d];
    }
    const bool batch = std::is_same<T, float>::value && rank > 0;
    for (int64_t e = begin; e < end;) {
      if (batch) {
        // The rest of the innermost run, in blocks: loads to fp32, the block's math, stores.
        const int inner = rank - 1;
        const int n =
            static_cast<int>(std::min<int64_t>({kBlock, p_.dims[inner] - index[inner], end - e}));
        alignas(64) float xs[3][kBlock], ys[2][kBlock];
        if (rounded_table_ != nullptr) {
          // A 16-bit forward: out's element is the table's rounded entry.
          const auto* x = reinterpret_cast<const uint16_t*>(in_base[0]) + in_off[0];
          auto* y = reinterpret_cast<uint16_t*>(out_base[0]) + out_off[0];
          const int64_t xs_step = p_.in[0].strides[inner], ys_step = p_.out[0].strides[inner];
          // The block is read before any of it is written, as on the computed path.
          uint16_t bits[kBlock];
          for (int k = 0; k < n; ++k) bits[k] = x[k * xs_step];
          for (int k = 0; k < n; ++k) y[k * ys_step] = rounded_table_[bits[k]];
        } else if (glu_grad_table_ != nullptr &&
                   RunsApart(in_base, out_base, in_off, out_off, 3, 2, n)) {
          const int64_t es = static_cast<int64_t>(ElemSize(p_.in[2].type));
          cpu::GluGradTable(
              target_, p_.in[2].type, in_base[0] + in_off[0] * es, in_base[1] + in_off[1] * es,
              reinterpret_cast<const uint16_t*>(in_base[2]) + in_off[2], glu_grad_table_,
              out_base[0] + out_off[0] * es, out_base[1] + out_off[1] * es, n);
        } else if (table_product_ && RunsApart(in_base, out_base, in_off, out_off, 2, 1, n)) {
          const int64_t es = static_cast<int64_t>(ElemSize(p_.out[0].type));
          cpu::TableProduct(target_, p_.out[0].type, in_base[0] + in_off[0] * es,
                            reinterpret_cast<const uint16_t*>(in_base[1]) + in_off[1], table_,
                            out_base[0] + out_off[0] * es, n);
        } else {
          const int tabulated = table_ != nullptr ? TabulatedInput(p_.kind) : -1;
          // Unit-stride FLOAT operands are read, and outputs that overlap no input of the block
          // written, where they lie; the others go through the fp32 block buffers.
          const float* xp[3] = {xs[0], xs[1], xs[2]};
          float* yp[2] = {ys[0], ys[1]};
          for (int i = 0; i < InputCount(p_.kind); ++i) {
            if (i != tabulated && p_.in[i].strides[inner] == 1 &&
                p_.in[i].type == ElemType::kFloat32) {
              xp[i] = reinterpret_cast<const float*>(in_base[i]) + in_off[i];
            }
          }
          for (int o = 0; o < OutputCount(p_.kind) && tabulated < 0; ++o) {
            if (p_.out[o].strides[inner] != 1 || p_.out[o].type != ElemType::kFloat32) continue;
            float* y = reinterpret_cast<float*>(out_base[o]) + out_off[o];
            // (Buffered inputs are read in full before anything is written.)
            const auto y_at = reinterpret_cast<uintptr_t>(y), bytes = uintptr_t{4} * n;
            bool apart = true;
            for (int i = 0; i < InputCount(p_.kind); ++i) {
              const auto x_at = reinterpret_cast<uintptr_t>(xp[i]);
              apart = apart && (xp[i] == xs[i] || x_at + bytes <= y_at || y_at + bytes <= x_at);
            }
            if (apart) yp[o] = y;
          }
          for (int i = 0; i < InputCount(p_.kind); ++i) {
            if (xp[i] != xs[i]) {
              // Read where it lies.
            } else if (i == tabulated) {
              // The 16-bit x: each element's bits index the table.
              const auto* bits = reinterpret_cast<const uint16_t*>(in_base[i]) + in_off[i];
              const int64_t stride = p_.in[i].strides[inner];
              if (i == 0) {
                for (int k = 0; k < n; ++k) ys[0][k] = table_[bits[k * stride]];
              } else {
                for (int k = 0; k < n; ++k) ys[0][k] = xp[0][k] * table_[bits[k * stride]];
              }
            } else if (p_.in[i].strides[inner] == 1 && p_.in[i].type != ElemType::kFloat64) {
              openaclnn::cpu::LoadFloatRun(
                  target_, p_.in[i].type,
                  in_base[i] + in_off[i] * static_cast<int64_t>(ElemSize(p_.in[i].type)), n, xs[i]);
            } else {
              LoadBlock(in_base[i], p_.in[i].type, in_off[i], p_.in[i].strides[inner], n, xs[i]);
            }
          }
          if (tabulated < 0) cpu::BatchF32(target_, p_.kind, xp[0], xp[1], xp[2], yp[0], yp[1], n);
          for (int i = 0; i < OutputCount(p_.kind); ++i) {
            if (yp[i] != ys[i]) {
              // Written where it lies.
            } else if (p_.out[i].strides[inner] == 1 && p_.out[i].type != ElemType::kFloat64) {
              openaclnn::cpu::StoreFloatRun(
                  target_, p_.out[i].type, ys[i], n,
                  out_base[i] + out_off[i] * static_cast<int64_t>(ElemSize(p_.out[i].type)));
            } else {
              StoreBlock(out_base[i], p_.out[i].type, out_off[i], p_.out[i].strides[inner], n,
                         ys[i]);
            }
          }
        }
        e += n;
        index[inner] += n;
        for (int i = 0; i < 3; ++i) in_off[i] += n * p_.in[i].strides[inner];
        for (int i = 0; i < 2; ++i) out_off[i] += n * p_.out[i].strides[inner];
        if (index[inner] < p_.dims[inner]) continue;
        // Carry into the outer dims: rewind the inner dim, then step as below.
        for (int i = 0; i < 3; ++i) in_off[i] -= p_.dims[inner] * p_.in[i].strides[inner];
        for (int i = 0; i < 2; ++i) out_off[i] -= p_.dims[inner] * p_.out[i].strides[inner];
        index[inner] = 0;
        for (int d = inner - 1; d >= 0; --d) {
          if (++index[d] < p_.dims[d]) {
            for (int i = 0; i < 3; ++i) in_off[i] += p_.in[i].strides[d];
            for (int i = 0; i < 2; ++i) out_off[i] += p_.out[i].strides[d];
            break;
          }
          for (int i = 0; i < 3; ++i) in_off[i] -= (p_.dims[d] - 1) * p_.in[i].strides[d];
          for (int i = 0; i < 2; ++i) out_off[i] -= (p_.dims[d] - 1) * p_.out[i].strides[d];
          index[d] = 0;
        }
        continue;
      }
      ++e;
      Element(in_base, out_base, in_off, out_off);
      for (int d = rank - 1; d >= 0; --d) {
        if (++index[d] < p_.dims[d]) {
          for (int i = 0; i < 3; ++i) in_off[i] += p_.in[i].strides[d];
          for (int i = 0; i < 2; ++i) out_off[i] += p_.out[i].strides[d];
          break;
        }
        for (int i = 0; i < 3; ++i) in_off[i] -= (p_.dims[d] - 1) * p_.in[i].strides[d];
        for (int i = 0; i < 2; ++i) out_off[i] -= (p_.dims[d] - 1) * p_.out[i].strides[d];
        index[d] = 0;
      }
    }
  }

  // Whether a one-pass table kernel may write the block's runs of the first `outs` outputs: it
  // reads each lane of its `ins` inputs just before writing that lane, so an out may be an
  // input's own run, but must not overlap one otherwise.
  bool RunsApart(const unsigned char* const* in_base, unsigned char* const* out_base,
                 const int64_t* in_off, const int64_t* out_off, int ins, int outs, int n) const {
    for (int o = 0; o < outs; ++o) {
      const auto out_size = static_cast<int64_t>(ElemSize(p_.out[o].type));
      const auto y = reinterpret_cast<uintptr_t>(out_base[o] + out_off[o] * out_size);
      const auto y_bytes = static_cast<uintptr_t>(out_size * n);
      for (int i = 0; i < ins; ++i) {
        const auto size = static_cast<int64_t>(ElemSize(p_.in[i].type));
        const auto x = reinterpret_cast<uintptr_t>(in_base[i] + in_off[i] * size);
        const bool same_run = x == y && size == out_size;
        if (!same_run && x + static_cast<uintptr_t>(size * n) > y && y + y_bytes > x) return false;
      }
    }
    return true;
  }

  void Element(const unsigned char* const* in_base, unsigned char* const* out_base,
               const int64_t* in_off, const int64_t* out_off) const {
    const T x0 = Load<T>(in_base[0], p_.in[0].type, in_off[0]);
    switch (p_.kind) {
      case Kind::kGeluErf:
        Store(out_base[0], p_.out[0].type, out_off[0], GeluErf(x0));
        break;
      case Kind::kGeluTanh:
        Store(out_base[0], p_.out[0].type, out_off[0], GeluTanh(x0));
        break;
      case Kind::kGeluGradErf:
        Store(out_base[0], p_.out[0].type, out_off[0],
              GeluGradErf(x0, Load<T>(in_base[1], p_.in[1].type, in_off[1])));
        break;
      case Kind::kGeluGradTanh:
        Store(out_base[0], p_.out[0].type, out_off[0],
              GeluGradTanh(x0, Load<T>(in_base[1], p_.in[1].type, in_off[1])));
        break;
      case Kind::kGlu:
        Store(out_base[0], p_.out[0].type, out_off[0],
              x0 * Sigmoid(Load<T>(in_base[1], p_.in[1].type, in_off[1])));
        break;
      case Kind::kGluGrad: {
        const T a = Load<T>(in_base[1], p_.in[1].type, in_off[1]);
        const T s = Sigmoid(Load<T>(in_base[2], p_.in[2].type, in_off[2]));
        const T da = x0 * s;
        Store(out_base[0], p_.out[0].type, out_off[0], da);
        Store(out_base[1], p_.out[1].type, out_off[1], da * (a - a * s));
        break;
      }
    }
  }

  Problem p_;
  const char* name_;
  openaclnn::cpu::KernelTarget target_;
  const float* table_ = nullptr;             // GeluTable::values for a 16-bit x, else null
  const uint16_t* rounded_table_ = nullptr;  // its entries rounded to a forward's 16-bit out
  bool table_product_ = false;               // a gradient or GLU through cpu::TableProduct
  const float* glu_grad_table_ = nullptr;    // GLU's sigmoid table for cpu::GluGradTable, or null
};

}  // namespace

std::unique_ptr<Plan> MakeFastPlan(const Problem& problem, WorkspaceBooking* /*workspace*/) {
  if (problem.compute == ElemType::kFloat64) {
    return std::make_unique<ActivationPlan<double>>(problem, "cpu_activation_f64");
  }
  return std::make_unique<ActivationPlan<float>>(problem, "cpu_activation_f32");
}

std::unique_ptr<Plan> MakeReferencePlan(const Problem& problem, WorkspaceBooking* /*workspace*/) {
  return std::make_unique<ActivationPlan<double>>(problem, "reference");
}

}  // namespace openaclnn::activation

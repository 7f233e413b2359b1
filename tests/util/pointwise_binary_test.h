#pragma once
// The binary operators' shared harness (Add, Sub, Mul, Div and their scalar and Inplace forms):
// builds the operands in any layout, runs the public two-phase calls, and compares the output with
// the test's golden model.

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_sub.h"
#include "util/pointwise_test_util.h"

namespace openaclnn::test::pw {

enum class Arith { kAdd, kSub, kMul, kDiv };
enum class Form { kTensor, kScalar, kInplaceTensor, kInplaceScalar };

inline const char* ArithName(Arith op) {
  return op == Arith::kAdd ? "Add" : op == Arith::kSub ? "Sub" : op == Arith::kMul ? "Mul" : "Div";
}

// Calls the public functions of `op` in `form`. For the Inplace forms `out` is ignored and `self`
// is the output.
inline aclnnStatus CallBinary(aclrtStream stream, Arith op, Form form, aclTensor* self,
                              aclTensor* other, aclScalar* other_scalar, aclScalar* alpha,
                              aclTensor* out) {
  switch (op) {
    case Arith::kAdd:
      switch (form) {
        case Form::kTensor:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnAddGetWorkspaceSize(self, other, alpha, out, w, e);
              },
              aclnnAdd);
        case Form::kScalar:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnAddsGetWorkspaceSize(self, other_scalar, alpha, out, w, e);
              },
              aclnnAdds);
        case Form::kInplaceTensor:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnInplaceAddGetWorkspaceSize(self, other, alpha, w, e);
              },
              aclnnInplaceAdd);
        case Form::kInplaceScalar:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnInplaceAddsGetWorkspaceSize(self, other_scalar, alpha, w, e);
              },
              aclnnInplaceAdds);
      }
      break;
    case Arith::kSub:
      switch (form) {
        case Form::kTensor:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnSubGetWorkspaceSize(self, other, alpha, out, w, e);
              },
              aclnnSub);
        case Form::kScalar:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnSubsGetWorkspaceSize(self, other_scalar, alpha, out, w, e);
              },
              aclnnSubs);
        case Form::kInplaceTensor:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnInplaceSubGetWorkspaceSize(self, other, alpha, w, e);
              },
              aclnnInplaceSub);
        case Form::kInplaceScalar:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnInplaceSubsGetWorkspaceSize(self, other_scalar, alpha, w, e);
              },
              aclnnInplaceSubs);
      }
      break;
    case Arith::kMul:
      switch (form) {
        case Form::kTensor:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnMulGetWorkspaceSize(self, other, out, w, e);
              },
              aclnnMul);
        case Form::kScalar:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnMulsGetWorkspaceSize(self, other_scalar, out, w, e);
              },
              aclnnMuls);
        case Form::kInplaceTensor:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnInplaceMulGetWorkspaceSize(self, other, w, e);
              },
              aclnnInplaceMul);
        case Form::kInplaceScalar:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnInplaceMulsGetWorkspaceSize(self, other_scalar, w, e);
              },
              aclnnInplaceMuls);
      }
      break;
    case Arith::kDiv:
      switch (form) {
        case Form::kTensor:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnDivGetWorkspaceSize(self, other, out, w, e);
              },
              aclnnDiv);
        case Form::kScalar:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnDivsGetWorkspaceSize(self, other_scalar, out, w, e);
              },
              aclnnDivs);
        case Form::kInplaceTensor:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnInplaceDivGetWorkspaceSize(self, other, w, e);
              },
              aclnnInplaceDiv);
        case Form::kInplaceScalar:
          return RunOp(
              stream,
              [&](uint64_t* w, aclOpExecutor** e) {
                return aclnnInplaceDivsGetWorkspaceSize(self, other_scalar, w, e);
              },
              aclnnInplaceDivs);
      }
      break;
  }
  return -1;
}

inline bool HasAlpha(Arith op) { return op == Arith::kAdd || op == Arith::kSub; }

// The compute dtype the pages give: the promotion tables, and Div's FLOAT for integer and BOOL.
inline aclDataType ExpectedCompute(Arith op, aclDataType self, aclDataType other, bool scalar) {
  aclDataType c = scalar ? PromoteTensorScalarTable(self, other) : PromoteTable(self, other);
  if (op == Arith::kDiv && !IsFloatType(c)) c = ACL_FLOAT;
  return c;
}

// A value converted to the compute dtype as the operation sees it.
inline double AsCompute(aclDataType compute, double v) {
  if (compute == ACL_FLOAT || compute == ACL_FLOAT16 || compute == ACL_BF16) {
    return static_cast<float>(v);
  }
  if (compute == ACL_DOUBLE) return v;
  if (compute == ACL_BOOL) return v != 0;
  return static_cast<double>(Wrap(compute, static_cast<int64_t>(std::trunc(v))));
}

// The golden element: inputs as the compute dtype holds them, exact arithmetic (float64, or int64
// with the compute type's wrap), then the output's conversion.
inline double GoldenBinary(Arith op, aclDataType compute, aclDataType out, double x, double y,
                           double alpha) {
  x = AsCompute(compute, x);
  y = AsCompute(compute, y);
  alpha = AsCompute(compute, alpha);
  double r = 0;
  if (!IsFloatType(compute)) {
    const int64_t xi = static_cast<int64_t>(x), yi = static_cast<int64_t>(y),
                  ai = static_cast<int64_t>(alpha);
    int64_t ri = op == Arith::kAdd ? xi + ai * yi : op == Arith::kSub ? xi - ai * yi : xi * yi;
    r = static_cast<double>(Wrap(compute, ri));
  } else {
    r = op == Arith::kAdd   ? x + alpha * y
        : op == Arith::kSub ? x - alpha * y
        : op == Arith::kMul ? x * y
                            : x / y;
  }
  return ToOutput(out, r);
}

struct BinaryCase {
  Arith op = Arith::kAdd;
  Form form = Form::kTensor;
  std::vector<int64_t> self_dims, other_dims;  // other_dims unused for the scalar forms
  aclDataType self_type = ACL_FLOAT, other_type = ACL_FLOAT, out_type = ACL_FLOAT;
  TensorLayout self_layout, other_layout, out_layout;
  double alpha = 1;
  aclDataType alpha_type = ACL_FLOAT;
  double scalar = 0;  // the scalar forms' other (of other_type)
};

inline std::string Describe(const BinaryCase& c) {
  std::string s = std::string(ArithName(c.op)) + " form " +
                  std::to_string(static_cast<int>(c.form)) + " self " + DTypeName(c.self_type) +
                  "[";
  for (int64_t d : c.self_dims) s += std::to_string(d) + ",";
  s += "] other " + std::string(DTypeName(c.other_type)) + "[";
  for (int64_t d : c.other_dims) s += std::to_string(d) + ",";
  return s + "] out " + DTypeName(c.out_type) + " alpha " + std::to_string(c.alpha);
}

// Runs one case and checks values and canaries; `seed` picks the inputs.
inline void RunBinaryCase(aclrtStream stream, const BinaryCase& c, uint32_t seed) {
  SCOPED_TRACE(Describe(c));
  std::mt19937 rng(seed);
  const bool scalar_form = c.form == Form::kScalar || c.form == Form::kInplaceScalar;
  const bool inplace = c.form == Form::kInplaceTensor || c.form == Form::kInplaceScalar;
  std::vector<int64_t> shape = c.self_dims;
  if (!scalar_form) {
    ASSERT_TRUE(BroadcastTo(c.self_dims, c.other_dims, &shape));
  }
  DeviceTensor self(c.self_dims, c.self_type, c.self_layout);
  self.FillDouble(RandomValues(c.self_type, std::max<int64_t>(self.numel(), 1), &rng));
  std::unique_ptr<DeviceTensor> other;
  if (!scalar_form) {
    other = std::make_unique<DeviceTensor>(c.other_dims, c.other_type, c.other_layout);
    other->FillDouble(RandomValues(c.other_type, std::max<int64_t>(other->numel(), 1), &rng,
                                   c.op == Arith::kDiv));
  }
  std::unique_ptr<DeviceTensor> out;
  if (!inplace) {
    out = std::make_unique<DeviceTensor>(shape, c.out_type, c.out_layout);
  }
  const std::vector<double> a = self.ValuesDouble();
  const std::vector<double> b = other ? other->ValuesDouble() : std::vector<double>();
  Scalar alpha(c.alpha, c.alpha_type);
  Scalar scalar(c.scalar, c.other_type);
  const double scalar_value = scalar_form ? Scalar::Value(c.scalar, c.other_type) : 0;
  const double alpha_value = Scalar::Value(c.alpha, c.alpha_type);
  const aclDataType compute = ExpectedCompute(c.op, c.self_type, c.other_type, scalar_form);
  const aclDataType out_type = inplace ? c.self_type : c.out_type;

  // Golden over the broadcast shape, row-major.
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> golden(static_cast<size_t>(n));
  const int rank = static_cast<int>(shape.size());
  for (int64_t i = 0; i < n; ++i) {
    int64_t ia = 0, ib = 0, rest = i, mul_a = 1, mul_b = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t idx = rest % shape[d];
      rest /= shape[d];
      const int da = d - (rank - static_cast<int>(c.self_dims.size()));
      if (da >= 0) {
        if (c.self_dims[da] != 1) ia += idx * mul_a;
        mul_a *= c.self_dims[da];
      }
      if (!scalar_form) {
        const int db = d - (rank - static_cast<int>(c.other_dims.size()));
        if (db >= 0) {
          if (c.other_dims[db] != 1) ib += idx * mul_b;
          mul_b *= c.other_dims[db];
        }
      }
    }
    const double y = scalar_form ? scalar_value : b[static_cast<size_t>(ib)];
    golden[static_cast<size_t>(i)] = GoldenBinary(
        c.op, compute, out_type, a[static_cast<size_t>(ia)], y, HasAlpha(c.op) ? alpha_value : 1.0);
  }
  ASSERT_EQ(CallBinary(stream, c.op, c.form, self.get(), other ? other->get() : nullptr,
                       scalar.get(), alpha.get(), out ? out->get() : nullptr),
            ACLNN_SUCCESS)
      << RecentError();
  ExpectMatches(inplace ? self : *out, golden, Describe(c));
  EXPECT_EQ((inplace ? self : *out).DamagedCanaries(), 0);
  if (other) {
    EXPECT_EQ(other->DamagedCanaries(), 0);
  }
}

// Every (self, other) dtype pair of the ten, with the promoted dtype as out (FLOAT for Div's
// integer promotions), in both tensor forms, on a small broadcast problem.
inline void SweepDtypePairs(aclrtStream stream, Arith op) {
  uint32_t seed = 1;
  for (aclDataType a : AllTypes()) {
    for (aclDataType b : AllTypes()) {
      BinaryCase c;
      c.op = op;
      c.self_dims = {3, 5};
      c.other_dims = {5};
      c.self_type = a;
      c.other_type = b;
      c.out_type = ExpectedCompute(op, a, b, false);
      c.alpha = op == Arith::kSub || op == Arith::kAdd ? 2 : 1;
      c.alpha_type = ExpectedCompute(op, a, b, false) == ACL_BOOL ? ACL_BOOL : ACL_INT64;
      if (c.alpha_type == ACL_BOOL) c.alpha = 1;
      RunBinaryCase(stream, c, seed++);
      // The scalar form: a FLOAT scalar and an INT32 one.
      for (aclDataType st : {ACL_FLOAT, ACL_INT32}) {
        BinaryCase s = c;
        s.form = Form::kScalar;
        s.other_type = st;
        s.other_dims = {};
        s.scalar = st == ACL_FLOAT ? 1.75 : 3;
        s.out_type = ExpectedCompute(op, a, st, true);
        if (s.out_type == ACL_BOOL) continue;  // an INT32 scalar never promotes to BOOL
        RunBinaryCase(stream, s, seed++);
      }
    }
  }
}

// Broadcast shapes and layouts (permuted, padded, offset, scrambled, broadcast views) for the
// three float types and INT32, in all four forms; sizes that exercise vector bodies and tails.
inline void SweepLayouts(aclrtStream stream, Arith op) {
  struct Shapes {
    std::vector<int64_t> self, other;
  };
  const Shapes shapes[] = {
      {{4, 37}, {4, 37}},
      {{2, 3, 33}, {33}},
      {{5, 1, 19}, {1, 7, 19}},
      {{70}, {70}},
      {{3, 17}, {3, 1}},
      {{}, {}},
      {{6, 4}, {}},
      {{2, 2, 2, 9}, {2, 1, 2, 9}},
  };
  uint32_t seed = 100;
  for (aclDataType t : {ACL_FLOAT, ACL_BF16, ACL_FLOAT16, ACL_INT32}) {
    for (const Shapes& sh : shapes) {
      std::vector<int64_t> shape;
      ASSERT_TRUE(BroadcastTo(sh.self, sh.other, &shape));
      const int rank = static_cast<int>(shape.size());
      for (const TensorLayout& lo : Layouts(rank)) {
        BinaryCase c;
        c.op = op;
        c.self_dims = sh.self;
        c.other_dims = sh.other;
        c.self_type = c.other_type = t;
        c.out_type = op == Arith::kDiv && t == ACL_INT32 ? ACL_FLOAT : t;
        c.alpha = 0.5;
        c.alpha_type = ACL_FLOAT;
        if (t == ACL_INT32) c.alpha = 3, c.alpha_type = ACL_INT32;
        c.out_layout = lo;
        c.self_layout = sh.self.size() == shape.size() ? lo : TensorLayout::Contiguous();
        c.other_layout = sh.other.size() >= 2
                             ? TensorLayout::Scrambled(static_cast<int>(sh.other.size()))
                             : TensorLayout::Offset(1);
        RunBinaryCase(stream, c, seed++);
        // The Inplace forms need self to have the broadcast shape (and Div a floating self).
        if (sh.self == shape && !(op == Arith::kDiv && t == ACL_INT32)) {
          BinaryCase in = c;
          in.form = Form::kInplaceTensor;
          RunBinaryCase(stream, in, seed++);
          in.form = Form::kInplaceScalar;
          in.other_type = ACL_FLOAT;
          in.scalar = -2.5;
          RunBinaryCase(stream, in, seed++);
        }
        BinaryCase sc = c;
        sc.form = Form::kScalar;
        sc.other_type = ACL_DOUBLE;
        sc.scalar = 1.25;
        sc.out_type = ExpectedCompute(op, t, ACL_DOUBLE, true);
        RunBinaryCase(stream, sc, seed++);
      }
      // A broadcast (stride-0) view as an input.
      if (rank >= 2) {
        BinaryCase c;
        c.op = op;
        c.self_dims = shape;
        c.other_dims = shape;
        c.self_type = c.other_type = c.out_type = t;
        if (op == Arith::kDiv && t == ACL_INT32) c.out_type = ACL_FLOAT;
        c.alpha_type = ACL_INT32;
        c.alpha = 2;
        c.other_layout = TensorLayout::Broadcast({0});
        c.self_layout = TensorLayout::Broadcast({rank - 1});
        RunBinaryCase(stream, c, seed++);
      }
    }
  }
}

// Random shapes of rank 0 to 8 with random broadcasting, FLOAT and BFLOAT16, large enough for
// several chunks on some; the float64 reference (OPENACLNN_FORCE_IMPL) must pass the same checks.
inline void SweepRandomShapes(aclrtStream stream, Arith op, const char* op_key, int count) {
  std::mt19937 rng(7);
  for (int k = 0; k < count; ++k) {
    const int rank = static_cast<int>(rng() % 9);
    std::vector<int64_t> shape(static_cast<size_t>(rank));
    int64_t n = 1;
    for (int64_t& d : shape) {
      d = 1 + static_cast<int64_t>(rng() % (rank <= 2 ? 300 : 5));
      n *= d;
    }
    std::vector<int64_t> other = shape;
    for (int64_t& d : other) {
      if (rng() % 3 == 0) d = 1;
    }
    if (!other.empty() && rng() % 2) other.erase(other.begin());
    BinaryCase c;
    c.op = op;
    c.self_dims = shape;
    c.other_dims = other;
    c.self_type = k % 2 ? ACL_BF16 : ACL_FLOAT;
    c.other_type = k % 3 ? ACL_FLOAT : ACL_BF16;
    c.out_type = k % 4 == 1 ? ACL_FLOAT16 : ACL_FLOAT;
    c.alpha = 1.5;
    c.out_layout = k % 5 == 0 ? TensorLayout::Scrambled(rank) : TensorLayout::Contiguous();
    const bool reference = k % 4 == 3;
    if (reference) setenv("OPENACLNN_FORCE_IMPL", (std::string(op_key) + "=reference").c_str(), 1);
    RunBinaryCase(stream, c, 1000 + static_cast<uint32_t>(k));
    if (reference) unsetenv("OPENACLNN_FORCE_IMPL");
    (void)n;
  }
}

}  // namespace openaclnn::test::pw

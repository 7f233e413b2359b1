// Every documented failure of the matmul family's phase 1: the status code and the words of the
// message (parameter, what was expected, what was got), and that nothing was written.
#include <cstdint>
#include <string>

#include "matmul_test_util.h"

namespace openaclnn::test::matmul {
namespace {

void ExpectError(const CallResult& r, aclnnStatus code, std::initializer_list<const char*> words,
                 const std::string& what) {
  EXPECT_EQ(r.phase1, code) << what << ": " << r.message;
  for (const char* w : words) {
    EXPECT_NE(r.message.find(w), std::string::npos)
        << what << ": message lacks \"" << w << "\": " << r.message;
  }
}

CallResult Matmul(const aclTensor* a, const aclTensor* b, aclTensor* out, int8_t cube,
                  aclrtStream stream) {
  return CallApi(
      [&](uint64_t* ws, aclOpExecutor** ex) {
        return aclnnMatmulGetWorkspaceSize(a, b, out, cube, ws, ex);
      },
      aclnnMatmul, stream);
}

CallResult Mm(const aclTensor* a, const aclTensor* b, aclTensor* out, int8_t cube,
              aclrtStream stream) {
  return CallApi(
      [&](uint64_t* ws, aclOpExecutor** ex) {
        return aclnnMmGetWorkspaceSize(a, b, out, cube, ws, ex);
      },
      aclnnMm, stream);
}

CallResult Bmm(const aclTensor* a, const aclTensor* b, aclTensor* out, int8_t cube,
               aclrtStream stream) {
  return CallApi(
      [&](uint64_t* ws, aclOpExecutor** ex) {
        return aclnnBatchMatMulGetWorkspaceSize(a, b, out, cube, ws, ex);
      },
      aclnnBatchMatMul, stream);
}

CallResult Addmm(const aclTensor* self, const aclTensor* m1, const aclTensor* m2,
                 const aclScalar* beta, const aclScalar* alpha, aclTensor* out, int8_t cube,
                 aclrtStream stream) {
  return CallApi(
      [&](uint64_t* ws, aclOpExecutor** ex) {
        return aclnnAddmmGetWorkspaceSize(self, m1, m2, beta, alpha, out, cube, ws, ex);
      },
      aclnnAddmm, stream);
}

CallResult InplaceAddmm(const aclTensor* self, const aclTensor* m1, const aclTensor* m2,
                        const aclScalar* beta, const aclScalar* alpha, int8_t cube,
                        aclrtStream stream) {
  return CallApi(
      [&](uint64_t* ws, aclOpExecutor** ex) {
        return aclnnInplaceAddmmGetWorkspaceSize(self, m1, m2, beta, alpha, cube, ws, ex);
      },
      aclnnInplaceAddmm, stream);
}

CallResult Baddbmm(const aclTensor* self, const aclTensor* b1, const aclTensor* b2,
                   const aclScalar* beta, const aclScalar* alpha, aclTensor* out, int8_t cube,
                   aclrtStream stream) {
  return CallApi(
      [&](uint64_t* ws, aclOpExecutor** ex) {
        return aclnnBaddbmmGetWorkspaceSize(self, b1, b2, beta, alpha, out, cube, ws, ex);
      },
      aclnnBaddbmm, stream);
}

CallResult InplaceBaddbmm(const aclTensor* self, const aclTensor* b1, const aclTensor* b2,
                          const aclScalar* beta, const aclScalar* alpha, int8_t cube,
                          aclrtStream stream) {
  return CallApi(
      [&](uint64_t* ws, aclOpExecutor** ex) {
        return aclnnInplaceBaddbmmGetWorkspaceSize(self, b1, b2, beta, alpha, cube, ws, ex);
      },
      aclnnInplaceBaddbmm, stream);
}

TEST_F(MatmulTest, NullPointers) {
  DeviceTensor a({2, 3}, ACL_FLOAT), b({3, 4}, ACL_FLOAT), out({2, 4}, ACL_FLOAT);
  DeviceTensor s({2, 4}, ACL_FLOAT);
  DeviceTensor a3({2, 2, 3}, ACL_FLOAT), b3({2, 3, 4}, ACL_FLOAT), o3({2, 2, 4}, ACL_FLOAT);
  Scalar one(1.0f);
  const aclnnStatus kNull = ACLNN_ERR_PARAM_NULLPTR;
  ExpectError(Matmul(nullptr, b.get(), out.get(), 0, stream_), kNull, {"self"}, "matmul self");
  ExpectError(Matmul(a.get(), nullptr, out.get(), 0, stream_), kNull, {"mat2"}, "matmul mat2");
  ExpectError(Matmul(a.get(), b.get(), nullptr, 0, stream_), kNull, {"out"}, "matmul out");
  ExpectError(Mm(nullptr, b.get(), out.get(), 0, stream_), kNull, {"self"}, "mm self");
  ExpectError(Mm(a.get(), nullptr, out.get(), 0, stream_), kNull, {"mat2"}, "mm mat2");
  ExpectError(Mm(a.get(), b.get(), nullptr, 0, stream_), kNull, {"out"}, "mm out");
  ExpectError(Bmm(nullptr, b3.get(), o3.get(), 0, stream_), kNull, {"self"}, "bmm self");
  ExpectError(Bmm(a3.get(), nullptr, o3.get(), 0, stream_), kNull, {"mat2"}, "bmm mat2");
  ExpectError(Bmm(a3.get(), b3.get(), nullptr, 0, stream_), kNull, {"out"}, "bmm out");
  ExpectError(Addmm(nullptr, a.get(), b.get(), one.get(), one.get(), out.get(), 0, stream_), kNull,
              {"self"}, "addmm self");
  ExpectError(Addmm(s.get(), nullptr, b.get(), one.get(), one.get(), out.get(), 0, stream_), kNull,
              {"mat1"}, "addmm mat1");
  ExpectError(Addmm(s.get(), a.get(), nullptr, one.get(), one.get(), out.get(), 0, stream_), kNull,
              {"mat2"}, "addmm mat2");
  ExpectError(Addmm(s.get(), a.get(), b.get(), nullptr, one.get(), out.get(), 0, stream_), kNull,
              {"beta"}, "addmm beta");
  ExpectError(Addmm(s.get(), a.get(), b.get(), one.get(), nullptr, out.get(), 0, stream_), kNull,
              {"alpha"}, "addmm alpha");
  ExpectError(Addmm(s.get(), a.get(), b.get(), one.get(), one.get(), nullptr, 0, stream_), kNull,
              {"out"}, "addmm out");
  ExpectError(InplaceAddmm(nullptr, a.get(), b.get(), one.get(), one.get(), 0, stream_), kNull,
              {"selfRef"}, "inplace addmm selfRef");
  ExpectError(InplaceAddmm(s.get(), a.get(), nullptr, one.get(), one.get(), 0, stream_), kNull,
              {"mat2"}, "inplace addmm mat2");
  ExpectError(Baddbmm(o3.get(), nullptr, b3.get(), one.get(), one.get(), o3.get(), 0, stream_),
              kNull, {"batch1"}, "baddbmm batch1");
  ExpectError(Baddbmm(o3.get(), a3.get(), nullptr, one.get(), one.get(), o3.get(), 0, stream_),
              kNull, {"batch2"}, "baddbmm batch2");
  ExpectError(Baddbmm(nullptr, a3.get(), b3.get(), one.get(), one.get(), o3.get(), 0, stream_),
              kNull, {"self"}, "baddbmm self");
  ExpectError(InplaceBaddbmm(o3.get(), a3.get(), b3.get(), one.get(), nullptr, 0, stream_), kNull,
              {"alpha"}, "inplace baddbmm alpha");
  ExpectError(InplaceBaddbmm(nullptr, a3.get(), b3.get(), one.get(), one.get(), 0, stream_), kNull,
              {"selfRef"}, "inplace baddbmm selfRef");
  EXPECT_TRUE(out.Untouched());
  EXPECT_TRUE(s.Untouched());
  EXPECT_TRUE(o3.Untouched());
}

TEST_F(MatmulTest, UnsupportedDtypesAndPromotion) {
  DeviceTensor out({2, 4}, ACL_FLOAT);
  {
    DeviceTensor a({2, 3}, ACL_INT32), b({3, 4}, ACL_FLOAT);
    ExpectError(Matmul(a.get(), b.get(), out.get(), 0, stream_), ACLNN_ERR_PARAM_INVALID,
                {"self dtype INT32", "FLOAT, FLOAT16 or BFLOAT16"}, "int32 self");
  }
  {
    DeviceTensor a({2, 3}, ACL_FLOAT), b({3, 4}, ACL_DOUBLE);
    ExpectError(Mm(a.get(), b.get(), out.get(), 0, stream_), ACLNN_ERR_PARAM_INVALID,
                {"mat2 dtype DOUBLE"}, "double mat2");
  }
  {
    DeviceTensor a({2, 3}, ACL_FLOAT), b({3, 4}, ACL_FLOAT), o({2, 4}, ACL_INT8);
    ExpectError(Matmul(a.get(), b.get(), o.get(), 0, stream_), ACLNN_ERR_PARAM_INVALID,
                {"out dtype INT8"}, "int8 out");
  }
  {
    DeviceTensor a({2, 3}, ACL_BF16), b({3, 4}, ACL_FLOAT16);
    ExpectError(Matmul(a.get(), b.get(), out.get(), 0, stream_), ACLNN_ERR_PARAM_INVALID,
                {"self dtype BFLOAT16", "mat2 dtype FLOAT16", "cannot be promoted"}, "bf16 x f16");
  }
  {
    DeviceTensor s({2, 4}, ACL_INT64), a({2, 3}, ACL_FLOAT), b({3, 4}, ACL_FLOAT);
    Scalar one(1.0f);
    ExpectError(Addmm(s.get(), a.get(), b.get(), one.get(), one.get(), out.get(), 0, stream_),
                ACLNN_ERR_PARAM_INVALID, {"self dtype INT64"}, "int64 addmm self");
  }
  {
    DeviceTensor s({2, 4}, ACL_FLOAT), a({2, 3}, ACL_FLOAT), b({3, 4}, ACL_FLOAT);
    const double c[2] = {1.0, 0.0};  // room for any scalar dtype
    Scalar one(1.0f), bad(c, ACL_COMPLEX64);
    ExpectError(Addmm(s.get(), a.get(), b.get(), bad.get(), one.get(), out.get(), 0, stream_),
                ACLNN_ERR_PARAM_INVALID, {"beta dtype"}, "complex beta");
  }
  EXPECT_TRUE(out.Untouched());
}

TEST_F(MatmulTest, PrivateFormatsRejected) {
  DeviceTensor a({2, 3}, ACL_FLOAT, TensorLayout().WithFormat(ACL_FORMAT_FRACTAL_NZ));
  DeviceTensor b({3, 4}, ACL_FLOAT), out({2, 4}, ACL_FLOAT);
  ExpectError(Mm(a.get(), b.get(), out.get(), 0, stream_), ACLNN_ERR_PARAM_INVALID,
              {"self format", "expected ND"}, "NZ self");
  // Plain formats are labels of ND and accepted.
  DeviceTensor c({3, 4}, ACL_FLOAT, TensorLayout().WithFormat(ACL_FORMAT_NCHW));
  DeviceTensor d({2, 3}, ACL_FLOAT);
  EXPECT_EQ(Mm(d.get(), c.get(), out.get(), 0, stream_).phase1, 0);
}

TEST_F(MatmulTest, RanksOfEachOperator) {
  const aclnnStatus kInvalid = ACLNN_ERR_PARAM_INVALID;
  {
    DeviceTensor a({2, 2, 3}, ACL_FLOAT), b({3, 4}, ACL_FLOAT), o({2, 2, 4}, ACL_FLOAT);
    ExpectError(Mm(a.get(), b.get(), o.get(), 0, stream_), kInvalid, {"self must be 2-D", "3-D"},
                "mm 3-D self");
  }
  {
    DeviceTensor a({2, 3}, ACL_FLOAT), b({3}, ACL_FLOAT), o({2}, ACL_FLOAT);
    ExpectError(Mm(a.get(), b.get(), o.get(), 0, stream_), kInvalid, {"mat2 must be 2-D", "1-D"},
                "mm 1-D mat2");
  }
  {
    DeviceTensor a({2, 3}, ACL_FLOAT), b({1, 3, 4}, ACL_FLOAT), o({1, 2, 4}, ACL_FLOAT);
    ExpectError(Bmm(a.get(), b.get(), o.get(), 0, stream_), kInvalid, {"self must be 3-D", "2-D"},
                "bmm 2-D self");
  }
  {
    DeviceTensor a({1, 1, 1, 1, 1, 2, 3}, ACL_FLOAT), b({3, 4}, ACL_FLOAT);
    DeviceTensor o({1, 1, 1, 1, 1, 2, 4}, ACL_FLOAT);
    ExpectError(Matmul(a.get(), b.get(), o.get(), 0, stream_), kInvalid,
                {"self must be 1-D to 6-D", "7-D"}, "matmul 7-D");
  }
  {
    DeviceTensor a({}, ACL_FLOAT), b({3, 4}, ACL_FLOAT), o({4}, ACL_FLOAT);
    ExpectError(Matmul(a.get(), b.get(), o.get(), 0, stream_), kInvalid,
                {"self must be 1-D to 6-D", "0-D"}, "matmul 0-D");
  }
  {
    DeviceTensor s({2, 4}, ACL_FLOAT), a({1, 2, 3}, ACL_FLOAT), b({3, 4}, ACL_FLOAT);
    DeviceTensor o({2, 4}, ACL_FLOAT);
    Scalar one(1.0f);
    ExpectError(Addmm(s.get(), a.get(), b.get(), one.get(), one.get(), o.get(), 0, stream_),
                kInvalid, {"mat1 must be 2-D"}, "addmm 3-D mat1");
  }
  {
    DeviceTensor s({2, 2, 4}, ACL_FLOAT), a({2, 3}, ACL_FLOAT), b({2, 3, 4}, ACL_FLOAT);
    Scalar one(1.0f);
    ExpectError(InplaceBaddbmm(s.get(), a.get(), b.get(), one.get(), one.get(), 0, stream_),
                kInvalid, {"batch1 must be 3-D"}, "baddbmm 2-D batch1");
  }
}

TEST_F(MatmulTest, ShapeMismatches) {
  const aclnnStatus kInvalid = ACLNN_ERR_PARAM_INVALID;
  Scalar one(1.0f);
  {
    DeviceTensor a({2, 3}, ACL_FLOAT), b({4, 5}, ACL_FLOAT), o({2, 5}, ACL_FLOAT);
    ExpectError(Matmul(a.get(), b.get(), o.get(), 0, stream_), kInvalid,
                {"self dim 1 (3)", "mat2 dim 0 (4)", "reduce dims differ"}, "k mismatch");
  }
  {
    DeviceTensor a({5}, ACL_FLOAT), b({4}, ACL_FLOAT), o({}, ACL_FLOAT);
    ExpectError(Matmul(a.get(), b.get(), o.get(), 0, stream_), kInvalid, {"reduce dims differ"},
                "dot mismatch");
  }
  {
    DeviceTensor a({3, 2, 3}, ACL_FLOAT), b({2, 3, 4}, ACL_FLOAT), o({3, 2, 4}, ACL_FLOAT);
    ExpectError(Matmul(a.get(), b.get(), o.get(), 0, stream_), kInvalid,
                {"batch dims cannot broadcast", "(3 vs 2)"}, "batch mismatch");
    ExpectError(Bmm(a.get(), b.get(), o.get(), 0, stream_), kInvalid,
                {"batch dims cannot broadcast"}, "bmm batch mismatch");
  }
  {
    DeviceTensor a({2, 3}, ACL_FLOAT), b({3, 4}, ACL_FLOAT), o({2, 5}, ACL_FLOAT);
    ExpectError(Mm(a.get(), b.get(), o.get(), 0, stream_), kInvalid,
                {"out shape [2, 5] must equal", "[2, 4]"}, "out shape");
    DeviceTensor o1({1, 2, 4}, ACL_FLOAT);
    ExpectError(Matmul(a.get(), b.get(), o1.get(), 0, stream_), kInvalid, {"out shape [1, 2, 4]"},
                "out rank");
  }
  {
    DeviceTensor s({3, 4}, ACL_FLOAT), a({2, 3}, ACL_FLOAT), b({3, 4}, ACL_FLOAT);
    DeviceTensor o({2, 4}, ACL_FLOAT);
    ExpectError(Addmm(s.get(), a.get(), b.get(), one.get(), one.get(), o.get(), 0, stream_),
                kInvalid, {"self shape [3, 4]", "cannot broadcast", "[2, 4]"}, "addmm self");
    ExpectError(InplaceAddmm(s.get(), a.get(), b.get(), one.get(), one.get(), 0, stream_), kInvalid,
                {"selfRef shape [3, 4]", "must equal the product"}, "inplace addmm selfRef");
    DeviceTensor s1({1, 4}, ACL_FLOAT);
    ExpectError(InplaceAddmm(s1.get(), a.get(), b.get(), one.get(), one.get(), 0, stream_),
                kInvalid, {"selfRef shape [1, 4]", "must equal the product"},
                "inplace addmm broadcast selfRef");
  }
  {
    DeviceTensor s({2, 3, 4}, ACL_FLOAT), a({2, 3, 5}, ACL_FLOAT), b({2, 5, 4}, ACL_FLOAT);
    DeviceTensor o({2, 3, 5}, ACL_FLOAT);
    ExpectError(Baddbmm(s.get(), a.get(), b.get(), one.get(), one.get(), o.get(), 0, stream_),
                kInvalid, {"out shape [2, 3, 5]", "[2, 3, 4]"}, "baddbmm out");
    DeviceTensor a1({1, 3, 5}, ACL_FLOAT);
    ExpectError(InplaceBaddbmm(s.get(), a1.get(), b.get(), one.get(), one.get(), 0, stream_),
                kInvalid, {"batch1 shape [1, 3, 5]", "equal batch dims", "(1 vs 2)"},
                "inplace baddbmm batch broadcast");
    DeviceTensor s2({3, 3, 4}, ACL_FLOAT), o2({2, 3, 4}, ACL_FLOAT);
    ExpectError(Baddbmm(s2.get(), a.get(), b.get(), one.get(), one.get(), o2.get(), 0, stream_),
                kInvalid, {"self shape [3, 3, 4]", "cannot broadcast"}, "baddbmm self");
    EXPECT_TRUE(o2.Untouched());
  }
}

TEST_F(MatmulTest, CubeMathTypeRange) {
  DeviceTensor a({2, 3}, ACL_FLOAT), b({3, 4}, ACL_FLOAT), o({2, 4}, ACL_FLOAT);
  for (int8_t cube : {int8_t{-1}, int8_t{5}, int8_t{127}}) {
    ExpectError(
        Matmul(a.get(), b.get(), o.get(), cube, stream_), ACLNN_ERR_PARAM_INVALID,
        {"cubeMathType must be 0", "4 (USE_FP32_ADD)", ("got " + std::to_string(cube)).c_str()},
        "cube " + std::to_string(cube));
  }
  for (int8_t cube = 0; cube <= 4; ++cube) {
    EXPECT_EQ(Matmul(a.get(), b.get(), o.get(), cube, stream_).phase1, 0) << int{cube};
  }
}

TEST_F(MatmulTest, BadExtents) {
  // A negative dim, and a view reaching beyond the int64 index range.
  const int64_t dims[2] = {-1, 3};
  const int64_t strides[2] = {3, 1};
  const int64_t storage = 6;
  float block[6] = {};
  aclTensor* x = aclCreateTensor(dims, 2, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, &storage, 1, block);
  DeviceTensor b({3, 4}, ACL_FLOAT);
  const int64_t odims[2] = {-1, 4};
  const int64_t ostrides[2] = {4, 1};
  float oblock[8] = {};
  aclTensor* o =
      aclCreateTensor(odims, 2, ACL_FLOAT, ostrides, 0, ACL_FORMAT_ND, &storage, 1, oblock);
  ExpectError(Mm(x, b.get(), o, 0, stream_), ACLNN_ERR_PARAM_INVALID,
              {"self dim 0 must be >= 0", "-1"}, "negative dim");
  aclDestroyTensor(x);
  aclDestroyTensor(o);

  const int64_t huge[2] = {2, 3};
  const int64_t hstrides[2] = {INT64_MAX / 2, 1};
  aclTensor* h =
      aclCreateTensor(huge, 2, ACL_FLOAT, hstrides, 0, ACL_FORMAT_ND, &storage, 1, block);
  DeviceTensor out({2, 4}, ACL_FLOAT);
  ExpectError(Mm(h, b.get(), out.get(), 0, stream_), ACLNN_ERR_PARAM_INVALID,
              {"self byte size overflows"}, "huge stride");
  aclDestroyTensor(h);
  EXPECT_TRUE(out.Untouched());
}

}  // namespace
}  // namespace openaclnn::test::matmul

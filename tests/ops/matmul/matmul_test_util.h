#pragma once
// Shared pieces of the matmul family's tests: the five operators through the public two-phase API,
// an independent float64 golden model with torch.matmul semantics, and layout helpers.

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_baddbmm.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "util/device_tensor.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test::matmul {

struct CallResult {
  aclnnStatus phase1 = 0;
  aclnnStatus phase2 = 0;
  uint64_t workspace = 0;
  std::string message;  // aclGetRecentErrMsg() after a failing phase 1
};

using Phase1 = std::function<aclnnStatus(uint64_t*, aclOpExecutor**)>;
using Phase2 = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

// Phase 1, then (if it succeeded) phase 2 with a fresh workspace, then synchronise.
CallResult CallApi(const Phase1& phase1, Phase2 phase2, aclrtStream stream);

// A stream per test on top of the runtime fixture; threads restored afterwards.
class MatmulTest : public RuntimeTest {
 protected:
  void SetUp() override;
  void TearDown() override;
  aclrtStream stream_ = nullptr;
};

// The value a scalar holds, as an owned aclScalar.
class Scalar {
 public:
  explicit Scalar(float value);
  Scalar(const void* value, aclDataType dtype);
  ~Scalar();
  Scalar(const Scalar&) = delete;
  Scalar& operator=(const Scalar&) = delete;
  aclScalar* get() const { return scalar_; }

 private:
  aclScalar* scalar_ = nullptr;
};

// torch.matmul's result shape of a @ b (1-D operands promoted and removed again).
std::vector<int64_t> MatmulShape(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

// Golden a @ b in float64 from row-major values, each operand value passed through `round_input`
// first; the result in row-major order of MatmulShape(a, b).
std::vector<double> MatmulGolden(const std::vector<double>& a, const std::vector<int64_t>& a_dims,
                                 const std::vector<double>& b, const std::vector<int64_t>& b_dims,
                                 const std::function<double(double)>& round_input = nullptr);

// beta * self (broadcast to out_dims) + alpha * product, in float64.
std::vector<double> AddScaled(const std::vector<double>& product,
                              const std::vector<int64_t>& out_dims, const std::vector<double>& self,
                              const std::vector<int64_t>& self_dims, double beta, double alpha);

// Row-major double values of a tensor (as stored).
std::vector<double> Values(const DeviceTensor& t);

// A random layout for a view of `rank` dims: contiguous, last two dims swapped (a .t() view),
// padded, scrambled, element-strided or offset, drawn by `rng`.
TensorLayout RandomLayout(int rank, std::mt19937* rng);
// The view's last two dims stored swapped (a transposed matrix, as weight.t() gives).
TensorLayout Transposed(int rank);

// Compares out against golden with the mixed tolerance of out's dtype and checks out's canaries.
void ExpectMatches(const DeviceTensor& out, const std::vector<double>& golden,
                   const std::string& what);

}  // namespace openaclnn::test::matmul

// Operators without a CUDA implementation run their CPU plan host-staged on a GPU device: the
// results must be the CPU path's, written only inside the output views. Skips without a GPU.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "util/cuda_fixture.h"

namespace openaclnn::test {
namespace {

using HostStagedTest = CudaTest;

// A device copy of host floats, freed at scope exit.
class DeviceFloats {
 public:
  explicit DeviceFloats(const std::vector<float>& host) : count_(host.size()) {
    EXPECT_EQ(aclrtMalloc(&ptr_, Bytes(), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemcpy(ptr_, Bytes(), host.data(), Bytes(), ACL_MEMCPY_HOST_TO_DEVICE),
              ACL_SUCCESS);
  }
  ~DeviceFloats() { aclrtFree(ptr_); }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  void* get() const { return ptr_; }
  std::vector<float> Read() const {
    std::vector<float> host(count_);
    EXPECT_EQ(aclrtMemcpy(host.data(), Bytes(), ptr_, Bytes(), ACL_MEMCPY_DEVICE_TO_HOST),
              ACL_SUCCESS);
    return host;
  }

 private:
  size_t Bytes() const { return count_ * sizeof(float); }
  void* ptr_ = nullptr;
  size_t count_;
};

aclTensor* Tensor(const std::vector<int64_t>& dims, void* data,
                  const std::vector<int64_t>& strides = {}) {
  return aclCreateTensor(dims.data(), dims.size(), ACL_FLOAT,
                         strides.empty() ? nullptr : strides.data(), 0, ACL_FORMAT_ND, dims.data(),
                         dims.size(), data);
}

float Value(int i) { return static_cast<float>((i * 37 % 23) - 11) / 8.0f; }

TEST_F(HostStagedTest, LayerNormForwardMatchesFloat64) {
  constexpr int64_t kM = 6, kN = 40;
  std::vector<float> x(kM * kN), w(kN), b(kN);
  for (int i = 0; i < kM * kN; ++i) x[i] = Value(i);
  for (int j = 0; j < kN; ++j) {
    w[j] = 0.5f + static_cast<float>(j) / 64.0f;
    b[j] = static_cast<float>(j) / 16.0f - 1.0f;
  }
  DeviceFloats dx(x), dw(w), db(b), dy(std::vector<float>(kM * kN, -7.0f));
  DeviceFloats dmean{std::vector<float>(kM)}, drstd{std::vector<float>(kM)};
  aclTensor* tx = Tensor({kM, kN}, dx.get());
  aclTensor* tw = Tensor({kN}, dw.get());
  aclTensor* tb = Tensor({kN}, db.get());
  aclTensor* ty = Tensor({kM, kN}, dy.get());
  aclTensor* tmean = Tensor({kM, 1}, dmean.get());
  aclTensor* trstd = Tensor({kM, 1}, drstd.get());
  aclIntArray* norm = aclCreateIntArray(&kN, 1);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnLayerNormGetWorkspaceSize(tx, norm, tw, tb, 1e-5, ty, tmean, trstd, &ws, &ex),
            ACLNN_SUCCESS)
      << RecentError();
  void* workspace = nullptr;
  if (ws > 0) {
    ASSERT_EQ(aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  ASSERT_EQ(aclnnLayerNorm(workspace, ws, ex, stream()), ACLNN_SUCCESS) << RecentError();
  ASSERT_EQ(aclrtSynchronizeStream(stream()), ACL_SUCCESS) << RecentError();
  const std::vector<float> y = dy.Read(), mean = dmean.Read(), rstd = drstd.Read();
  for (int64_t r = 0; r < kM; ++r) {
    double sum = 0, sq = 0;
    for (int64_t j = 0; j < kN; ++j) sum += x[r * kN + j];
    const double mu = sum / kN;
    for (int64_t j = 0; j < kN; ++j) sq += (x[r * kN + j] - mu) * (x[r * kN + j] - mu);
    const double inv = 1.0 / std::sqrt(sq / kN + 1e-5);
    EXPECT_NEAR(mean[r], mu, 1e-5);
    EXPECT_NEAR(rstd[r], inv, 1e-4 * inv);
    for (int64_t j = 0; j < kN; ++j) {
      const double expected = (x[r * kN + j] - mu) * inv * w[j] + b[j];
      EXPECT_NEAR(y[r * kN + j], expected, 1e-4 * (1 + std::fabs(expected))) << r << "," << j;
    }
  }
  if (workspace != nullptr) aclrtFree(workspace);
  for (aclTensor* t : {tx, tw, tb, ty, tmean, trstd}) aclDestroyTensor(t);
  aclDestroyIntArray(norm);
}

// ConvTbc forward into a strided output view: the gaps between view elements keep their values.
TEST_F(HostStagedTest, ConvTbcForwardWritesOnlyItsView) {
  constexpr int64_t kT = 5, kB = 2, kCin = 3, kCout = 4, kK = 3, kPad = 1;
  constexpr int64_t kTout = kT + 2 * kPad + 1 - kK;
  std::vector<float> x(kT * kB * kCin), w(kK * kCin * kCout), b(kCout);
  for (size_t i = 0; i < x.size(); ++i) x[i] = Value(static_cast<int>(i));
  for (size_t i = 0; i < w.size(); ++i) w[i] = Value(static_cast<int>(i) + 5);
  for (int64_t c = 0; c < kCout; ++c) b[c] = 0.25f * static_cast<float>(c);
  constexpr float kSentinel = 1234.5f;
  // The output's channels are interleaved with gaps: row stride 2 * Cout.
  DeviceFloats dx(x), dw(w), db(b), dy(std::vector<float>(kTout * kB * 2 * kCout, kSentinel));
  aclTensor* tx = Tensor({kT, kB, kCin}, dx.get());
  aclTensor* tw = Tensor({kK, kCin, kCout}, dw.get());
  aclTensor* tb = Tensor({kCout}, db.get());
  aclTensor* ty = Tensor({kTout, kB, kCout}, dy.get(), {kB * 2 * kCout, 2 * kCout, 1});
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(aclnnConvTbcGetWorkspaceSize(tx, tw, tb, kPad, ty, 0, &ws, &ex), ACLNN_SUCCESS)
      << RecentError();
  void* workspace = nullptr;
  if (ws > 0) {
    ASSERT_EQ(aclrtMalloc(&workspace, ws, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  }
  ASSERT_EQ(aclnnConvTbc(workspace, ws, ex, stream()), ACLNN_SUCCESS) << RecentError();
  ASSERT_EQ(aclrtSynchronizeStream(stream()), ACL_SUCCESS) << RecentError();
  const std::vector<float> y = dy.Read();
  for (int64_t t = 0; t < kTout; ++t) {
    for (int64_t bb = 0; bb < kB; ++bb) {
      for (int64_t co = 0; co < 2 * kCout; ++co) {
        const float got = y[(t * kB + bb) * 2 * kCout + co];
        if (co >= kCout) {
          EXPECT_EQ(got, kSentinel) << "gap element overwritten";
          continue;
        }
        double expected = b[co];
        for (int64_t k = 0; k < kK; ++k) {
          const int64_t ti = t + k - kPad;
          if (ti < 0 || ti >= kT) continue;
          for (int64_t ci = 0; ci < kCin; ++ci) {
            expected += static_cast<double>(x[(ti * kB + bb) * kCin + ci]) *
                        w[(k * kCin + ci) * kCout + co];
          }
        }
        EXPECT_NEAR(got, expected, 1e-4 * (1 + std::fabs(expected)));
      }
    }
  }
  if (workspace != nullptr) aclrtFree(workspace);
  for (aclTensor* t : {tx, tw, tb, ty}) aclDestroyTensor(t);
}

}  // namespace
}  // namespace openaclnn::test

// The two-phase machinery, driven by a small test operator that adds 1 to a float vector.

#include "api/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <vector>

#include "acl/error_codes/rt_error_codes.h"
#include "api/tensor_desc.h"
#include "runtime/meta.h"
#include "util/device_tensor.h"
#include "util/runtime_fixture.h"

namespace openaclnn::test {
namespace {

std::atomic<int> g_live_plans{0};
std::atomic<void*> g_last_workspace{nullptr};  // what the last AddOnePlan::Run was given

struct AddOneProblem {
  TensorDesc in, out;
  std::string Describe() const { return "n=" + std::to_string(in.Numel()); }
};

class AddOnePlan : public Plan {
 public:
  AddOnePlan(const AddOneProblem& p, size_t scratch) : p_(p), scratch_(scratch) { ++g_live_plans; }
  ~AddOnePlan() override { --g_live_plans; }
  Status Run(const Bindings& b, void* workspace) const override {
    g_last_workspace = workspace;
    const float* x = static_cast<const float*>(p_.in.First(b.inputs[0]));
    float* y = static_cast<float*>(p_.out.First(b.outputs[0]));
    float* tmp = WorkspaceBooking::At<float>(workspace, scratch_);
    for (int64_t i = 0; i < p_.in.Numel(); ++i) tmp[i] = x[i] + 1.0f;
    for (int64_t i = 0; i < p_.in.Numel(); ++i) y[i] = tmp[i];
    return Status::Ok();
  }

 private:
  AddOneProblem p_;
  size_t scratch_;
};

const char* DeclinesNothing(const AddOneProblem&) { return nullptr; }
const char* DeclinesEverything(const AddOneProblem&) { return "declines for the test"; }
std::unique_ptr<Plan> MakeAddOne(const AddOneProblem& p, WorkspaceBooking* ws) {
  const size_t scratch = ws->Book(sizeof(float) * static_cast<size_t>(p.in.Numel()));
  return std::make_unique<AddOnePlan>(p, scratch);
}

// A plan whose run fails, as a kernel fault would.
class FailingPlan : public Plan {
 public:
  Status Run(const Bindings&, void*) const override {
    return ErrorStatus(ACLNN_ERR_INNER, "the kernel refused for the test");
  }
};
std::unique_ptr<Plan> MakeFailing(const AddOneProblem&, WorkspaceBooking*) {
  return std::make_unique<FailingPlan>();
}

const Implementation<AddOneProblem> kImpls[] = {
    {"never", DeviceKind::kCpu, DeclinesEverything, MakeAddOne},
    {"reference", DeviceKind::kCpu, DeclinesNothing, MakeAddOne},
    {"fails_at_run", DeviceKind::kCpu, DeclinesNothing, MakeFailing},  // only when forced
};

aclnnStatus AddOneGetWorkspaceSize(const aclTensor* x, aclTensor* y, uint64_t* ws,
                                   aclOpExecutor** ex) {
  return RunPhase1("aclnnTestAddOne", ws, ex, {x}, {y}, [&](PlanBuilder* b) -> Status {
    if (x == nullptr) return NullptrError("x");
    if (y == nullptr) return NullptrError("y");
    AddOneProblem p;
    DescribeTensor(*x, &p.in);
    DescribeTensor(*y, &p.out);
    b->problem = p.Describe();
    return ChooseImplementation("test_add_one", kImpls, p, b);
  });
}
aclnnStatus AddOne(void* ws, uint64_t size, aclOpExecutor* ex, aclrtStream stream) {
  return RunPhase2("aclnnTestAddOne", ws, size, ex, stream);
}

class ExecutorTest : public RuntimeTest {
 protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    ASSERT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS);
    for (void** p : {&x_, &y_}) {
      ASSERT_EQ(aclrtMalloc(p, 64 * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    }
    ASSERT_EQ(aclrtMalloc(&ws_, kWorkspaceBlock, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    std::vector<float> v(64);
    for (int i = 0; i < 64; ++i) v[i] = static_cast<float>(i);
    ASSERT_EQ(aclrtMemcpy(x_, 256, v.data(), 256, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    int64_t dims[1] = {64};
    xt_ = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, x_);
    yt_ = aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, y_);
  }
  void TearDown() override {
    aclDestroyTensor(xt_);
    aclDestroyTensor(yt_);
    for (void* p : {x_, y_, ws_}) aclrtFree(p);
    EXPECT_EQ(aclrtDestroyStream(stream_), ACL_SUCCESS);
    EXPECT_EQ(g_live_plans.load(), 0);  // every plan released: no leak
    RuntimeTest::TearDown();
  }
  float Y(int i) {
    float v = 0;
    aclrtMemcpy(&v, 4, static_cast<float*>(y_) + i, 4, ACL_MEMCPY_DEVICE_TO_HOST);
    return v;
  }

  static constexpr size_t kWorkspaceBlock = 512;
  aclrtStream stream_ = nullptr;
  void *x_ = nullptr, *y_ = nullptr, *ws_ = nullptr;
  aclTensor *xt_ = nullptr, *yt_ = nullptr;
};

TEST_F(ExecutorTest, SingleUseIsReleasedByPhase2) {
  uint64_t size = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(AddOneGetWorkspaceSize(xt_, yt_, &size, &ex), 0);
  EXPECT_EQ(size, 256u + WorkspaceBooking::kAlignment);  // the booking and room to align it
  ASSERT_EQ(AddOne(ws_, size, ex, stream_), 0);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(Y(0), 1.f);
  EXPECT_EQ(Y(63), 64.f);
  // A second phase 2 on the released executor is an error, not a use after free.
  EXPECT_EQ(AddOne(ws_, size, ex, stream_), 161002);
  EXPECT_NE(RecentError().find("not live"), std::string::npos);
}

TEST_F(ExecutorTest, Phase1NullChecksComeFirst) {
  aclOpExecutor* ex = nullptr;
  uint64_t size = 0;
  EXPECT_EQ(AddOneGetWorkspaceSize(nullptr, yt_, nullptr, &ex), 161001);
  EXPECT_NE(RecentError().find("aclnnTestAddOne: workspaceSize"), std::string::npos);
  EXPECT_EQ(AddOneGetWorkspaceSize(xt_, yt_, &size, nullptr), 161001);
  EXPECT_EQ(AddOneGetWorkspaceSize(nullptr, yt_, &size, &ex), 161001);
  EXPECT_EQ(RecentError(), "aclnnTestAddOne: x must not be nullptr");
  EXPECT_EQ(ex, nullptr);
}

TEST_F(ExecutorTest, Phase2ArgumentChecks) {
  uint64_t size = 0;
  aclOpExecutor* ex = nullptr;
  EXPECT_EQ(AddOne(ws_, 256, nullptr, stream_), 161001);
  ASSERT_EQ(AddOneGetWorkspaceSize(xt_, yt_, &size, &ex), 0);
  EXPECT_EQ(AddOne(nullptr, size, ex, stream_), 161001);  // releases the executor
  EXPECT_EQ(AddOne(ws_, size, ex, stream_), 161002);
  ASSERT_EQ(AddOneGetWorkspaceSize(xt_, yt_, &size, &ex), 0);
  EXPECT_EQ(AddOne(ws_, size - 4, ex, stream_), 161002);             // D5: too small, released
  EXPECT_NE(RecentError().find("at least 320"), std::string::npos);  // 256 booked + 64
  EXPECT_EQ(AddOne(ws_, size, ex, stream_), 161002);
  // A workspace claimed larger than its block.
  ASSERT_EQ(AddOneGetWorkspaceSize(xt_, yt_, &size, &ex), 0);
  EXPECT_EQ(AddOne(static_cast<char*>(ws_) + kWorkspaceBlock - size + 4, size, ex, stream_),
            161002);
  EXPECT_NE(RecentError().find("aclrtMalloc block"), std::string::npos);
  // A destroyed stream.
  aclrtStream gone = nullptr;
  ASSERT_EQ(aclrtCreateStream(&gone), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(gone), ACL_SUCCESS);
  ASSERT_EQ(AddOneGetWorkspaceSize(xt_, yt_, &size, &ex), 0);
  EXPECT_EQ(AddOne(ws_, size, ex, gone), 361001);
}

TEST_F(ExecutorTest, NullStreamIsTheDefaultStream) {
  uint64_t size = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(AddOneGetWorkspaceSize(xt_, yt_, &size, &ex), 0);
  ASSERT_EQ(AddOne(ws_, size, ex, nullptr), 0);
  ASSERT_EQ(aclrtSynchronizeStream(nullptr), ACL_SUCCESS);
  EXPECT_EQ(Y(5), 6.f);
  ASSERT_EQ(aclrtSynchronizeDevice(), ACL_SUCCESS);
}

TEST_F(ExecutorTest, RepeatableRunsManyTimesAndRebinds) {
  uint64_t size = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(AddOneGetWorkspaceSize(xt_, yt_, &size, &ex), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(AddOne(ws_, size, ex, stream_), 0);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(Y(2), 3.f);
  // Feed y back as x: each run then adds one more.
  ASSERT_EQ(aclSetInputTensorAddr(ex, 0, xt_, y_), 0);
  EXPECT_EQ(xt_->data, y_);
  ASSERT_EQ(AddOne(ws_, size, ex, stream_), 0);
  ASSERT_EQ(AddOne(ws_, size, ex, stream_), 0);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(Y(2), 5.f);
  EXPECT_EQ(aclSetInputTensorAddr(ex, 1, xt_, y_), 161002);
  EXPECT_NE(RecentError().find("out of range"), std::string::npos);
  EXPECT_EQ(aclSetOutputTensorAddr(ex, 0, nullptr, y_), 561103);
  EXPECT_EQ(aclSetOutputTensorAddr(nullptr, 0, yt_, y_), 561103);
  // An address whose block is too small for the view.
  EXPECT_EQ(aclSetOutputTensorAddr(ex, 0, yt_, static_cast<char*>(y_) + 4), 161002);
  EXPECT_EQ(aclSetTensorAddr(ex, 1, yt_, x_), 0);  // index 1 is output 0
  ASSERT_EQ(AddOne(ws_, size, ex, stream_), 0);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  float x2 = 0;
  aclrtMemcpy(&x2, 4, static_cast<float*>(x_) + 2, 4, ACL_MEMCPY_DEVICE_TO_HOST);
  EXPECT_EQ(x2, 6.f);
  xt_->data = x_;
  yt_->data = y_;
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 0);
  EXPECT_EQ(aclDestroyAclOpExecutor(ex), 161002);
  EXPECT_EQ(aclDestroyAclOpExecutor(nullptr), 561103);
  EXPECT_EQ(aclSetAclOpExecutorRepeatable(nullptr), 561103);
}

TEST_F(ExecutorTest, RebindingNeedsARepeatableExecutor) {
  uint64_t size = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(AddOneGetWorkspaceSize(xt_, yt_, &size, &ex), 0);
  EXPECT_EQ(aclSetInputTensorAddr(ex, 0, xt_, y_), 161002);
  EXPECT_NE(RecentError().find("repeatable"), std::string::npos);
  ASSERT_EQ(AddOne(ws_, size, ex, stream_), 0);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
}

TEST_F(ExecutorTest, DestroyBeforeTheStreamRuns) {
  // The queued run keeps the plan alive after the executor is gone.
  uint64_t size = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(AddOneGetWorkspaceSize(xt_, yt_, &size, &ex), 0);
  ASSERT_EQ(aclSetAclOpExecutorRepeatable(ex), 0);
  ASSERT_EQ(AddOne(ws_, size, ex, stream_), 0);
  ASSERT_EQ(aclDestroyAclOpExecutor(ex), 0);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
  EXPECT_EQ(Y(1), 2.f);
}

TEST_F(ExecutorTest, NullAddressWithElementsIsRefusedInPhase2) {
  int64_t dims[1] = {64};
  aclTensor* unbound =
      aclCreateTensor(dims, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, dims, 1, nullptr);
  uint64_t size = 0;
  aclOpExecutor* ex = nullptr;
  ASSERT_EQ(AddOneGetWorkspaceSize(unbound, yt_, &size, &ex), 0);
  EXPECT_EQ(AddOne(ws_, size, ex, stream_), 161001);
  EXPECT_NE(RecentError().find("no device address"), std::string::npos);
  aclDestroyTensor(unbound);
}

TEST_F(ExecutorTest, ForcedImplementation) {
  uint64_t size = 0;
  aclOpExecutor* ex = nullptr;
  setenv("OPENACLNN_FORCE_IMPL", "test_add_one=never", 1);
  EXPECT_EQ(AddOneGetWorkspaceSize(xt_, yt_, &size, &ex), 561003);
  EXPECT_NE(RecentError().find("declines for the test"), std::string::npos);
  setenv("OPENACLNN_FORCE_IMPL", "other_op=never,test_add_one=missing", 1);
  EXPECT_EQ(AddOneGetWorkspaceSize(xt_, yt_, &size, &ex), 561003);
  EXPECT_NE(RecentError().find("not an implementation"), std::string::npos);
  setenv("OPENACLNN_FORCE_IMPL", "reference", 1);
  EXPECT_EQ(AddOneGetWorkspaceSize(xt_, yt_, &size, &ex), 0);
  unsetenv("OPENACLNN_FORCE_IMPL");
  ASSERT_EQ(AddOne(ws_, size, ex, stream_), 0);
  ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
}

// The plan gets the first 64-byte aligned address of the caller's workspace, wherever that starts,
// and the bookings fit between it and the end of what phase 1 reported.
TEST_F(ExecutorTest, PlanGetsAnAlignedWorkspaceAtAnyOffset) {
  for (size_t offset = 0; offset <= WorkspaceBooking::kAlignment; offset += 4) {
    uint64_t size = 0;
    aclOpExecutor* ex = nullptr;
    ASSERT_EQ(AddOneGetWorkspaceSize(xt_, yt_, &size, &ex), 0);
    ASSERT_LE(offset + size, kWorkspaceBlock);
    unsigned char* workspace = static_cast<unsigned char*>(ws_) + offset;
    ASSERT_EQ(AddOne(workspace, size, ex, stream_), 0) << "offset " << offset;
    ASSERT_EQ(aclrtSynchronizeStream(stream_), ACL_SUCCESS);
    const auto given = reinterpret_cast<uintptr_t>(g_last_workspace.load());
    const auto start = reinterpret_cast<uintptr_t>(workspace);
    EXPECT_EQ(given % WorkspaceBooking::kAlignment, 0u) << "offset " << offset;
    EXPECT_GE(given, start) << "offset " << offset;
    EXPECT_LE(given + 256u, start + size) << "offset " << offset;
    EXPECT_EQ(Y(63), 64.f);
  }
}

TEST(WorkspaceBookingTest, AlignsEveryBooking) {
  WorkspaceBooking booking;
  EXPECT_EQ(booking.Book(1), 0u);
  EXPECT_EQ(booking.Book(100), 64u);
  EXPECT_EQ(booking.Book(0), 192u);
  EXPECT_EQ(booking.Book(64), 192u);
  EXPECT_EQ(booking.total(), 256u);
}

// An operator failing on the stream surfaces at aclrtSynchronizeStream as a runtime error (a
// failed kernel, 507015), never as its aclnn status: the two code spaces do not mix.
TEST_F(ExecutorTest, OperatorFailureSurfacesAsARuntimeErrorAtSynchronisation) {
  DeviceTensor x({4}, ACL_FLOAT), y({4}, ACL_FLOAT);
  x.Fill({1, 2, 3, 4});
  setenv("OPENACLNN_FORCE_IMPL", "test_add_one=fails_at_run", 1);
  uint64_t ws = 0;
  aclOpExecutor* ex = nullptr;
  const aclnnStatus phase1 = AddOneGetWorkspaceSize(x.get(), y.get(), &ws, &ex);
  unsetenv("OPENACLNN_FORCE_IMPL");
  ASSERT_EQ(phase1, ACLNN_SUCCESS) << RecentError();
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  EXPECT_EQ(AddOne(nullptr, 0, ex, stream), ACLNN_SUCCESS);  // queued: the failure comes later
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_ERROR_RT_AICORE_EXCEPTION);
  const std::string message = RecentError();
  EXPECT_NE(message.find("aclnnTestAddOne failed on the stream"), std::string::npos) << message;
  EXPECT_NE(message.find("the kernel refused for the test"), std::string::npos) << message;
  EXPECT_NE(message.find("aclnn status 561000"), std::string::npos) << message;
  EXPECT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);  // reported once
  EXPECT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
}

}  // namespace
}  // namespace openaclnn::test

// The SIMD target phase 1 resolves: a plan's kernels run on exactly the target PlanningTarget()
// names, under any planning cap, without touching Highway's process-wide choice.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "runtime/kernel_target_test.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace openaclnn::test::HWY_NAMESPACE {
int64_t CompiledTarget() { return HWY_TARGET; }
}  // namespace openaclnn::test::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <gtest/gtest.h>

#include <string>

#include "backend/cpu/isa.h"

namespace openaclnn::test {
HWY_EXPORT(CompiledTarget);

namespace {

TEST(KernelTarget, EachCapDispatchesToItsTarget) {
  (void)cpu::PlanningTarget();  // the first call reads the CPU's targets once
  const int64_t chosen_before = hwy::GetChosenTarget().GetIndex();
  for (const std::string& isa : cpu::AvailableIsas()) {
    ASSERT_TRUE(cpu::SetPlanningIsaCap(isa));
    const cpu::KernelTarget target = cpu::PlanningTarget();
    EXPECT_EQ(isa, target.name);
    EXPECT_EQ(isa == "avx512_bf16", target.native_bf16);
    EXPECT_EQ(target.hwy_target, OPENACLNN_DISPATCH(CompiledTarget, target)()) << isa;
  }
  ASSERT_TRUE(cpu::SetPlanningIsaCap(""));
  EXPECT_EQ(cpu::AvailableIsas().front(), cpu::PlanningTarget().name);
  EXPECT_EQ(chosen_before, hwy::GetChosenTarget().GetIndex());
}

TEST(KernelTarget, UnknownCapIsRefused) {
  EXPECT_FALSE(cpu::SetPlanningIsaCap("avx9000"));
  EXPECT_EQ(cpu::AvailableIsas().front(), cpu::PlanningTarget().name);
}

}  // namespace
}  // namespace openaclnn::test
#endif  // HWY_ONCE

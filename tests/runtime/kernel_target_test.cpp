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
#include <vector>

#include "backend/cpu/isa.h"

#if HWY_ARCH_ARM_A64 && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

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

#if HWY_ARCH_ARM_A64 && defined(__linux__)
// On a CPU with SVE (the kernel's hardware capabilities say so; qemu's "max" CPU under
// scripts/test_aarch64.sh), phase 1 picks an SVE target and the kernels run its code: SVE2 where
// the CPU also has SVE2 and SVE-AES (qemu's "max" CPU has both), SVE where it has no SVE2.
TEST(KernelTarget, SveCpuRunsSveKernels) {
  const unsigned long hwcap = getauxval(AT_HWCAP);    // NOLINT(runtime/int)
  const unsigned long hwcap2 = getauxval(AT_HWCAP2);  // NOLINT(runtime/int)
  if ((hwcap & HWCAP_SVE) == 0) GTEST_SKIP() << "this CPU has no SVE";
  const bool has_sve2 = (hwcap2 & HWCAP2_SVE2) != 0;
  const bool sve2_and_aes = has_sve2 && (hwcap2 & HWCAP2_SVEAES) != 0;
  ASSERT_TRUE(cpu::SetPlanningIsaCap(""));
  const cpu::KernelTarget target = cpu::PlanningTarget();
  const std::string name = target.name;
  if (sve2_and_aes) {
    EXPECT_EQ(name, "sve2");
  }
  if (!has_sve2) {
    EXPECT_EQ(name, "sve");
  }
  ASSERT_TRUE(name == "sve2" || name == "sve") << name;
  EXPECT_EQ(OPENACLNN_DISPATCH(CompiledTarget, target)(), name == "sve2" ? HWY_SVE2 : HWY_SVE);
  const std::vector<std::string> isas = cpu::AvailableIsas();
  ASSERT_GE(isas.size(), 3u);
  EXPECT_EQ(isas[isas.size() - 2], "neon");
  EXPECT_EQ(isas.back(), "scalar");
}
#endif

TEST(KernelTarget, UnknownCapIsRefused) {
  EXPECT_FALSE(cpu::SetPlanningIsaCap("avx9000"));
  EXPECT_EQ(cpu::AvailableIsas().front(), cpu::PlanningTarget().name);
}

}  // namespace
}  // namespace openaclnn::test
#endif  // HWY_ONCE

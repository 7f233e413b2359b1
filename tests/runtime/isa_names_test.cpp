// The OPENACLNN_CPU_ISA names of each architecture: x86-64's on x86-64, aarch64's on aarch64, the
// other architecture's refused, and "scalar" on both.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backend/cpu/isa.h"
#include "hwy/targets.h"

namespace openaclnn::test {
namespace {

class IsaNames : public ::testing::Test {
 protected:
  void TearDown() override { cpu::SetPlanningIsaCap(""); }
};

TEST_F(IsaNames, ThisArchitecturesNamesAndScalar) {
#if HWY_ARCH_ARM_A64
  const std::vector<std::string> own = {"sve2", "sve", "neon", "scalar"};
  const std::vector<std::string> other = {"avx512_bf16", "avx512", "avx2", "sse4"};
#else
  const std::vector<std::string> own = {"avx512_bf16", "avx512", "avx2", "sse4", "scalar"};
  const std::vector<std::string> other = {"sve2", "sve", "neon"};
#endif
  for (const std::string& name : own) EXPECT_TRUE(cpu::SetPlanningIsaCap(name)) << name;
  for (const std::string& name : other) EXPECT_FALSE(cpu::SetPlanningIsaCap(name)) << name;
  const std::vector<std::string> available = cpu::AvailableIsas();
  ASSERT_FALSE(available.empty());
  EXPECT_EQ(available.back(), "scalar");
  for (const std::string& name : available) {
    EXPECT_NE(std::find(own.begin(), own.end(), name), own.end()) << name;
  }
  ASSERT_TRUE(cpu::SetPlanningIsaCap("scalar"));
  EXPECT_EQ(cpu::ActiveIsa(), "scalar");
}

#if HWY_ARCH_ARM_A64
// A cap runs the best target of the CPU at or below it: sve2 and sve where the CPU has them (the
// SVE targets are compiled, docs/arm64.md), neon below them.
TEST_F(IsaNames, SveCapsRunTheBestTargetAtOrBelowThem) {
  const std::vector<std::string> available = cpu::AvailableIsas();
  auto has = [&](const char* name) {
    return std::find(available.begin(), available.end(), name) != available.end();
  };
  ASSERT_TRUE(cpu::SetPlanningIsaCap("sve2"));
  EXPECT_EQ(cpu::ActiveIsa(), has("sve2") ? "sve2" : has("sve") ? "sve" : "neon");
  ASSERT_TRUE(cpu::SetPlanningIsaCap("sve"));
  EXPECT_EQ(cpu::ActiveIsa(), has("sve") ? "sve" : "neon");
  ASSERT_TRUE(cpu::SetPlanningIsaCap("neon"));
  EXPECT_EQ(cpu::ActiveIsa(), "neon");
  EXPECT_EQ(cpu::PlanningTarget().hwy_target, HWY_NEON);
  if (has("sve2")) {
    ASSERT_TRUE(cpu::SetPlanningIsaCap("sve2"));
    EXPECT_EQ(cpu::PlanningTarget().hwy_target, HWY_SVE2);
  }
  if (has("sve")) {
    ASSERT_TRUE(cpu::SetPlanningIsaCap("sve"));
    EXPECT_EQ(cpu::PlanningTarget().hwy_target, HWY_SVE);
  }
}
#endif

}  // namespace
}  // namespace openaclnn::test

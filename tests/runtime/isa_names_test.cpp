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
// The SVE targets are not compiled (docs/arm64.md): their caps fall to NEON, the best target below.
TEST_F(IsaNames, SveCapsRunNeon) {
  for (const char* name : {"sve2", "sve"}) {
    ASSERT_TRUE(cpu::SetPlanningIsaCap(name));
    EXPECT_EQ(cpu::ActiveIsa(), "neon") << name;
  }
  ASSERT_TRUE(cpu::SetPlanningIsaCap("neon"));
  EXPECT_EQ(cpu::PlanningTarget().hwy_target, HWY_NEON);
}
#endif

}  // namespace
}  // namespace openaclnn::test

// The layout of host staging (CPU plans on a CUDA device): which device bytes are copied, which
// are written back, and where each tensor's storage base lands. Pure arithmetic on addresses, so
// it is checked here, without a GPU; tests/cuda runs the whole path on one.

#include "api/host_staged.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace openaclnn {
namespace {

BoundParam Float32View(std::vector<int64_t> dims, std::vector<int64_t> strides, int64_t offset) {
  BoundParam p;
  p.present = true;
  p.used = true;
  p.view.dtype = ACL_FLOAT;
  p.view.rank = static_cast<int>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    p.view.dims[i] = dims[i];
    p.view.strides[i] = strides[i];
  }
  p.view.offset = offset;
  return p;
}

// Made-up device addresses: the layout only does arithmetic on them.
void* Address(uintptr_t a) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  return reinterpret_cast<void*>(a);
}

TEST(HostStagingLayout, SeparateTensorsGetTheirOwnRegions) {
  StagedParams views;
  views.count = {1, 1};
  views.params[0][0] = Float32View({4, 4}, {4, 1}, 0);  // input: 64 bytes at 0x1000
  views.params[1][0] = Float32View({8}, {1}, 0);        // output: 32 bytes at 0x2000
  Bindings b;
  b.inputs[0] = Address(0x1000);
  b.outputs[0] = Address(0x2000);
  const StagingLayout layout = PlanStaging(views, b);
  ASSERT_EQ(layout.regions.size(), 2u);
  EXPECT_EQ(layout.regions[0].begin, 0x1000u);
  EXPECT_EQ(layout.regions[0].end, 0x1040u);
  EXPECT_FALSE(layout.regions[0].written);
  EXPECT_EQ(layout.regions[1].begin, 0x2000u);
  EXPECT_EQ(layout.regions[1].end, 0x2020u);
  EXPECT_TRUE(layout.regions[1].written);
  ASSERT_EQ(layout.placements.size(), 2u);
  for (const StagingLayout::Placement& p : layout.placements) EXPECT_EQ(p.base_offset, 0);
}

// Two outputs interleaved in one storage, and an input overlapping them: one region, written back
// once, so neither output's copy overwrites the other's elements.
TEST(HostStagingLayout, OverlappingSpansShareOneRegion) {
  StagedParams views;
  views.count = {1, 2};
  views.params[1][0] = Float32View({4}, {2}, 0);  // elements 0, 2, 4, 6
  views.params[1][1] = Float32View({4}, {2}, 1);  // elements 1, 3, 5, 7
  views.params[0][0] = Float32View({2}, {1}, 6);  // elements 6, 7
  Bindings b;
  b.outputs[0] = b.outputs[1] = b.inputs[0] = Address(0x4000);
  const StagingLayout layout = PlanStaging(views, b);
  ASSERT_EQ(layout.regions.size(), 1u);
  EXPECT_EQ(layout.regions[0].begin, 0x4000u);
  EXPECT_EQ(layout.regions[0].end, 0x4000u + 8 * 4);
  EXPECT_TRUE(layout.regions[0].written);
  ASSERT_EQ(layout.placements.size(), 3u);
  for (const StagingLayout::Placement& p : layout.placements) {
    EXPECT_EQ(p.region, 0u);
    EXPECT_EQ(p.base_offset, 0);  // all three share the storage base
  }
}

// A view that starts past its storage base (offset, negative stride): only its span is copied,
// and the host base sits before the copy by the same amount.
TEST(HostStagingLayout, OffsetsAndNegativeStrides) {
  StagedParams views;
  views.count = {1, 0};
  // dims 3, stride -2, offset 10: elements 10, 8, 6 -> bytes [24, 44).
  views.params[0][0] = Float32View({3}, {-2}, 10);
  Bindings b;
  b.inputs[0] = Address(0x8000);
  const StagingLayout layout = PlanStaging(views, b);
  ASSERT_EQ(layout.regions.size(), 1u);
  EXPECT_EQ(layout.regions[0].begin, 0x8000u + 24);
  EXPECT_EQ(layout.regions[0].end, 0x8000u + 44);
  EXPECT_FALSE(layout.regions[0].written);
  ASSERT_EQ(layout.placements.size(), 1u);
  EXPECT_EQ(layout.placements[0].base_offset, -24);
}

TEST(HostStagingLayout, EmptyUnusedAndAbsentTensorsAreNotStaged) {
  StagedParams views;
  views.count = {3, 1};
  views.params[0][0] = Float32View({0, 5}, {5, 1}, 0);  // empty
  views.params[0][1] = Float32View({5}, {1}, 0);
  views.params[0][1].used = false;                // the plan never reads it
  views.params[0][2] = Float32View({5}, {1}, 0);  // no address
  views.params[1][0] = Float32View({2}, {1}, 0);
  Bindings b;
  b.inputs[0] = Address(0x100);
  b.inputs[1] = Address(0x200);
  b.inputs[2] = nullptr;
  b.outputs[0] = Address(0x300);
  const StagingLayout layout = PlanStaging(views, b);
  ASSERT_EQ(layout.regions.size(), 1u);
  EXPECT_EQ(layout.regions[0].begin, 0x300u);
  ASSERT_EQ(layout.placements.size(), 1u);
  EXPECT_EQ(layout.placements[0].side, 1);
}

}  // namespace
}  // namespace openaclnn

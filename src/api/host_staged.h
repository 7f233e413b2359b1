#pragma once
// CPU plans on a CUDA device. When no CUDA implementation accepts a problem (or an operator has
// none yet), phase 1 may choose a CPU implementation instead; phase 2 then runs it "host-staged":
// it waits for the stream, copies the bytes of every tensor the plan uses to host memory, runs the
// plan there and copies the bytes holding outputs back. Synchronous and slow, but it gives every
// operator the CPU path's exact results on the GPU.

#include <array>
#include <cstdint>
#include <vector>

#include "api/executor.h"

namespace openaclnn {

// The frozen tensor parameters of an executor: [0] inputs, [1] outputs, in API order.
struct StagedParams {
  std::array<std::array<BoundParam, kMaxBindings>, 2> params;
  std::array<int, 2> count{};
};

// Where host staging puts each tensor: the device byte regions to copy (overlapping spans merged;
// `written` when an output lies in it), and for each used, non-empty tensor its region and the
// offset of its storage base from the region's start (negative when the view starts past its base).
struct StagingLayout {
  struct Region {
    uintptr_t begin = 0, end = 0;  // device addresses
    bool written = false;
  };
  struct Placement {
    int side = 0, index = 0;  // [0] inputs, [1] outputs; API order
    size_t region = 0;
    intptr_t base_offset = 0;
  };
  std::vector<Region> regions;
  std::vector<Placement> placements;
};
StagingLayout PlanStaging(const StagedParams& views, const Bindings& device_bindings);

Status RunHostStaged(const Plan& plan, const StagedParams& views, const Bindings& device_bindings,
                     size_t workspace_size, void* cuda_stream);

}  // namespace openaclnn

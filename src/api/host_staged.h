#pragma once
// CPU plans on a CUDA device. When no CUDA implementation accepts a problem (or an operator has
// none yet), phase 1 may choose a CPU implementation instead; phase 2 then runs it "host-staged":
// it waits for the stream, copies the bytes of every tensor the plan uses to host memory, runs the
// plan there and copies the bytes holding outputs back. Synchronous and slow, but it gives every
// operator the CPU path's exact results on the GPU.

#include <array>

#include "api/executor.h"

namespace openaclnn {

// The frozen tensor parameters of an executor: [0] inputs, [1] outputs, in API order.
struct StagedParams {
  std::array<std::array<BoundParam, kMaxBindings>, 2> params;
  std::array<int, 2> count{};
};

Status RunHostStaged(const Plan& plan, const StagedParams& views, const Bindings& device_bindings,
                     size_t workspace_size, void* cuda_stream);

}  // namespace openaclnn

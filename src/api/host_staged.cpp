#include "api/host_staged.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "api/dtype.h"
#include "backend/cuda/runtime.h"

namespace openaclnn {
namespace {

// Bytes [begin, end) of a non-empty view, relative to its storage base. False when empty.
bool ViewBytes(const TensorDesc& d, uint64_t* begin, uint64_t* end) {
  int64_t low = d.offset, high = d.offset;
  for (int i = 0; i < d.rank; ++i) {
    if (d.dims[i] == 0) return false;
    const int64_t reach = (d.dims[i] - 1) * d.strides[i];  // CheckTensorExtent proved it fits
    (reach >= 0 ? high : low) += reach;
  }
  const uint64_t size = DTypeSize(d.dtype);
  *begin = static_cast<uint64_t>(low) * size;
  *end = (static_cast<uint64_t>(high) + 1) * size;
  return true;
}

struct Span {
  uintptr_t begin, end;  // device addresses
  int side, index;
};

// Host memory the plans may read with aligned SIMD loads.
struct AlignedFree {
  void operator()(void* p) const { std::free(p); }
};
using HostBuffer = std::unique_ptr<unsigned char, AlignedFree>;

HostBuffer AllocateHost(size_t bytes) {
  const size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
  return HostBuffer(static_cast<unsigned char*>(std::aligned_alloc(64, rounded)));
}

}  // namespace

Status RunHostStaged(const Plan& plan, const StagedParams& views, const Bindings& device_bindings,
                     size_t workspace_size, void* cuda_stream) {
  const auto& params = views.params;
  const auto& num_params = views.count;
  OPENACLNN_RETURN_IF_ERROR(cuda::SynchronizeStream(cuda_stream));
  std::vector<Span> spans;
  for (int side = 0; side < 2; ++side) {
    const auto& addresses = side == 0 ? device_bindings.inputs : device_bindings.outputs;
    for (int i = 0; i < num_params[side]; ++i) {
      uint64_t begin = 0, end = 0;
      if (!params[side][i].used || addresses[i] == nullptr ||
          !ViewBytes(params[side][i].view, &begin, &end)) {
        continue;
      }
      const uintptr_t base = reinterpret_cast<uintptr_t>(addresses[i]);
      spans.push_back({base + begin, base + end, side, i});
    }
  }
  // Overlapping spans share one host region, so aliasing between tensors is what the plan sees on
  // the CPU device, and no region is written back twice.
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.begin < b.begin; });
  struct Region {
    uintptr_t begin, end;
    bool written;
    HostBuffer host;
  };
  std::vector<Region> regions;
  for (const Span& s : spans) {
    if (!regions.empty() && s.begin < regions.back().end) {
      regions.back().end = std::max(regions.back().end, s.end);
      regions.back().written |= s.side == 1;
    } else {
      regions.push_back({s.begin, s.end, s.side == 1, nullptr});
    }
  }
  for (Region& r : regions) {
    r.host = AllocateHost(r.end - r.begin);
    if (!r.host) {
      return ErrorStatus(ACLNN_ERR_INNER, "out of host memory staging %llu bytes for the CPU plan",
                         static_cast<unsigned long long>(r.end - r.begin));
    }
    OPENACLNN_RETURN_IF_ERROR(
        cuda::Memcpy(r.host.get(), reinterpret_cast<const void*>(r.begin), r.end - r.begin));
  }
  // Host storage bases: the device base's offset within its region, applied to the host copy.
  // Empty or unused tensors keep their addresses; the plan does not touch them.
  Bindings host_bindings = device_bindings;
  for (const Span& s : spans) {
    auto& addresses = s.side == 0 ? host_bindings.inputs : host_bindings.outputs;
    const uintptr_t device_base = reinterpret_cast<uintptr_t>(addresses[s.index]);
    const Region& r = *std::find_if(regions.begin(), regions.end(), [&](const Region& region) {
      return s.begin >= region.begin && s.end <= region.end;
    });
    addresses[s.index] = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(r.host.get()) +
                                                 (device_base - r.begin));
  }
  HostBuffer workspace = AllocateHost(workspace_size);
  if (!workspace) return ErrorStatus(ACLNN_ERR_INNER, "out of host memory for the workspace");
  OPENACLNN_RETURN_IF_ERROR(plan.Run(host_bindings, workspace.get()));
  for (const Region& r : regions) {
    if (!r.written) continue;
    OPENACLNN_RETURN_IF_ERROR(
        cuda::Memcpy(reinterpret_cast<void*>(r.begin), r.host.get(), r.end - r.begin));
  }
  return Status::Ok();
}

}  // namespace openaclnn

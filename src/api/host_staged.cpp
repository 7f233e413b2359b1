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

StagingLayout PlanStaging(const StagedParams& views, const Bindings& device_bindings) {
  struct Span {
    uintptr_t begin, end, base;
    int side, index;
  };
  std::vector<Span> spans;
  for (int side = 0; side < 2; ++side) {
    const auto& addresses = side == 0 ? device_bindings.inputs : device_bindings.outputs;
    for (int i = 0; i < views.count[side]; ++i) {
      uint64_t begin = 0, end = 0;
      if (!views.params[side][i].used || addresses[i] == nullptr ||
          !ViewBytes(views.params[side][i].view, &begin, &end)) {
        continue;
      }
      const uintptr_t base = reinterpret_cast<uintptr_t>(addresses[i]);
      spans.push_back({base + begin, base + end, base, side, i});
    }
  }
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.begin < b.begin; });
  StagingLayout layout;
  for (const Span& s : spans) {
    if (layout.regions.empty() || s.begin >= layout.regions.back().end) {
      layout.regions.push_back({s.begin, s.end, false});
    }
    StagingLayout::Region& r = layout.regions.back();
    r.end = std::max(r.end, s.end);
    r.written = r.written || s.side == 1;
    layout.placements.push_back(
        {s.side, s.index, layout.regions.size() - 1, static_cast<intptr_t>(s.base - r.begin)});
  }
  return layout;
}

Status RunHostStaged(const Plan& plan, const StagedParams& views, const Bindings& device_bindings,
                     size_t workspace_size, void* cuda_stream) {
  OPENACLNN_RETURN_IF_ERROR(InOperator(cuda::SynchronizeStream(cuda_stream)));
  const StagingLayout layout = PlanStaging(views, device_bindings);
  std::vector<HostBuffer> host;
  for (const StagingLayout::Region& r : layout.regions) {
    host.push_back(AllocateHost(r.end - r.begin));
    if (!host.back()) {
      return ErrorStatus(ACLNN_ERR_INNER, "out of host memory staging %llu bytes for the CPU plan",
                         static_cast<unsigned long long>(r.end - r.begin));
    }
    OPENACLNN_RETURN_IF_ERROR(
        // NOLINTNEXTLINE(performance-no-int-to-ptr): a device address, never dereferenced here
        InOperator(cuda::Memcpy(host.back().get(), reinterpret_cast<const void*>(r.begin),
                                r.end - r.begin)));
  }
  // Empty or unused tensors keep their device addresses: the plan does not touch them.
  // Addresses are integers here: a host base may lie before its copy (a view that starts past its
  // storage base), where pointer arithmetic would leave the buffer; the plan only dereferences
  // inside the view, which the copy covers.
  Bindings host_bindings = device_bindings;
  for (const StagingLayout::Placement& p : layout.placements) {
    auto& addresses = p.side == 0 ? host_bindings.inputs : host_bindings.outputs;
    // NOLINTNEXTLINE(performance-no-int-to-ptr): see above
    addresses[p.index] = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(host[p.region].get()) +
                                                 static_cast<uintptr_t>(p.base_offset));
  }
  HostBuffer workspace = AllocateHost(workspace_size);
  if (!workspace) return ErrorStatus(ACLNN_ERR_INNER, "out of host memory for the workspace");
  OPENACLNN_RETURN_IF_ERROR(plan.Run(host_bindings, workspace.get()));
  for (size_t i = 0; i < layout.regions.size(); ++i) {
    const StagingLayout::Region& r = layout.regions[i];
    if (!r.written) continue;
    OPENACLNN_RETURN_IF_ERROR(
        // NOLINTNEXTLINE(performance-no-int-to-ptr): a device address, never dereferenced here
        InOperator(cuda::Memcpy(reinterpret_cast<void*>(r.begin), host[i].get(), r.end - r.begin)));
  }
  return Status::Ok();
}

}  // namespace openaclnn

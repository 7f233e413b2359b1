#pragma once
// The executor behind aclOpExecutor: a frozen plan built in phase 1 and run by phase 2.

#include <array>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"
#include "api/status.h"
#include "api/tensor_desc.h"
#include "runtime/device.h"

namespace openaclnn {

constexpr int kMaxBindings = 16;

// Storage addresses of an operator's tensor parameters at launch, in API parameter order (tensor
// parameters only; nullptr for absent ones).
struct Bindings {
  std::array<void*, kMaxBindings> inputs{};
  std::array<void*, kMaxBindings> outputs{};
};

// A tensor parameter as the executor keeps it from phase 1.
struct BoundParam {
  bool present = false;  // non-null in phase 1
  bool used = false;     // the plan reads or writes it: phase 2 needs its address
  TensorDesc view;       // valid when used
};

// A normalised problem with its chosen implementation and workspace layout. Immutable once built,
// so a repeatable executor can run it many times and from any thread.
class Plan {
 public:
  virtual ~Plan() = default;
  // CPU plans: runs on a stream worker. `workspace` holds at least the bytes booked in phase 1.
  virtual Status Run(const Bindings& bindings, void* workspace) const = 0;
  // CUDA plans: queues the work on `cuda_stream` (a cudaStream_t) and returns without waiting;
  // errors the GPU reports later surface at the stream's synchronisation.
  virtual Status Launch(const Bindings& bindings, void* workspace, void* cuda_stream) const {
    return ErrorStatus(ACLNN_ERR_INNER, "this plan runs on the CPU device only");
  }
  // CPU plans with SIMD kernels: the name of the target resolved in phase 1 (cpu::KernelTarget),
  // for the verbose line; "" for plans without one.
  virtual const char* target_name() const { return ""; }
};

// Named, 64-byte aligned workspace reservations (oneDNN's scratchpad idea, without thread-count
// dependent sizes). The caller's workspace may start at any address (CANN sets no alignment for
// it, and a framework may hand out pieces of one block): phase 1 reports kAlignment bytes more
// than the bookings, and phase 2 gives the plan the workspace's first kAlignment-aligned address
// (AlignedBase), so that every booking is aligned wherever the workspace starts.
class WorkspaceBooking {
 public:
  static constexpr size_t kAlignment = 64;
  // Reserves `bytes` and returns their offset in the workspace.
  size_t Book(size_t bytes);
  size_t total() const { return total_; }
  // The workspace size phase 1 reports: the bookings plus the room AlignedBase may skip.
  size_t reported_size() const { return total_ == 0 ? 0 : total_ + kAlignment; }
  // The first kAlignment-aligned address at or after `workspace`.
  static void* AlignedBase(void* workspace) {
    const size_t misalignment = reinterpret_cast<uintptr_t>(workspace) % kAlignment;
    const size_t skip = misalignment == 0 ? 0 : kAlignment - misalignment;
    return static_cast<unsigned char*>(workspace) + skip;
  }
  template <class T>
  static T* At(void* workspace, size_t offset) {
    return reinterpret_cast<T*>(static_cast<unsigned char*>(workspace) + offset);
  }

 private:
  size_t total_ = 0;
};

// What phase 1 assembles before the executor is handed out.
struct PlanBuilder {
  WorkspaceBooking workspace;
  std::unique_ptr<Plan> plan;  // null: nothing to compute
  std::string problem;         // for the verbose line
  std::string implementation;  // chosen implementation's name
  // Tensor parameters the plan never reads or writes (an output whose mask is false, a bias whose
  // values do not matter): phase 2 does not ask for their addresses.
  std::array<bool, kMaxBindings> input_unused{};
  std::array<bool, kMaxBindings> output_unused{};
  // A CPU plan chosen for a CUDA device: phase 2 runs it on host copies (api/host_staged.h).
  bool host_staged = false;
};

// One entry of an operator's ordered implementation list; the reference comes last.
template <class Problem>
struct Implementation {
  const char* name;
  DeviceKind device;  // the kind of device whose memory and streams the plan works on
  // nullptr when the implementation handles `problem`, otherwise why it declines.
  const char* (*declines)(const Problem& problem);
  std::unique_ptr<Plan> (*make_plan)(const Problem& problem, WorkspaceBooking* workspace);
};

// Name forced through OPENACLNN_FORCE_IMPL for `op_key` ("layer_norm_backward"), or nullptr.
const char* ForcedImplementation(const char* op_key);
// Prints one line when OPENACLNN_VERBOSE is set.
bool VerboseEnabled();

// Picks the first implementation for the current device kind that accepts `problem` (or the one
// OPENACLNN_FORCE_IMPL names). On a CUDA device, when none does, a CPU implementation runs
// host-staged.
template <class Problem, size_t kCount>
Status ChooseImplementation(const char* op_key, const Implementation<Problem> (&list)[kCount],
                            const Problem& problem, PlanBuilder* builder) {
  const char* forced = ForcedImplementation(op_key);
  const DeviceKind device = PlanningDeviceKind();
  std::string declined;
  bool forced_exists = false;
  auto try_kind = [&](DeviceKind kind) {
    for (const Implementation<Problem>& impl : list) {
      if (impl.device != kind) continue;
      if (forced != nullptr && std::string(forced) != impl.name) continue;
      forced_exists = true;
      if (const char* why = impl.declines(problem)) {
        declined += std::string(" ") + impl.name + ": " + why + ";";
        continue;
      }
      builder->plan = impl.make_plan(problem, &builder->workspace);
      builder->implementation = impl.name;
      builder->host_staged = kind != device;
      if (builder->host_staged) builder->implementation += " (host-staged)";
      if (VerboseEnabled() && !declined.empty())
        builder->implementation += " (declined:" + declined + ")";
      return true;
    }
    return false;
  };
  if (try_kind(device)) return Status::Ok();
  if (device == DeviceKind::kCuda && try_kind(DeviceKind::kCpu)) return Status::Ok();
  if (forced != nullptr && !forced_exists) {
    return ErrorStatus(ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
                       "OPENACLNN_FORCE_IMPL names \"%s\", which is not an implementation of %s",
                       forced, op_key);
  }
  return ErrorStatus(ACLNN_ERR_INNER_FIND_KERNEL_ERROR, "no implementation of %s accepts %s:%s",
                     op_key, problem.Describe().c_str(), declined.c_str());
}

// Phase 1 shared by every operator: checks workspaceSize and executor (161001), runs `build`
// (the operator's checker and implementation choice), then hands out the executor. The tensor
// lists give the API's tensor parameters in order, for aclSet{Input,Output}TensorAddr.
template <class Build>
aclnnStatus RunPhase1(const char* op_name, uint64_t* workspace_size, aclOpExecutor** executor,
                      std::initializer_list<const aclTensor*> inputs,
                      std::initializer_list<const aclTensor*> outputs, Build&& build);

// Phase 2 shared by every operator: checks its arguments, enqueues the plan on the stream and
// releases a single-use executor.
aclnnStatus RunPhase2(const char* op_name, void* workspace, uint64_t workspace_size,
                      aclOpExecutor* executor, aclrtStream stream);

// Non-template part of RunPhase1.
aclnnStatus FinishPhase1(const char* op_name, double start_us, const Status& status,
                         PlanBuilder* builder,
                         const std::initializer_list<const aclTensor*>& inputs,
                         const std::initializer_list<const aclTensor*>& outputs,
                         uint64_t* workspace_size, aclOpExecutor** executor);
aclnnStatus BeginPhase1(const char* op_name, uint64_t* workspace_size, aclOpExecutor** executor,
                        double* start_us);
// The status and message for an exception caught in phase 1 (never throws).
aclnnStatus ReportPhase1Exception(const char* op_name, std::exception_ptr error) noexcept;

template <class Build>
aclnnStatus RunPhase1(const char* op_name, uint64_t* workspace_size, aclOpExecutor** executor,
                      std::initializer_list<const aclTensor*> inputs,
                      std::initializer_list<const aclTensor*> outputs, Build&& build) {
  // No exception leaves a C entry point: what escapes the checker, the planner or the executor's
  // creation becomes 561101 (out of host memory) or 561000, with the message.
  try {
    double start_us = 0;
    aclnnStatus early = BeginPhase1(op_name, workspace_size, executor, &start_us);
    if (early != ACLNN_SUCCESS) return early;
    PlanBuilder builder;
    Status status;
    try {
      status = build(&builder);
    } catch (const std::bad_alloc&) {
      status = ErrorStatus(ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of host memory while planning");
    } catch (...) {
      status = ErrorStatus(ACLNN_ERR_INNER, "unexpected internal exception while planning");
    }
    return FinishPhase1(op_name, start_us, status, &builder, inputs, outputs, workspace_size,
                        executor);
  } catch (...) {
    return ReportPhase1Exception(op_name, std::current_exception());
  }
}

}  // namespace openaclnn

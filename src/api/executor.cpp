// The two-phase machinery shared by every operator, and the executor functions of acl_meta.h.

#include "api/executor.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <new>
#include <set>
#include <utility>

#include "api/host_staged.h"
#include "api/tensor_desc.h"
#include "runtime/error.h"
#include "runtime/memory.h"
#include "runtime/meta.h"
#include "runtime/rt_status.h"
#include "runtime/stream.h"

// The executor handed to the caller between phase 1 and phase 2.
struct aclOpExecutor {
  const char* op_name = "";
  std::shared_ptr<const openaclnn::Plan> plan;  // null: nothing to compute
  std::string problem;
  std::string implementation;
  uint64_t workspace_size = 0;
  bool host_staged = false;  // a CPU plan on a CUDA device
  bool repeatable = false;
  double phase1_us = 0;
  openaclnn::Bindings bindings;
  // The tensor parameters of phase 1, in API order: [0] inputs, [1] outputs.
  int num_params[2] = {0, 0};
  std::array<openaclnn::BoundParam, openaclnn::kMaxBindings> params[2];
  // One C call at a time works on the executor (phase 2, rebinding, repeatable, destroy): CANN
  // asks callers to use an executor from one thread at a time, and this makes a caller that does
  // not a serialisation instead of a data race.
  std::mutex use_mutex;
  // Guarded by LiveMutex(): the calls holding the executor, and whether it has been released
  // (destroyed, or its single-use phase 2 done). The last holder of a released executor frees it.
  int holders = 0;
  bool released = false;
};

namespace openaclnn {
namespace {

constexpr const char* kSideName[2] = {"input", "output"};

double NowMicros() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Executors handed out and not yet released, so a stale handle is an error, not a crash.
std::mutex& LiveMutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}
std::set<const aclOpExecutor*>& LiveExecutors() {
  static std::set<const aclOpExecutor*>* live = new std::set<const aclOpExecutor*>;
  return *live;
}

// A C call's hold on an executor: while it exists the executor is not freed, and no other call
// works on it. Acquire() fails for a handle that is not live; once it succeeds, Release() marks
// the executor released (gone from the live set at once), and the last holder frees it.
class ExecutorUse {
 public:
  explicit ExecutorUse(aclOpExecutor* executor) : executor_(executor) {}
  ExecutorUse(const ExecutorUse&) = delete;
  ExecutorUse& operator=(const ExecutorUse&) = delete;
  // false: not live (never handed out, released, or destroyed), also when it was released while
  // this call waited for another to finish with it.
  bool Acquire() {
    {
      std::lock_guard<std::mutex> lock(LiveMutex());
      if (LiveExecutors().count(executor_) == 0) return false;
      ++executor_->holders;
      held_ = true;
    }
    executor_->use_mutex.lock();
    locked_ = true;
    std::lock_guard<std::mutex> lock(LiveMutex());
    return !executor_->released;
  }
  void Release() { release_ = true; }
  ~ExecutorUse() {
    if (!held_) return;
    // Released before the use mutex opens, so a call waiting for it sees the release.
    if (release_) {
      std::lock_guard<std::mutex> lock(LiveMutex());
      if (!executor_->released) {
        executor_->released = true;
        LiveExecutors().erase(executor_);
      }
    }
    if (locked_) executor_->use_mutex.unlock();
    bool free_it = false;
    {
      std::lock_guard<std::mutex> lock(LiveMutex());
      free_it = --executor_->holders == 0 && executor_->released;
    }
    if (free_it) delete executor_;
  }

 private:
  aclOpExecutor* executor_;
  bool held_ = false;
  bool locked_ = false;
  bool release_ = false;
};

// Stores an error message without letting an allocation failure escape a C entry point: when
// even the message cannot be built, the thread's recent error becomes `fallback` (a literal, so
// nothing is allocated for it unless it can be).
template <class BuildMessage>
void SetRecentErrorNoThrow(BuildMessage&& build, const char* fallback) noexcept {
  try {
    SetRecentError(build());
  } catch (...) {
    try {
      SetRecentError(fallback);
    } catch (...) {
      ClearRecentErrorText();
    }
  }
}

aclnnStatus Report(const char* op_name, const Status& status) {
  SetRecentErrorNoThrow([&] { return std::string(op_name) + ": " + status.message(); },
                        "openaclnn: out of host memory while reporting an error");
  return status.code();
}

// The status and message for an exception caught at a C entry point.
aclnnStatus ReportException(const char* api, std::exception_ptr error,
                            aclnnStatus out_of_memory_code = ACLNN_ERR_INNER) noexcept {
  bool out_of_memory = false;
  try {
    std::rethrow_exception(std::move(error));
  } catch (const std::bad_alloc&) {
    out_of_memory = true;
  } catch (...) {
  }
  SetRecentErrorNoThrow(
      [&] {
        return std::string(api) +
               (out_of_memory ? ": out of host memory; nothing was run or changed"
                              : ": unexpected internal exception; nothing was run or changed");
      },
      out_of_memory ? "out of host memory" : "unexpected internal exception");
  return out_of_memory ? out_of_memory_code : ACLNN_ERR_INNER;
}

// Every tensor the plan uses has an address if it has elements.
Status CheckBindings(const aclOpExecutor& ex) {
  for (int side = 0; side < 2; ++side) {
    const auto& addresses = side == 0 ? ex.bindings.inputs : ex.bindings.outputs;
    for (int i = 0; i < ex.num_params[side]; ++i) {
      const BoundParam& p = ex.params[side][i];
      if (!p.used || addresses[i] != nullptr || p.view.Numel() == 0) continue;
      return ErrorStatus(ACLNN_ERR_PARAM_NULLPTR,
                         "%s %d (in API order) has %lld elements but no device address",
                         kSideName[side], i, static_cast<long long>(p.view.Numel()));
    }
  }
  return Status::Ok();
}

}  // namespace

aclnnStatus ReportPhase1Exception(const char* op_name, std::exception_ptr error) noexcept {
  return ReportException(op_name, std::move(error), ACLNN_ERR_INNER_CREATE_EXECUTOR);
}

size_t WorkspaceBooking::Book(size_t bytes) {
  const size_t offset = total_;
  total_ += (bytes + kAlignment - 1) / kAlignment * kAlignment;
  return offset;
}

const char* ForcedImplementation(const char* op_key) {
  // OPENACLNN_FORCE_IMPL is "name" (every operator that has it) or "op=name,op=name".
  const char* env = std::getenv("OPENACLNN_FORCE_IMPL");
  if (env == nullptr || env[0] == '\0') return nullptr;
  static thread_local std::string forced;
  const std::string spec(env);
  if (spec.find('=') == std::string::npos) {
    forced = spec;
    return forced.c_str();
  }
  size_t start = 0;
  while (start <= spec.size()) {
    const size_t end = std::min(spec.find(',', start), spec.size());
    const std::string item = spec.substr(start, end - start);
    const size_t eq = item.find('=');
    if (eq != std::string::npos && item.substr(0, eq) == op_key) {
      forced = item.substr(eq + 1);
      return forced.c_str();
    }
    start = end + 1;
  }
  return nullptr;
}

bool VerboseEnabled() {
  static const bool verbose = [] {
    const char* env = std::getenv("OPENACLNN_VERBOSE");
    return env != nullptr && env[0] != '\0' && std::strcmp(env, "0") != 0;
  }();
  return verbose;
}

aclnnStatus BeginPhase1(const char* op_name, uint64_t* workspace_size, aclOpExecutor** executor,
                        double* start_us) {
  *start_us = VerboseEnabled() ? NowMicros() : 0;
  if (workspace_size == nullptr) {
    return Report(op_name, NullptrError("workspaceSize"));
  }
  if (executor == nullptr) return Report(op_name, NullptrError("executor"));
  return ACLNN_SUCCESS;
}

aclnnStatus FinishPhase1(const char* op_name, double start_us, const Status& status,
                         PlanBuilder* builder,
                         const std::initializer_list<const aclTensor*>& inputs,
                         const std::initializer_list<const aclTensor*>& outputs,
                         uint64_t* workspace_size, aclOpExecutor** executor) {
  if (!status.ok()) return Report(op_name, status);
  if (inputs.size() > kMaxBindings || outputs.size() > kMaxBindings) {
    return Report(op_name,
                  ErrorStatus(ACLNN_ERR_INNER, "more than %d tensor parameters", kMaxBindings));
  }
  auto* ex = new (std::nothrow) aclOpExecutor;
  if (ex == nullptr) {
    return Report(op_name, ErrorStatus(ACLNN_ERR_INNER_CREATE_EXECUTOR,
                                       "out of host memory: could not allocate the executor"));
  }
  try {
    ex->op_name = op_name;
    ex->plan = std::move(builder->plan);
    ex->problem = std::move(builder->problem);
    ex->implementation = std::move(builder->implementation);
    ex->workspace_size = builder->workspace.reported_size();
    ex->host_staged = builder->host_staged;
    const std::initializer_list<const aclTensor*>* lists[2] = {&inputs, &outputs};
    for (int side = 0; side < 2; ++side) {
      ex->num_params[side] = static_cast<int>(lists[side]->size());
      auto& addresses = side == 0 ? ex->bindings.inputs : ex->bindings.outputs;
      const auto& unused = side == 0 ? builder->input_unused : builder->output_unused;
      int i = 0;
      for (const aclTensor* t : *lists[side]) {
        BoundParam& p = ex->params[side][i];
        p.present = t != nullptr;
        // Tensors of rank above kMaxRank pass only a dtype check (an unmasked output) and are
        // never touched, so they need no frozen view.
        p.used = p.present && !unused[i] && t->view_dims.size() <= kMaxRank;
        if (p.used) DescribeTensor(*t, &p.view);
        if (p.present) addresses[i] = t->data;
        ++i;
      }
    }
  } catch (const std::bad_alloc&) {
    delete ex;
    return Report(op_name, ErrorStatus(ACLNN_ERR_INNER_CREATE_EXECUTOR,
                                       "out of host memory while creating the executor"));
  }
  if (VerboseEnabled()) ex->phase1_us = NowMicros() - start_us;
  try {
    std::lock_guard<std::mutex> lock(LiveMutex());
    LiveExecutors().insert(ex);
  } catch (...) {
    delete ex;
    throw;
  }
  *workspace_size = ex->workspace_size;
  *executor = ex;
  return ACLNN_SUCCESS;
}

namespace {

// Phase 2 on an executor this call holds (`use`); may throw, RunPhase2 catches.
aclnnStatus RunPhase2Held(const char* op_name, void* workspace, uint64_t workspace_size,
                          aclOpExecutor* executor, aclrtStream stream, double start_us,
                          ExecutorUse* use) {
  if (std::strcmp(executor->op_name, op_name) != 0) {
    return Report(op_name,
                  ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                              "executor was built by %s, not by this operator", executor->op_name));
  }
  // From here on a single-use executor is released however phase 2 ends, as CANN does.
  if (!executor->repeatable) use->Release();
  auto fail = [&](const Status& status) { return Report(op_name, status); };
  if (workspace_size > 0 && workspace == nullptr) {
    return fail(ErrorStatus(ACLNN_ERR_PARAM_NULLPTR,
                            "workspace is nullptr but workspaceSize is %llu",
                            static_cast<unsigned long long>(workspace_size)));
  }
  if (workspace_size < executor->workspace_size) {
    return fail(ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                            "workspaceSize must be at least %llu (what phase 1 reported), got %llu",
                            static_cast<unsigned long long>(executor->workspace_size),
                            static_cast<unsigned long long>(workspace_size)));
  }
  AllocationBlock block;
  if (executor->workspace_size > 0 && FindAllocation(workspace, &block) &&
      executor->workspace_size >
          block.size - (reinterpret_cast<uintptr_t>(workspace) - block.base)) {
    return fail(ErrorStatus(
        ACLNN_ERR_PARAM_INVALID,
        "workspace needs %llu bytes but its aclrtMalloc block has %llu from that address",
        static_cast<unsigned long long>(executor->workspace_size),
        static_cast<unsigned long long>(block.size -
                                        (reinterpret_cast<uintptr_t>(workspace) - block.base))));
  }
  if (executor->workspace_size > 0) {
    const Status resident = CheckResidence(workspace, "workspace");
    if (!resident.ok()) return fail(resident);
  }
  Status bound = CheckBindings(*executor);
  if (!bound.ok()) return fail(bound);
  Stream* target = nullptr;
  if (ResolveStream(stream, &target) != ACL_SUCCESS) {
    return fail(ErrorStatus(ACLNN_ERR_RUNTIME_ERROR,
                            "stream %p is not usable: it is not a live stream from "
                            "aclrtCreateStream, or it is null and this thread has no device",
                            stream));
  }
  if (executor->plan != nullptr || VerboseEnabled()) {
    std::shared_ptr<const Plan> plan = executor->plan;
    const Bindings bindings = executor->bindings;
    std::string verbose_line;
    if (VerboseEnabled()) {
      char prefix[96];
      std::snprintf(prefix, sizeof(prefix), "phase1=%.1fus phase2=%.1fus", executor->phase1_us,
                    NowMicros() - start_us);
      // The SIMD target the plan resolved in phase 1, for CPU plans that have one.
      const char* isa = plan != nullptr ? plan->target_name() : "";
      verbose_line = std::string("openaclnn: ") + op_name + " " + executor->problem + " impl=" +
                     (executor->implementation.empty() ? "none (nothing to compute)"
                                                       : executor->implementation) +
                     (CudaStreamOf(target) != nullptr ? std::string(" device=CUDA")
                      : isa[0] != '\0'                ? std::string(" isa=") + isa
                                                      : std::string()) +
                     " " + prefix;
    }
    void* const cuda_stream = CudaStreamOf(target);
    std::function<Status()> staged;
    if (executor->host_staged && cuda_stream != nullptr) {
      // The run needs the frozen views to find each tensor's bytes; the workspace lives on the
      // host.
      StagedParams views;
      for (int side = 0; side < 2; ++side) {
        views.count[side] = executor->num_params[side];
        for (int i = 0; i < kMaxBindings; ++i) views.params[side][i] = executor->params[side][i];
      }
      staged = [plan, views, bindings, size = executor->workspace_size, cuda_stream]() -> Status {
        return RunHostStaged(*plan, views, bindings, size, cuda_stream);
      };
    }
    try {
      RunOrEnqueueTask(
          target,
          [op_name, plan, bindings, workspace, verbose_line, cuda_stream, staged]() -> RtStatus {
            const double run_start = verbose_line.empty() ? 0 : NowMicros();
            Status status = Status::Ok();
            try {
              if (plan && staged) {
                status = staged();
              } else if (plan && cuda_stream != nullptr) {
                // "run" is the launch time
                status =
                    plan->Launch(bindings, WorkspaceBooking::AlignedBase(workspace), cuda_stream);
              } else if (plan) {
                status = plan->Run(bindings, WorkspaceBooking::AlignedBase(workspace));
              }
            } catch (const std::bad_alloc&) {
              status =
                  ErrorStatus(ACLNN_ERR_INNER, "out of host memory while running the operator");
            }
            if (!verbose_line.empty()) {
              std::fprintf(stderr, "%s run=%.1fus%s\n", verbose_line.c_str(),
                           NowMicros() - run_start, status.ok() ? "" : " FAILED");
            }
            // The stream is the runtime's: a failed operator surfaces at its synchronisation as
            // a device reports a failed kernel.
            return status.ok() ? RtStatus::Ok() : OperatorTaskFailed(op_name, status);
          });
    } catch (const std::bad_alloc&) {
      return fail(ErrorStatus(ACLNN_ERR_INNER, "out of host memory while queueing the task"));
    }
  }
  return ACLNN_SUCCESS;
}

}  // namespace

aclnnStatus RunPhase2(const char* op_name, void* workspace, uint64_t workspace_size,
                      aclOpExecutor* executor, aclrtStream stream) {
  const double start_us = VerboseEnabled() ? NowMicros() : 0;
  if (executor == nullptr) return Report(op_name, NullptrError("executor"));
  try {
    ExecutorUse use(executor);
    if (!use.Acquire()) {
      return Report(op_name, ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                                         "executor %p is not live: a single-use executor is "
                                         "released by its phase 2, a repeatable one by "
                                         "aclDestroyAclOpExecutor",
                                         static_cast<void*>(executor)));
    }
    return RunPhase2Held(op_name, workspace, workspace_size, executor, stream, start_us, &use);
  } catch (...) {
    return ReportException(op_name, std::current_exception());
  }
}

}  // namespace openaclnn

namespace {

// Which of the executor's tensor parameters an aclSet*TensorAddr call names.
enum class BindingSide { kInput, kOutput, kInputsThenOutputs };

// Under the executor's hold; may throw, SetBinding catches.
aclnnStatus SetBindingHeld(const char* api, aclOpExecutor* executor, size_t index,
                           aclTensor* tensor, void* addr, BindingSide which) {
  using openaclnn::ErrorStatus;
  auto fail = [&](const openaclnn::Status& s) { return openaclnn::Report(api, s); };
  if (!executor->repeatable) {
    return fail(ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                            "addresses can be rebound only on a repeatable executor (call "
                            "aclSetAclOpExecutorRepeatable after phase 1)"));
  }
  bool output = which == BindingSide::kOutput;
  if (which == BindingSide::kInputsThenOutputs &&
      index >= static_cast<size_t>(executor->num_params[0])) {
    index -= static_cast<size_t>(executor->num_params[0]);
    output = true;
  }
  const int side = output ? 1 : 0;
  const int count = executor->num_params[side];
  if (index >= static_cast<size_t>(count)) {
    return fail(ErrorStatus(ACLNN_ERR_PARAM_INVALID, "index %zu is out of range: %s has %d %s",
                            index, executor->op_name, count, output ? "outputs" : "inputs"));
  }
  openaclnn::BoundParam& param = executor->params[side][index];
  if (!param.present) {
    return fail(ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                            "%s %zu was nullptr in phase 1 and cannot be bound",
                            output ? "output" : "input", index));
  }
  if (param.used) {
    const openaclnn::Status extent =
        openaclnn::CheckTensorExtent(param.view, addr, output ? "output" : "input");
    if (!extent.ok()) return fail(extent);
  }
  (output ? executor->bindings.outputs : executor->bindings.inputs)[index] = addr;
  tensor->data = addr;
  return ACLNN_SUCCESS;
}

aclnnStatus SetBinding(const char* api, aclOpExecutor* executor, size_t index, aclTensor* tensor,
                       void* addr, BindingSide which) {
  if (executor == nullptr || tensor == nullptr) {
    return openaclnn::Report(api, openaclnn::ErrorStatus(ACLNN_ERR_INNER_NULLPTR,
                                                         "executor and tensor must not be "
                                                         "nullptr"));
  }
  try {
    openaclnn::ExecutorUse use(executor);
    if (!use.Acquire()) {
      return openaclnn::Report(
          api, openaclnn::ErrorStatus(ACLNN_ERR_PARAM_INVALID, "executor is not live"));
    }
    return SetBindingHeld(api, executor, index, tensor, addr, which);
  } catch (...) {
    return openaclnn::ReportException(api, std::current_exception());
  }
}

}  // namespace

extern "C" {

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor* executor) {
  constexpr const char* kApi = "aclSetAclOpExecutorRepeatable";
  try {
    openaclnn::ExecutorUse use(executor);
    if (executor == nullptr || !use.Acquire()) {
      return openaclnn::Report(
          kApi, openaclnn::ErrorStatus(ACLNN_ERR_INNER_NULLPTR,
                                       "executor is nullptr or not live (call it right after "
                                       "phase 1)"));
    }
    executor->repeatable = true;
    return ACLNN_SUCCESS;
  } catch (...) {
    return openaclnn::ReportException(kApi, std::current_exception());
  }
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor* executor) {
  constexpr const char* kApi = "aclDestroyAclOpExecutor";
  if (executor == nullptr) {
    return openaclnn::Report(
        kApi, openaclnn::ErrorStatus(ACLNN_ERR_INNER_NULLPTR, "executor is nullptr"));
  }
  try {
    // Waits for a phase 2 or rebinding another thread is doing on it; queued runs hold their own
    // reference to the plan, so this is safe before synchronising the stream.
    openaclnn::ExecutorUse use(executor);
    if (!use.Acquire()) {
      return openaclnn::Report(
          kApi, openaclnn::ErrorStatus(ACLNN_ERR_PARAM_INVALID,
                                       "executor is not live (released by phase 2 or destroyed "
                                       "already)"));
    }
    use.Release();
    return ACLNN_SUCCESS;
  } catch (...) {
    return openaclnn::ReportException(kApi, std::current_exception());
  }
}

aclnnStatus aclSetInputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                  void* addr) {
  return SetBinding("aclSetInputTensorAddr", executor, index, tensor, addr, BindingSide::kInput);
}
aclnnStatus aclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                   void* addr) {
  return SetBinding("aclSetOutputTensorAddr", executor, index, tensor, addr, BindingSide::kOutput);
}
// Index over the inputs first, then the outputs.
aclnnStatus aclSetTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                             void* addr) {
  return SetBinding("aclSetTensorAddr", executor, index, tensor, addr,
                    BindingSide::kInputsThenOutputs);
}
aclnnStatus AclSetInputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                  void* addr) {
  return aclSetInputTensorAddr(executor, index, tensor, addr);
}
aclnnStatus AclSetOutputTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                                   void* addr) {
  return aclSetOutputTensorAddr(executor, index, tensor, addr);
}
aclnnStatus AclSetTensorAddr(aclOpExecutor* executor, const size_t index, aclTensor* tensor,
                             void* addr) {
  return aclSetTensorAddr(executor, index, tensor, addr);
}

}  // extern "C"

// openaclnn._C: the aclnn operators for Python. One generic layer turns Python objects into the
// aclnn argument types (arrays into aclTensor views of their own memory, lists into
// aclIntArray/aclBoolArray, numbers into aclScalar), runs the two-phase call with a workspace on
// the current device's default stream and raises openaclnn.AclnnError on a failed status. Each
// operator is then one line: `OP(LayerNorm)` binds aclnnLayerNormGetWorkspaceSize + aclnnLayerNorm
// as _C.LayerNorm(*args), taking the phase-1 arguments in aclnn's order. Output allocation, names
// and defaults are the Python layer's (openaclnn/_ops.py).
#include <dlfcn.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_apply_adam_w.h"
#include "aclnnop/aclnn_apply_adam_w_v2.h"
#include "aclnnop/aclnn_baddbmm.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_convolution.h"
#include "aclnnop/aclnn_convolution_backward.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_dropout_do_mask.h"
#include "aclnnop/aclnn_dropout_gen_mask.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_embedding_dense_backward.h"
#include "aclnnop/aclnn_fill_scalar.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_gelu_backward_v2.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_glu.h"
#include "aclnnop/aclnn_glu_backward.h"
#include "aclnnop/aclnn_layer_norm.h"
#include "aclnnop/aclnn_layer_norm_backward.h"
#include "aclnnop/aclnn_logsoftmax.h"
#include "aclnnop/aclnn_logsoftmax_backward.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_nll_loss_backward.h"
#include "aclnnop/aclnn_ones.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_rms_norm.h"
#include "aclnnop/aclnn_rms_norm_grad.h"
#include "aclnnop/aclnn_softmax.h"
#include "aclnnop/aclnn_softmax_backward.h"
#include "aclnnop/aclnn_sub.h"
#include "aclnnop/aclnn_zero.h"

namespace nb = nanobind;

namespace {

constexpr int kInvalidDeviceId = 107001;  // ACL_ERROR_RT_INVALID_DEVICEID

// A failed status with aclGetRecentErrMsg's text; becomes openaclnn.AclnnError(code, message).
struct AclnnFailure : std::exception {
  int code;
  std::string message;
  AclnnFailure(int failed_code, std::string text) : code(failed_code), message(std::move(text)) {}
  const char* what() const noexcept override { return message.c_str(); }
};

void Check(int status, const char* call) {
  if (status == 0) return;
  const char* recent = aclGetRecentErrMsg();
  throw AclnnFailure(status,
                     recent != nullptr && recent[0] != '\0'
                         ? std::string(recent)
                         : std::string(call) + " failed with status " + std::to_string(status));
}

// ---------------------------------------------------------------------------------------------
// The device. Which devices exist is fixed for the process at the library's first runtime call
// (OPENACLNN_DEVICE, README "Devices"); every thread that runs an operator needs aclrtSetDevice.

enum class DeviceKind { kUnset, kCpu, kCuda };
std::mutex g_device_mutex;
DeviceKind g_kind = DeviceKind::kUnset;
std::atomic<bool> g_started{false};  // the library's runtime has been called: g_kind is final

// GPUs the CUDA driver reports, probed without the library (so that asking for "cuda" on a
// machine without one leaves the process free to use the CPU). Sets *reason when there are none.
int ProbeCudaDevices(std::string* reason) {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver == nullptr) {
    *reason = "the CUDA driver (libcuda.so.1) is not installed";
    return 0;
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  auto init = reinterpret_cast<InitFn>(dlsym(driver, "cuInit"));
  auto count_fn = reinterpret_cast<CountFn>(dlsym(driver, "cuDeviceGetCount"));
  int count = 0;
  if (init == nullptr || count_fn == nullptr || init(0) != 0 || count_fn(&count) != 0) {
    *reason = "the CUDA driver found no usable GPU (cuInit failed)";
    count = 0;
  } else if (count == 0) {
    *reason = "the CUDA driver reports no GPU";
  }
  return count;
}

// Fixes the device kind (from OPENACLNN_DEVICE unless set_device chose it) before the first
// runtime call, and makes device 0 current on the calling thread.
void EnsureDevice() {
  thread_local bool current = false;
  if (current) return;
  {
    std::lock_guard<std::mutex> lock(g_device_mutex);
    if (g_kind == DeviceKind::kUnset) {
      const char* env = std::getenv("OPENACLNN_DEVICE");
      std::string reason;
      const bool cuda =
          env != nullptr && (std::strcmp(env, "cuda") == 0 ||
                             (std::strcmp(env, "auto") == 0 && ProbeCudaDevices(&reason) > 0));
      g_kind = cuda ? DeviceKind::kCuda : DeviceKind::kCpu;
      setenv("OPENACLNN_DEVICE", cuda ? "cuda" : "cpu", 1);
    }
    if (!g_started) Check(aclInit(nullptr), "aclInit");
    g_started = true;
  }
  Check(aclrtSetDevice(0), "aclrtSetDevice");
  current = true;
}

void SetDevice(const std::string& name) {
  if (name != "cpu" && name != "cuda") {
    throw nb::value_error(
        ("set_device: expected \"cpu\" or \"cuda\", got \"" + name + "\"").c_str());
  }
  const DeviceKind wanted = name == "cuda" ? DeviceKind::kCuda : DeviceKind::kCpu;
  {
    std::lock_guard<std::mutex> lock(g_device_mutex);
    if (wanted == DeviceKind::kCuda && g_kind != DeviceKind::kCuda) {
      std::string reason;
      if (ProbeCudaDevices(&reason) == 0) {
        throw AclnnFailure(kInvalidDeviceId, "set_device(\"cuda\"): no CUDA GPU is available: " +
                                                 reason + "; openaclnn stays on the CPU");
      }
    }
    if (g_started && g_kind != wanted) {
      throw AclnnFailure(kInvalidDeviceId,
                         "set_device(\"" + name + "\"): this process already runs openaclnn on " +
                             (g_kind == DeviceKind::kCuda ? "cuda" : "cpu") +
                             "; the device is fixed at the first operator call (call set_device "
                             "before any operator, or set OPENACLNN_DEVICE)");
    }
    g_kind = wanted;
    if (!g_started) setenv("OPENACLNN_DEVICE", name.c_str(), 1);
  }
  EnsureDevice();
}

std::string DeviceName() {
  std::lock_guard<std::mutex> lock(g_device_mutex);
  if (g_kind == DeviceKind::kUnset) return "unset";
  return g_kind == DeviceKind::kCuda ? "cuda" : "cpu";
}

bool OnCuda() { return g_kind == DeviceKind::kCuda; }

// ACL_OPT_DETERMINISTIC, process-wide (what operators read in phase 1); 0 when never set.
void SetDeterministic(int64_t value) {
  Check(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, value), "aclrtSetSysParamOpt");
}

int64_t GetDeterministic() {
  int64_t value = 0;
  return aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &value) == ACL_SUCCESS ? value : 0;
}

// ---------------------------------------------------------------------------------------------
// Arguments. Arg<T>::Load converts argument `index` of a call; get() gives what aclnn takes.

using HostArray = nb::ndarray<nb::device::cpu>;
using ReadOnlyArray = nb::ndarray<nb::ro, nb::device::cpu>;

[[noreturn]] void BadArgument(size_t index, const std::string& expected, nb::handle got) {
  throw nb::type_error(("argument " + std::to_string(index) + ": expected " + expected + ", got " +
                        nb::inst_name(got).c_str())
                           .c_str());
}

aclDataType AclDtype(nb::dlpack::dtype dtype, size_t index, nb::handle got) {
  using Code = nb::dlpack::dtype_code;
  const auto code = static_cast<Code>(dtype.code);
  if (dtype.lanes == 1) {
    switch (dtype.bits) {
      case 8:
        if (code == Code::Int) return ACL_INT8;
        if (code == Code::UInt) return ACL_UINT8;
        if (code == Code::Bool) return ACL_BOOL;
        break;
      case 16:
        if (code == Code::Float) return ACL_FLOAT16;
        if (code == Code::Bfloat) return ACL_BF16;
        if (code == Code::Int) return ACL_INT16;
        if (code == Code::UInt) return ACL_UINT16;
        break;
      case 32:
        if (code == Code::Float) return ACL_FLOAT;
        if (code == Code::Int) return ACL_INT32;
        if (code == Code::UInt) return ACL_UINT32;
        break;
      case 64:
        if (code == Code::Float) return ACL_DOUBLE;
        if (code == Code::Int) return ACL_INT64;
        if (code == Code::UInt) return ACL_UINT64;
        if (code == Code::Complex) return ACL_COMPLEX64;
        break;
      case 128:
        if (code == Code::Complex) return ACL_COMPLEX128;
        break;
    }
  }
  BadArgument(index, "an array of a dtype aclnn knows", got);
}

// An array (NumPy, or anything with __dlpack__ on the CPU) as an aclTensor view of its own
// memory: the array's shape and element strides, its storage the span its elements cover. None
// gives nullptr. A tuple (array, aclDataType) overrides the dtype (bfloat16 NumPy arrays arrive
// as uint16 views). On a GPU the span is staged through device memory.
struct TensorArg {
  nb::object keep;  // the array, alive until the call returns
  aclTensor* tensor = nullptr;
  char* host_base = nullptr;
  void* device_copy = nullptr;
  size_t span_bytes = 0;
  bool writable = false;

  TensorArg() = default;
  TensorArg(const TensorArg&) = delete;
  TensorArg& operator=(const TensorArg&) = delete;
  ~TensorArg() {
    if (tensor != nullptr) aclDestroyTensor(tensor);
    if (device_copy != nullptr) aclrtFree(device_copy);
  }

  template <typename Array>
  void Describe(const Array& array, int dtype_override, size_t index, nb::handle got) {
    const aclDataType dtype = dtype_override >= 0 ? static_cast<aclDataType>(dtype_override)
                                                  : AclDtype(array.dtype(), index, got);
    const size_t rank = array.ndim();
    std::vector<int64_t> dims(rank), strides(rank);
    int64_t low = 0, high = 0;
    bool empty = false;
    for (size_t i = 0; i < rank; ++i) {
      dims[i] = static_cast<int64_t>(array.shape(i));
      strides[i] = array.stride(i);
      empty = empty || dims[i] == 0;
      const int64_t reach = (dims[i] - 1) * strides[i];
      (reach < 0 ? low : high) += reach;
    }
    const size_t element_size = (array.dtype().bits + 7) / 8;
    const int64_t storage = empty ? 0 : high - low + 1;
    span_bytes = static_cast<size_t>(storage) * element_size;
    host_base = static_cast<char*>(const_cast<void*>(static_cast<const void*>(array.data()))) +
                (empty ? 0 : low * static_cast<int64_t>(element_size));
    void* data = span_bytes > 0 || !OnCuda() ? host_base : nullptr;
    if (OnCuda() && span_bytes > 0) {
      Check(aclrtMalloc(&device_copy, span_bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
      Check(aclrtMemcpy(device_copy, span_bytes, host_base, span_bytes, ACL_MEMCPY_HOST_TO_DEVICE),
            "aclrtMemcpy");
      data = device_copy;
    }
    tensor = aclCreateTensor(dims.data(), rank, dtype, strides.data(), empty ? 0 : -low,
                             ACL_FORMAT_ND, &storage, 1, data);
    if (tensor == nullptr) Check(ACLNN_ERR_PARAM_INVALID, "aclCreateTensor");
  }

  void Load(nb::handle object, size_t index) {
    if (object.is_none()) return;
    nb::handle array = object;
    int dtype_override = -1;
    if (nb::isinstance<nb::tuple>(object) && nb::len(object) == 2) {
      array = object[0];
      dtype_override = nb::cast<int>(object[1]);
    }
    keep = nb::borrow(array);
    HostArray host;
    ReadOnlyArray read_only;
    if (nb::try_cast(array, host, false)) {
      writable = true;
      Describe(host, dtype_override, index, array);
    } else if (nb::try_cast(array, read_only, false)) {
      Describe(read_only, dtype_override, index, array);
    } else {
      BadArgument(index, "an array (NumPy, or a CPU tensor with __dlpack__) or None", array);
    }
  }

  // After the run on a GPU: results back into the arrays (argument order, so an output written
  // back last wins over an input that shares its memory).
  void Finish() {
    if (device_copy != nullptr && writable) {
      Check(aclrtMemcpy(host_base, span_bytes, device_copy, span_bytes, ACL_MEMCPY_DEVICE_TO_HOST),
            "aclrtMemcpy");
    }
  }
};

// Owns an aclIntArray / aclBoolArray / aclScalar (destroyed with the call).
template <typename Handle, aclnnStatus (*Destroy)(const Handle*)>
struct Owned {
  Handle* handle = nullptr;
  Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() {
    if (handle != nullptr) Destroy(handle);
  }
  Handle* get() const { return handle; }
  void Finish() {}
};

struct IntArrayArg : Owned<aclIntArray, aclDestroyIntArray> {
  void Load(nb::handle object, size_t index) {
    if (object.is_none()) return;
    std::vector<int64_t> values;
    if (!nb::try_cast(object, values)) BadArgument(index, "a sequence of ints", object);
    handle = aclCreateIntArray(values.data(), values.size());
  }
};

struct BoolArrayArg : Owned<aclBoolArray, aclDestroyBoolArray> {
  void Load(nb::handle object, size_t index) {
    if (object.is_none()) return;
    std::vector<bool> values;
    if (!nb::try_cast(object, values)) BadArgument(index, "a sequence of bools", object);
    std::unique_ptr<bool[]> flat(new bool[values.size() + 1]);
    for (size_t i = 0; i < values.size(); ++i) flat[i] = values[i];
    handle = aclCreateBoolArray(flat.get(), values.size());
  }
};

// A Python bool, int or float as an aclScalar of BOOL, INT64 or DOUBLE.
struct ScalarArg : Owned<aclScalar, aclDestroyScalar> {
  void Load(nb::handle object, size_t index) {
    if (object.is_none()) return;
    if (nb::isinstance<nb::bool_>(object)) {
      bool value = nb::cast<bool>(object);
      handle = aclCreateScalar(&value, ACL_BOOL);
    } else if (nb::isinstance<nb::int_>(object)) {
      int64_t value = nb::cast<int64_t>(object);
      handle = aclCreateScalar(&value, ACL_INT64);
    } else if (nb::isinstance<nb::float_>(object)) {
      double value = nb::cast<double>(object);
      handle = aclCreateScalar(&value, ACL_DOUBLE);
    } else {
      BadArgument(index, "a bool, int or float", object);
    }
  }
};

// Numbers and enums; uint64_t (paddingIdx) takes a signed value as CANN's callers pass it.
template <typename T>
struct ValueArg {
  T value{};
  void Load(nb::handle object, size_t index) {
    using Wire =
        std::conditional_t<std::is_same_v<T, bool>, bool,
                           std::conditional_t<std::is_floating_point_v<T>, double, int64_t>>;
    Wire wire{};
    if (!nb::try_cast(object, wire)) BadArgument(index, "a number", object);
    value = static_cast<T>(wire);
  }
  T get() const { return value; }
  void Finish() {}
};

struct StringArg {
  std::string value;
  void Load(nb::handle object, size_t index) {
    if (!nb::try_cast(object, value)) BadArgument(index, "a str", object);
  }
  char* get() { return value.data(); }
  void Finish() {}
};

template <typename T>
struct Arg : ValueArg<T> {};
template <>
struct Arg<const aclTensor*> : TensorArg {
  const aclTensor* get() const { return tensor; }
};
template <>
struct Arg<aclTensor*> : TensorArg {
  aclTensor* get() const { return tensor; }
};
template <>
struct Arg<const aclIntArray*> : IntArrayArg {};
template <>
struct Arg<const aclBoolArray*> : BoolArrayArg {};
template <>
struct Arg<const aclScalar*> : ScalarArg {};
template <>
struct Arg<char*> : StringArg {};

// ---------------------------------------------------------------------------------------------
// The two-phase call.

using Phase2 = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);

template <typename... P>
constexpr size_t Arity(aclnnStatus (*)(P...)) {
  return sizeof...(P);
}

void RunPhase2(Phase2 run, uint64_t workspace_size, aclOpExecutor* executor, const char* name) {
  void* workspace = nullptr;
  if (workspace_size > 0) {
    const aclError allocated = aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST);
    if (allocated != ACL_SUCCESS) {
      aclDestroyAclOpExecutor(executor);
      Check(allocated, "aclrtMalloc (workspace)");
    }
  }
  aclnnStatus status;
  {
    nb::gil_scoped_release unlocked;
    status = run(workspace, workspace_size, executor, nullptr);
    if (status == ACLNN_SUCCESS) status = aclrtSynchronizeStream(nullptr);
  }
  if (workspace != nullptr) aclrtFree(workspace);
  Check(status, name);
}

template <auto Phase1, typename... P, size_t... I>
void Invoke(aclnnStatus (*)(P...), std::index_sequence<I...>, Phase2 run, const char* name,
            const nb::args& args) {
  using Params = std::tuple<P...>;
  if (args.size() != sizeof...(I)) {
    throw nb::type_error((std::string(name) + " takes " + std::to_string(sizeof...(I)) +
                          " arguments, got " + std::to_string(args.size()))
                             .c_str());
  }
  EnsureDevice();
  std::tuple<Arg<std::decay_t<std::tuple_element_t<I, Params>>>...> held;
  (std::get<I>(held).Load(args[I], I), ...);
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  Check(Phase1(std::get<I>(held).get()..., &workspace_size, &executor), name);
  RunPhase2(run, workspace_size, executor, name);
  (std::get<I>(held).Finish(), ...);
}

template <auto Phase1>
void Def(nb::module_& m, const char* name, Phase2 run) {
  m.def(name, [name, run](nb::args args) {
    Invoke<Phase1>(Phase1, std::make_index_sequence<Arity(Phase1) - 2>{}, run, name, args);
  });
}

}  // namespace

#define OP(name) Def<aclnn##name##GetWorkspaceSize>(m, #name, aclnn##name)

NB_MODULE(_C, m) {
  m.doc() = "openaclnn's aclnn operators (low level; see openaclnn for the Python API)";
  nb::register_exception_translator([](const std::exception_ptr& pending, void*) {
    try {
      std::rethrow_exception(pending);
    } catch (const AclnnFailure& failure) {
      nb::object error_type = nb::module_::import_("openaclnn._errors").attr("AclnnError");
      nb::object error = error_type(failure.code, failure.message);
      PyErr_SetObject(error_type.ptr(), error.ptr());
    }
  });
  m.def("set_device", &SetDevice);
  m.def("device", &DeviceName);
  m.def("set_deterministic", &SetDeterministic);
  m.def("get_deterministic", &GetDeterministic);
  m.def("cuda_device_count", [] {
    std::string reason;
    return ProbeCudaDevices(&reason);
  });

  OP(Add);
  OP(Adds);
  OP(InplaceAdd);
  OP(InplaceAdds);
  OP(Sub);
  OP(Subs);
  OP(InplaceSub);
  OP(InplaceSubs);
  OP(Mul);
  OP(Muls);
  OP(InplaceMul);
  OP(InplaceMuls);
  OP(Div);
  OP(Divs);
  OP(InplaceDiv);
  OP(InplaceDivs);
  OP(Cast);
  OP(InplaceCopy);
  OP(InplaceFillScalar);
  OP(InplaceZero);
  OP(InplaceOne);
  OP(ReduceSum);
  OP(Softmax);
  OP(SoftmaxBackward);
  OP(LogSoftmax);
  OP(LogSoftmaxBackward);
  OP(Gelu);
  OP(GeluBackward);
  OP(GeluV2);
  OP(GeluBackwardV2);
  OP(Glu);
  OP(GluBackward);
  OP(RmsNorm);
  OP(RmsNormGrad);
  OP(LayerNorm);
  OP(LayerNormWithImplMode);
  OP(FastLayerNorm);
  OP(LayerNormBackward);
  OP(ConvTbc);
  OP(ConvTbcBackward);
  OP(Matmul);
  OP(Mm);
  OP(BatchMatMul);
  OP(Addmm);
  OP(InplaceAddmm);
  OP(Baddbmm);
  OP(InplaceBaddbmm);
  OP(Embedding);
  OP(EmbeddingDenseBackward);
  OP(NLLLoss);
  OP(NLLLossBackward);
  OP(DropoutGenMask);
  OP(DropoutGenMaskV2);
  OP(DropoutGenMaskV2Tensor);
  OP(DropoutDoMask);
  OP(ApplyAdamW);
  OP(ApplyAdamWV2);
}

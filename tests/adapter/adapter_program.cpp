// What a framework adapter (torch_npu's operator plugin, MindSpore, torchair) does to reach aclnn:
// it links libascendcl alone, dlopen()s libopapi.so (and tries libcust_opapi.so and the
// libopapi_*.so domain libraries), resolves every aclnn function, the aclCreate*/aclDestroy*
// functions and nnopbase's thread-local memory hooks with dlsym on that handle, wraps each
// two-phase call in the hooks, and reads the results back from device memory.
//
// Usage: adapter_program <installed include/aclnnop folder>
// Built by ctest with g++ -lascendcl -ldl only (no rpath: run it in a shell prepared by the
// install's set_env.sh); exits non-zero with a message on the first failure.

#include <dirent.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"

namespace {

int failures = 0;

void Fail(const std::string& what) {
  std::fprintf(stderr, "FAIL: %s\n", what.c_str());
  ++failures;
}

#define EXPECT(cond, what)   \
  do {                       \
    if (!(cond)) Fail(what); \
  } while (0)

// Every aclnn function the installed operator headers declare.
std::set<std::string> DeclaredAclnnFunctions(const std::string& folder) {
  std::set<std::string> names;
  DIR* dir = opendir(folder.c_str());
  if (dir == nullptr) {
    Fail("cannot open " + folder);
    return names;
  }
  const std::regex declaration(R"(aclnnStatus\s+(aclnn[A-Za-z0-9_]+)\s*\()");
  while (dirent* entry = readdir(dir)) {
    const std::string file = entry->d_name;
    if (file.size() < 3 || file.compare(file.size() - 2, 2, ".h") != 0) continue;
    std::ifstream in(folder + "/" + file);
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    for (std::sregex_iterator it(source.begin(), source.end(), declaration), end; it != end; ++it) {
      names.insert((*it)[1].str());
    }
  }
  closedir(dir);
  return names;
}

// The pointer types an adapter declares for what it resolves.
using CreateTensorFn = aclTensor* (*)(const int64_t*, uint64_t, aclDataType, const int64_t*,
                                      int64_t, aclFormat, const int64_t*, uint64_t, void*);
using DestroyTensorFn = aclnnStatus (*)(const aclTensor*);
using CreateScalarFn = aclScalar* (*)(void*, aclDataType);
using DestroyScalarFn = aclnnStatus (*)(const aclScalar*);
using CreateIntArrayFn = aclIntArray* (*)(const int64_t*, uint64_t);
using DestroyIntArrayFn = aclnnStatus (*)(const aclIntArray*);
using RunFn = aclnnStatus (*)(void*, uint64_t, aclOpExecutor*, aclrtStream);
using InitHugeMemFn = int (*)(void*, bool);
using UnInitHugeMemFn = void (*)(void*, bool);
using ReleaseHugeMemFn = void (*)(void*, bool);
using AddWsFn = aclnnStatus (*)(const aclTensor*, const aclTensor*, const aclScalar*, aclTensor*,
                                uint64_t*, aclOpExecutor**);
using SoftmaxWsFn = aclnnStatus (*)(const aclTensor*, int64_t, aclTensor*, uint64_t*,
                                    aclOpExecutor**);
using ReduceSumWsFn = aclnnStatus (*)(const aclTensor*, const aclIntArray*, bool, aclDataType,
                                      aclTensor*, uint64_t*, aclOpExecutor**);

template <typename Fn>
Fn Resolve(void* handle, const char* name) {
  return reinterpret_cast<Fn>(dlsym(handle, name));
}

struct Api {
  void* handle = nullptr;
  CreateTensorFn create_tensor = nullptr;
  DestroyTensorFn destroy_tensor = nullptr;
  CreateScalarFn create_scalar = nullptr;
  DestroyScalarFn destroy_scalar = nullptr;
  CreateIntArrayFn create_int_array = nullptr;
  DestroyIntArrayFn destroy_int_array = nullptr;
  InitHugeMemFn init_huge_mem = nullptr;
  UnInitHugeMemFn uninit_huge_mem = nullptr;
  ReleaseHugeMemFn release_huge_mem = nullptr;
};

// A float tensor in device memory, created through the resolved aclCreateTensor.
struct DeviceTensor {
  const Api* api = nullptr;
  void* data = nullptr;
  aclTensor* tensor = nullptr;
  DeviceTensor(const Api& a, const std::vector<int64_t>& shape, const std::vector<float>& host)
      : api(&a) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
    const size_t bytes = host.size() * sizeof(float);
    if (aclrtMalloc(&data, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
      Fail("aclrtMalloc");
      return;
    }
    if (aclrtMemcpy(data, bytes, host.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS) {
      Fail("aclrtMemcpy host to device");
    }
    tensor = a.create_tensor(shape.data(), shape.size(), ACL_FLOAT, strides.data(), 0,
                             ACL_FORMAT_ND, shape.data(), shape.size(), data);
    if (tensor == nullptr) Fail("aclCreateTensor returned nullptr");
  }
  std::vector<float> Read(size_t count) const {
    std::vector<float> host(count);
    if (aclrtMemcpy(host.data(), count * sizeof(float), data, count * sizeof(float),
                    ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
      Fail("aclrtMemcpy device to host");
    }
    return host;
  }
  ~DeviceTensor() {
    if (tensor != nullptr) api->destroy_tensor(tensor);
    if (data != nullptr) aclrtFree(data);
  }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;
};

// The adapter's two-phase call: phase 1 between InitHugeMemThreadLocal and
// UnInitHugeMemThreadLocal, the workspace from device memory, phase 2 on the stream, then
// ReleaseHugeMem once the stream has run it.
template <typename Phase1>
bool TwoPhase(const Api& api, const char* op, RunFn run, aclrtStream stream, Phase1 phase1) {
  if (api.init_huge_mem(nullptr, false) != 0) {
    Fail(std::string(op) + ": InitHugeMemThreadLocal did not return 0");
    return false;
  }
  uint64_t workspace_size = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = phase1(&workspace_size, &executor);
  api.uninit_huge_mem(nullptr, false);
  if (status != ACLNN_SUCCESS) {
    Fail(std::string(op) + " phase 1: status " + std::to_string(status) + ": " +
         aclGetRecentErrMsg());
    return false;
  }
  void* workspace = nullptr;
  if (workspace_size > 0 &&
      aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    Fail(std::string(op) + ": workspace allocation");
    return false;
  }
  const aclnnStatus run_status = run(workspace, workspace_size, executor, stream);
  const bool synced = aclrtSynchronizeStream(stream) == ACL_SUCCESS;
  api.release_huge_mem(nullptr, false);
  if (workspace != nullptr) aclrtFree(workspace);
  if (run_status != ACLNN_SUCCESS || !synced) {
    Fail(std::string(op) + " phase 2 failed");
    return false;
  }
  return true;
}

bool Near(float got, double want) { return std::fabs(got - want) <= 1e-5 + 1e-5 * std::fabs(want); }

void CheckRuntimeQueries() {
  uint32_t count = 0;
  EXPECT(aclrtGetDeviceCount(&count) == ACL_SUCCESS && count >= 1, "aclrtGetDeviceCount");
  int32_t device = -1;
  EXPECT(aclrtGetDevice(&device) == ACL_SUCCESS && device == 0, "aclrtGetDevice after SetDevice");
  const char* soc = aclrtGetSocName();
  EXPECT(soc != nullptr && std::strncmp(soc, "Ascend", 6) == 0,
         "aclrtGetSocName names an Ascend SoC");
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  EXPECT(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total_bytes) == ACL_SUCCESS,
         "aclrtGetMemInfo(ACL_HBM_MEM)");
  EXPECT(total_bytes > 0 && free_bytes <= total_bytes, "aclrtGetMemInfo free <= total, total > 0");
  int64_t cores = 0;
  EXPECT(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &cores) == ACL_SUCCESS && cores >= 1,
         "aclrtGetDeviceInfo(ACL_DEV_ATTR_AICORE_CORE_NUM)");
  std::printf("adapter: SoC %s, %u device(s), %lld cores, %zu of %zu bytes free\n", soc, count,
              static_cast<long long>(cores), free_bytes, total_bytes);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <include/aclnnop folder>\n", argv[0]);
    return 2;
  }
  if (aclInit(nullptr) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
    std::fprintf(stderr, "FAIL: aclInit/aclrtSetDevice: %s\n", aclGetRecentErrMsg());
    return 1;
  }
  aclrtStream stream = nullptr;
  if (aclrtCreateStream(&stream) != ACL_SUCCESS) {
    std::fprintf(stderr, "FAIL: aclrtCreateStream\n");
    return 1;
  }
  CheckRuntimeQueries();

  // The operator libraries, found by name on the library path as adapters find them.
  Api api;
  api.handle = dlopen("libopapi.so", RTLD_NOW | RTLD_LOCAL);
  if (api.handle == nullptr) {
    std::fprintf(stderr, "FAIL: dlopen(libopapi.so): %s\n", dlerror());
    return 1;
  }
  // The customer operator library is optional: adapters go on without it.
  void* custom = dlopen("libcust_opapi.so", RTLD_NOW | RTLD_LOCAL);
  EXPECT(custom == nullptr, "libcust_opapi.so is not part of openaclnn");
  if (custom != nullptr) dlclose(custom);
  std::vector<void*> domains;
  for (const char* domain : {"libopapi_nn.so", "libopapi_math.so"}) {
    void* handle = dlopen(domain, RTLD_NOW | RTLD_LOCAL);
    EXPECT(handle != nullptr, std::string("dlopen(") + domain + ")");
    if (handle != nullptr) domains.push_back(handle);
  }

  // Every declared aclnn function resolves on libopapi.so and on each domain library.
  const std::set<std::string> functions = DeclaredAclnnFunctions(argv[1]);
  EXPECT(functions.size() >= 40, "fewer than 40 aclnn functions declared under " +
                                     std::string(argv[1]) + ": " +
                                     std::to_string(functions.size()));
  size_t resolved = 0;
  for (const std::string& name : functions) {
    if (dlsym(api.handle, name.c_str()) == nullptr) {
      Fail("dlsym(libopapi.so, " + name + ")");
      continue;
    }
    ++resolved;
    for (void* handle : domains) {
      EXPECT(dlsym(handle, name.c_str()) != nullptr, "dlsym(domain library, " + name + ")");
    }
  }
  for (const char* name :
       {"aclCreateTensor",         "aclDestroyTensor",         "aclCreateScalar",
        "aclDestroyScalar",        "aclCreateIntArray",        "aclDestroyIntArray",
        "aclCreateBoolArray",      "aclDestroyBoolArray",      "aclCreateTensorList",
        "aclDestroyTensorList",    "aclCreateFloatArray",      "aclDestroyFloatArray",
        "aclCreateScalarList",     "aclDestroyScalarList",     "aclSetAclOpExecutorRepeatable",
        "aclDestroyAclOpExecutor", "aclSetInputTensorAddr",    "aclSetOutputTensorAddr",
        "InitHugeMemThreadLocal",  "UnInitHugeMemThreadLocal", "ReleaseHugeMem"}) {
    EXPECT(dlsym(api.handle, name) != nullptr, std::string("dlsym(libopapi.so, ") + name + ")");
  }
  // torch_npu's executor-cache hooks are absent on purpose (docs/compat.md): the adapter then
  // runs phase 1 on every call.
  for (const char* name : {"InitPTACacheThreadLocal", "SetPTAHashKey", "CanUsePTACache",
                           "PTAGetExecCache", "UnInitPTACacheThreadLocal"}) {
    EXPECT(dlsym(api.handle, name) == nullptr, std::string(name) + " should be absent");
  }
  std::printf("adapter: %zu of %zu aclnn functions resolved on libopapi.so\n", resolved,
              functions.size());

  api.create_tensor = Resolve<CreateTensorFn>(api.handle, "aclCreateTensor");
  api.destroy_tensor = Resolve<DestroyTensorFn>(api.handle, "aclDestroyTensor");
  api.create_scalar = Resolve<CreateScalarFn>(api.handle, "aclCreateScalar");
  api.destroy_scalar = Resolve<DestroyScalarFn>(api.handle, "aclDestroyScalar");
  api.create_int_array = Resolve<CreateIntArrayFn>(api.handle, "aclCreateIntArray");
  api.destroy_int_array = Resolve<DestroyIntArrayFn>(api.handle, "aclDestroyIntArray");
  api.init_huge_mem = Resolve<InitHugeMemFn>(api.handle, "InitHugeMemThreadLocal");
  api.uninit_huge_mem = Resolve<UnInitHugeMemFn>(api.handle, "UnInitHugeMemThreadLocal");
  api.release_huge_mem = Resolve<ReleaseHugeMemFn>(api.handle, "ReleaseHugeMem");
  auto add_ws = Resolve<AddWsFn>(api.handle, "aclnnAddGetWorkspaceSize");
  auto add = Resolve<RunFn>(api.handle, "aclnnAdd");
  auto softmax_ws = Resolve<SoftmaxWsFn>(api.handle, "aclnnSoftmaxGetWorkspaceSize");
  auto softmax = Resolve<RunFn>(api.handle, "aclnnSoftmax");
  auto sum_ws = Resolve<ReduceSumWsFn>(api.handle, "aclnnReduceSumGetWorkspaceSize");
  auto sum = Resolve<RunFn>(api.handle, "aclnnReduceSum");
  if (failures != 0 || add_ws == nullptr || softmax_ws == nullptr || sum_ws == nullptr) {
    std::fprintf(stderr, "FAIL: %d failure(s) before the operator calls\n", failures);
    return 1;
  }

  {
    // out = self + 2 * other on a 2x3 tensor.
    const std::vector<int64_t> shape = {2, 3};
    const std::vector<float> x = {1, 2, 3, 4, 5, 6};
    const std::vector<float> y = {0.5f, -1, 2, 0, 3, -4};
    DeviceTensor self(api, shape, x), other(api, shape, y), out(api, shape, std::vector<float>(6));
    float two = 2.0f;
    aclScalar* alpha = api.create_scalar(&two, ACL_FLOAT);
    TwoPhase(api, "aclnnAdd", add, stream, [&](uint64_t* ws, aclOpExecutor** exec) {
      return add_ws(self.tensor, other.tensor, alpha, out.tensor, ws, exec);
    });
    const std::vector<float> got = out.Read(6);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT(got[i] == x[i] + 2 * y[i], "aclnnAdd element " + std::to_string(i));
    }
    api.destroy_scalar(alpha);

    // softmax over the last dim of the Add result.
    DeviceTensor probs(api, shape, std::vector<float>(6));
    TwoPhase(api, "aclnnSoftmax", softmax, stream, [&](uint64_t* ws, aclOpExecutor** exec) {
      return softmax_ws(out.tensor, -1, probs.tensor, ws, exec);
    });
    const std::vector<float> p = probs.Read(6);
    for (int row = 0; row < 2; ++row) {
      double denom = 0;
      for (int c = 0; c < 3; ++c) denom += std::exp(static_cast<double>(got[row * 3 + c]));
      for (int c = 0; c < 3; ++c) {
        const double want = std::exp(static_cast<double>(got[row * 3 + c])) / denom;
        EXPECT(Near(p[row * 3 + c], want), "aclnnSoftmax element " + std::to_string(row * 3 + c));
      }
    }

    // column sums of the input with keepDims=false.
    DeviceTensor sums(api, {3}, std::vector<float>(3));
    const int64_t dims_value[] = {0};
    aclIntArray* dims = api.create_int_array(dims_value, 1);
    TwoPhase(api, "aclnnReduceSum", sum, stream, [&](uint64_t* ws, aclOpExecutor** exec) {
      return sum_ws(self.tensor, dims, false, ACL_FLOAT, sums.tensor, ws, exec);
    });
    const std::vector<float> s = sums.Read(3);
    for (int c = 0; c < 3; ++c) {
      EXPECT(s[c] == x[c] + x[3 + c], "aclnnReduceSum element " + std::to_string(c));
    }
    api.destroy_int_array(dims);

    // A bad call through the resolved pointer answers the documented status and a message.
    uint64_t ws = 0;
    aclOpExecutor* executor = nullptr;
    EXPECT(api.init_huge_mem(nullptr, false) == 0, "InitHugeMemThreadLocal before a bad call");
    const aclnnStatus bad = softmax_ws(nullptr, -1, probs.tensor, &ws, &executor);
    api.uninit_huge_mem(nullptr, false);
    EXPECT(bad == 161001,
           "aclnnSoftmax with self=nullptr answers 161001, got " + std::to_string(bad));
    EXPECT(std::strstr(aclGetRecentErrMsg(), "self") != nullptr,
           "the message names self: " + std::string(aclGetRecentErrMsg()));
  }

  for (void* handle : domains) dlclose(handle);
  dlclose(api.handle);
  aclrtDestroyStream(stream);
  aclrtResetDevice(0);
  aclFinalize();
  if (failures != 0) {
    std::fprintf(stderr, "adapter: %d failure(s)\n", failures);
    return 1;
  }
  std::printf("adapter: Add, Softmax and ReduceSum through dlsym pointers and the hooks: OK\n");
  return 0;
}

// libacl_op_compiler's start-up calls (acl/acl_op_compiler.h). Adapters set compile options
// before their first operator (torch_npu: ACL_OP_JIT_COMPILE, ACL_PRECISION_MODE, ...). openaclnn
// has no operator compiler: every value is checked, recorded per process and read back as set,
// and none of them changes what an operator computes (determinism is aclrtCtxSetSysParamOpt's).

#include <array>
#include <cstring>
#include <mutex>
#include <string>

#include "acl/acl_op_compiler.h"
#include "runtime/error.h"

namespace openaclnn {
namespace {

constexpr int kNumCompileOpts = ACL_OP_DEBUG_OPTION + 1;

struct CompileOptions {
  std::mutex mutex;
  std::array<std::string, kNumCompileOpts> values;
  aclOpCompileFlag flag = ACL_OPCOMPILE_DEFAULT;
  CompileOptions() {
    // What an A2 toolkit reports before anything is set: operators are not compiled on the fly.
    values[ACL_OP_JIT_COMPILE] = "disable";
  }
};

CompileOptions& Options() {
  static CompileOptions* options = new CompileOptions;
  return *options;
}

bool ValidOpt(aclCompileOpt opt) {
  return static_cast<int>(opt) >= 0 && static_cast<int>(opt) < kNumCompileOpts;
}

aclError Fail(aclError code, const std::string& message) {
  SetRecentError(message);
  return code;
}

std::string OptRange(const char* api, aclCompileOpt opt) {
  return std::string(api) + ": opt must be an aclCompileOpt (0.." +
         std::to_string(kNumCompileOpts - 1) + "), got " + std::to_string(static_cast<int>(opt));
}

}  // namespace
}  // namespace openaclnn

extern "C" {

aclError aclSetCompileopt(aclCompileOpt opt, const char* value) {
  using openaclnn::Fail;
  if (!openaclnn::ValidOpt(opt)) {
    return Fail(ACL_ERROR_INVALID_PARAM, openaclnn::OptRange("aclSetCompileopt", opt));
  }
  if (value == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclSetCompileopt: value must not be nullptr");
  }
  try {
    auto& options = openaclnn::Options();
    std::lock_guard<std::mutex> lock(options.mutex);
    options.values[opt] = value;
  } catch (...) {
    return Fail(ACL_ERROR_BAD_ALLOC, "aclSetCompileopt: out of host memory");
  }
  return ACL_SUCCESS;
}

size_t aclGetCompileoptSize(aclCompileOpt opt) {
  if (!openaclnn::ValidOpt(opt)) return 0;
  auto& options = openaclnn::Options();
  std::lock_guard<std::mutex> lock(options.mutex);
  return options.values[opt].size() + 1;
}

aclError aclGetCompileopt(aclCompileOpt opt, char* value, size_t length) {
  using openaclnn::Fail;
  if (!openaclnn::ValidOpt(opt)) {
    return Fail(ACL_ERROR_INVALID_PARAM, openaclnn::OptRange("aclGetCompileopt", opt));
  }
  if (value == nullptr) {
    return Fail(ACL_ERROR_INVALID_PARAM, "aclGetCompileopt: value must not be nullptr");
  }
  auto& options = openaclnn::Options();
  std::lock_guard<std::mutex> lock(options.mutex);
  const std::string& stored = options.values[opt];
  if (length < stored.size() + 1) {
    return Fail(ACL_ERROR_INVALID_PARAM,
                "aclGetCompileopt: length must be at least " + std::to_string(stored.size() + 1) +
                    " (aclGetCompileoptSize), got " + std::to_string(length));
  }
  std::memcpy(value, stored.c_str(), stored.size() + 1);
  return ACL_SUCCESS;
}

aclError aclopSetCompileFlag(aclOpCompileFlag flag) {
  if (flag != ACL_OPCOMPILE_DEFAULT && flag != ACL_OPCOMPILE_FUZZ) {
    return openaclnn::Fail(ACL_ERROR_INVALID_PARAM,
                           "aclopSetCompileFlag: flag must be ACL_OPCOMPILE_DEFAULT (0) or "
                           "ACL_OPCOMPILE_FUZZ (1), got " +
                               std::to_string(static_cast<int>(flag)));
  }
  auto& options = openaclnn::Options();
  std::lock_guard<std::mutex> lock(options.mutex);
  options.flag = flag;
  return ACL_SUCCESS;
}

}  // extern "C"

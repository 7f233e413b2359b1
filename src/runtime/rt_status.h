#pragma once
// The runtime's own status: an aclError (ACL_ERROR_*, ACL_ERROR_RT_*) and its message. Runtime
// calls, streams, events and the CUDA backend's runtime wrappers report RtStatus; operators report
// Status (an aclnnStatus). The two meet only through the conversions below, so that an
// aclrt* call never answers an aclnn code and an aclnn call never answers a runtime code.

#include <string>
#include <utility>

#include "acl/acl_base.h"
#include "api/status.h"

namespace openaclnn {

class RtStatus {
 public:
  RtStatus() = default;
  RtStatus(aclError code, std::string message) : code_(code), message_(std::move(message)) {}
  static RtStatus Ok() { return RtStatus(); }
  bool ok() const { return code_ == ACL_SUCCESS; }
  aclError code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  aclError code_ = ACL_SUCCESS;
  std::string message_;
};

// printf-style constructor of a runtime failure.
RtStatus RtErrorStatus(aclError code, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

#define OPENACLNN_RETURN_IF_RT_ERROR(expr)         \
  do {                                             \
    ::openaclnn::RtStatus rt_status_or_ = (expr);  \
    if (!rt_status_or_.ok()) return rt_status_or_; \
  } while (0)

// An operator that failed while its stream ran it: the stream reports what a device reports of a
// failed kernel, ACL_ERROR_RT_AICORE_EXCEPTION (507015), with the operator's status and message.
RtStatus OperatorTaskFailed(const char* op_name, const Status& status);

// A runtime call that failed inside an operator's phase 2: the operator answers
// ACLNN_ERR_RUNTIME_ERROR (361001), with the runtime's code and message.
Status RuntimeFailedInOperator(const RtStatus& status);
inline Status InOperator(const RtStatus& status) {
  return status.ok() ? Status::Ok() : RuntimeFailedInOperator(status);
}

}  // namespace openaclnn

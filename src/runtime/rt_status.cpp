#include "runtime/rt_status.h"

#include <cstdarg>
#include <utility>

#include "acl/error_codes/rt_error_codes.h"
#include "api/format.h"

namespace openaclnn {

RtStatus RtErrorStatus(aclError code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::string message = FormatV(format, args);
  va_end(args);
  return RtStatus(code, std::move(message));
}

RtStatus OperatorTaskFailed(const char* op_name, const Status& status) {
  return RtStatus(ACL_ERROR_RT_AICORE_EXCEPTION,
                  std::string(op_name) + " failed on the stream: " + status.message() +
                      " (aclnn status " + std::to_string(status.code()) + ")");
}

Status RuntimeFailedInOperator(const RtStatus& status) {
  return Status(ACLNN_ERR_RUNTIME_ERROR,
                status.message() + " (runtime error " + std::to_string(status.code()) + ")");
}

}  // namespace openaclnn

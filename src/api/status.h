#pragma once
// Internal status: an aclnnStatus code and the message that aclGetRecentErrMsg() will return.

#include <cstdarg>
#include <string>
#include <utility>

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"

namespace openaclnn {

class Status {
 public:
  Status() = default;
  Status(aclnnStatus code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }
  bool ok() const { return code_ == ACLNN_SUCCESS; }
  aclnnStatus code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  aclnnStatus code_ = ACLNN_SUCCESS;
  std::string message_;
};

// printf-style constructors of failures.
Status ErrorStatus(aclnnStatus code, const char* format, ...) __attribute__((format(printf, 2, 3)));
inline Status NullptrError(const char* param) {
  return ErrorStatus(ACLNN_ERR_PARAM_NULLPTR, "%s must not be nullptr", param);
}

#define OPENACLNN_RETURN_IF_ERROR(expr)      \
  do {                                       \
    ::openaclnn::Status status_or_ = (expr); \
    if (!status_or_.ok()) return status_or_; \
  } while (0)

}  // namespace openaclnn

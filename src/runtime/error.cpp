#include "runtime/error.h"

#include <utility>

#include "acl/acl_rt.h"

namespace openaclnn {
namespace {

struct RecentError {
  std::string message;   // the newest error of this thread
  std::string returned;  // what the last aclGetRecentErrMsg() handed out
  bool has_error = false;
};

RecentError& ThreadRecentError() {
  static thread_local RecentError error;
  return error;
}

}  // namespace

void SetRecentError(std::string message) {
  RecentError& error = ThreadRecentError();
  error.message = std::move(message);
  error.has_error = true;
}

void ClearRecentErrorText() noexcept {
  RecentError& error = ThreadRecentError();
  error.message.clear();
  error.has_error = true;
}

}  // namespace openaclnn

extern "C" const char* aclGetRecentErrMsg(void) {
  openaclnn::RecentError& error = openaclnn::ThreadRecentError();
  if (!error.has_error) return nullptr;
  // The text stays valid until the next call on this thread, as CANN documents. Swapped, not
  // copied: nothing is allocated, so nothing can throw out of this C function.
  error.returned.swap(error.message);
  error.has_error = false;
  return error.returned.c_str();
}

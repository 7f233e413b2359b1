#include "api/status.h"

#include <cstdio>
#include <utility>

#include "api/format.h"

namespace openaclnn {

std::string FormatV(const char* format, va_list args) {
  char buffer[1024];
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  return buffer;
}

Status ErrorStatus(aclnnStatus code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::string message = FormatV(format, args);
  va_end(args);
  return Status(code, std::move(message));
}

}  // namespace openaclnn

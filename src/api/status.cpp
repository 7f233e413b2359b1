#include "api/status.h"

#include <cstdio>

namespace openaclnn {

Status ErrorStatus(aclnnStatus code, const char* format, ...) {
  char buffer[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  return Status(code, buffer);
}

}  // namespace openaclnn

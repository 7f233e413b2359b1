#pragma once
// The per-thread recent error message behind aclGetRecentErrMsg().

#include <string>

namespace openaclnn {

// Replaces the calling thread's recent error message.
void SetRecentError(std::string message);

}  // namespace openaclnn

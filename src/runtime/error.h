#pragma once
// The per-thread recent error message behind aclGetRecentErrMsg().

#include <string>

namespace openaclnn {

// Replaces the calling thread's recent error message.
void SetRecentError(std::string message);
// Marks an error on the calling thread with an empty text: what a C entry point falls back to
// when not even the message could be allocated. Never throws.
void ClearRecentErrorText() noexcept;

}  // namespace openaclnn

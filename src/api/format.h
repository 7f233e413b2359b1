#pragma once
// printf-style formatting into a std::string, shared by the operator and runtime statuses.

#include <cstdarg>
#include <string>

namespace openaclnn {

// The text `format` and `args` give, cut at 1023 characters.
std::string FormatV(const char* format, va_list args);

}  // namespace openaclnn

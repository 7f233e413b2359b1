#pragma once
// Command-line flags the benchmark programs take besides Google Benchmark's own.

#include <cstring>

namespace openaclnn::bench {

// Removes every `flag` from argv (so Google Benchmark never sees it); true when it was there.
inline bool TakeFlag(int* argc, char** argv, const char* flag) {
  bool found = false;
  int kept = 0;
  for (int i = 0; i < *argc; ++i) {
    if (i > 0 && std::strcmp(argv[i], flag) == 0) {
      found = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  return found;
}

}  // namespace openaclnn::bench

#pragma once
// Brief busy-waiting before sleeping on a condition variable. Waking a sleeping thread costs tens
// of microseconds (milliseconds on a busy VM), more than a small operator takes, so waits that
// usually end soon spin first.

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace openaclnn {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until done() holds or about `micros` have passed; returns done()'s last value.
template <class Done>
bool SpinUntil(Done done, int micros = 50) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(micros);
  for (int i = 0;; ++i) {
    if (done()) return true;
    CpuRelax();
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > deadline) return done();
  }
}

}  // namespace openaclnn

#pragma once
// Philox4x32-10, the counter-based generator of Salmon, Moraes, Dror and Shaw ("Parallel random
// numbers: as easy as 1, 2, 3", SC 2011): a 128-bit counter and a 64-bit key give 128 random bits
// through ten rounds of two 32x32->64-bit multiplications. Any block of the stream is computed
// directly from its counter, so a mask's bits do not depend on how the work is split.

#include <array>
#include <cstdint>

namespace openaclnn::cpu {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

inline PhiloxCounter Philox4x32x10(PhiloxCounter c, PhiloxKey k) {
  constexpr uint32_t kMultiplier0 = 0xD2511F53u;
  constexpr uint32_t kMultiplier1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u;  // golden ratio
  constexpr uint32_t kWeyl1 = 0xBB67AE85u;  // sqrt(3) - 1
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += kWeyl0;
      k[1] += kWeyl1;
    }
    const uint64_t p0 = static_cast<uint64_t>(kMultiplier0) * c[0];
    const uint64_t p1 = static_cast<uint64_t>(kMultiplier1) * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
  }
  return c;
}

}  // namespace openaclnn::cpu

#include "backend/cpu/isa.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "hwy/targets.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace openaclnn::cpu {
namespace {

struct IsaName {
  const char* name;
  int64_t target;
};

constexpr const char* kNativeBf16Name = "avx512_bf16";

// Our names for the Highway targets this library is compiled for, best first (on x86,
// kNativeBf16Name comes before them: the AVX-512 target with the AVX512_BF16 conversions). On
// aarch64, SVE2 and SVE are Highway's vector-length-agnostic targets (any vector length from 128
// to 2048 bits) and NEON its 128-bit Advanced SIMD target. Each SVE name also covers Highway's
// fixed-length specialisation of it (SVE2_128, SVE_256), should the build compile them (it does
// not: CMakeLists.txt); where both are usable, the specialisation (the lower bit) is chosen.
#if HWY_ARCH_ARM_A64
constexpr bool kHasNativeBf16Name = false;
constexpr IsaName kIsas[] = {
    {"sve2", HWY_SVE2 | HWY_SVE2_128},
    {"sve", HWY_SVE | HWY_SVE_256},
    {"neon", HWY_NEON},
    {"scalar", HWY_EMU128 | HWY_SCALAR},
};
constexpr const char* kIsaNames = "sve2, sve, neon, scalar";
#else
constexpr bool kHasNativeBf16Name = true;
constexpr IsaName kIsas[] = {
    {"avx512", HWY_AVX3},
    {"avx2", HWY_AVX2},
    {"sse4", HWY_SSE4},
    {"scalar", HWY_EMU128 | HWY_SCALAR},
};
constexpr const char* kIsaNames = "avx512_bf16, avx512, avx2, sse4, scalar";
#endif

int64_t Compiled() { return HWY_TARGETS; }

// The real targets of this CPU, ignoring any cap set before.
int64_t Hardware() {
  static const int64_t hardware = [] {
    hwy::SetSupportedTargetsForTest(0);
    return hwy::SupportedTargets();
  }();
  return hardware;
}

bool HardwareBf16() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool has = __builtin_cpu_supports("avx512bf16") != 0;
  return has;
#else
  return false;
#endif
}

// CPUID leaf 0 (vendor) and leaf 1 (family), read once: CPUID costs microseconds in a virtual
// machine, and phase 1 asks this on every call.
bool AmdFamily19h() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool family_19h = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return false;
    // "AuthenticAMD" as EBX, EDX, ECX.
    const bool amd = ebx == 0x68747541u && edx == 0x69746e65u && ecx == 0x444d4163u;
    if (!amd || __get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
    const unsigned base_family = (eax >> 8) & 0xfu;
    const unsigned family = base_family == 0xfu ? base_family + ((eax >> 20) & 0xffu) : base_family;
    return family == 0x19u;
  }();
  return family_19h;
#else
  return false;
#endif
}

bool HardwarePrefetchRowsToL2() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool zen4 = AmdFamily19h() && __builtin_cpu_supports("avx512f") != 0;
  return zen4;
#else
  return false;
#endif
}

// A CPU property that tests may force: -1 (the CPU's answer), 0 or 1.
class TestOverride {
 public:
  bool Or(bool hardware) const {
    const int forced = value_.load(std::memory_order_relaxed);
    return forced >= 0 ? forced != 0 : hardware;
  }
  void Set(int value) {
    value_.store(value < 0 ? -1 : (value != 0 ? 1 : 0), std::memory_order_relaxed);
  }

 private:
  std::atomic<int> value_{-1};
};

TestOverride& NarrowStoresOverride() {
  static TestOverride value;
  return value;
}

TestOverride& PrefetchRowsToL2Override() {
  static TestOverride value;
  return value;
}

}  // namespace

bool NarrowVectorStores() { return NarrowStoresOverride().Or(AmdFamily19h()); }

void SetNarrowVectorStoresForTest(int value) { NarrowStoresOverride().Set(value); }

bool PrefetchRowsToL2() { return PrefetchRowsToL2Override().Or(HardwarePrefetchRowsToL2()); }

void SetPrefetchRowsToL2ForTest(int value) { PrefetchRowsToL2Override().Set(value); }

std::vector<std::string> AvailableIsas() {
  std::vector<std::string> names;
  const int64_t usable = Hardware() & Compiled();
  if (HardwareBf16() && (usable & HWY_AVX3) != 0) names.push_back(kNativeBf16Name);
  for (const IsaName& isa : kIsas) {
    if (usable & isa.target) names.push_back(isa.name);
  }
  return names;
}

namespace {

// The cap of the calling thread's phase-1 calls ("" none), and OPENACLNN_CPU_ISA's, read once.
thread_local std::string planning_cap;

bool KnownIsa(const std::string& name) {
  if (kHasNativeBf16Name && name == kNativeBf16Name) return true;
  for (const IsaName& isa : kIsas) {
    if (name == isa.name) return true;
  }
  return false;
}

const std::string& EnvironmentCap() {
  static const std::string cap = [] {
    const char* value = std::getenv("OPENACLNN_CPU_ISA");
    std::string name(value != nullptr ? value : "");
    if (!name.empty() && !KnownIsa(name)) {
      std::fprintf(stderr, "openaclnn: OPENACLNN_CPU_ISA=%s is not one of %s; ignored\n",
                   name.c_str(), kIsaNames);
    }
    return name;
  }();
  return cap;
}

// Rank of a name in the best-first list kNativeBf16Name, kIsas...; unknown names rank last+1.
int IsaRank(const std::string& name) {
  if (kHasNativeBf16Name && name == kNativeBf16Name) return 0;
  int rank = 1;
  for (const IsaName& isa : kIsas) {
    if (name == isa.name) return rank;
    ++rank;
  }
  return rank;
}

int DispatchIndex(int64_t target) {
  if ((target & (HWY_EMU128 | HWY_SCALAR)) != 0) return HWY_MAX_DYNAMIC_TARGETS + 1;
  const int64_t shifted = HWY_CHOSEN_TARGET_SHIFT(target);
  return shifted == 0 ? HWY_MAX_DYNAMIC_TARGETS + 1
                      : __builtin_ctzll(static_cast<uint64_t>(shifted));
}

}  // namespace

bool SetPlanningIsaCap(const std::string& name) {
  if (!name.empty() && !KnownIsa(name)) return false;
  planning_cap = name;
  return true;
}

KernelTarget PlanningTarget() {
  // The tighter of the two caps: the later a name comes in the best-first list, the tighter.
  int cap_rank = 0;
  if (KnownIsa(EnvironmentCap())) cap_rank = IsaRank(EnvironmentCap());
  if (!planning_cap.empty()) cap_rank = std::max(cap_rank, IsaRank(planning_cap));
  const int64_t usable = Hardware() & Compiled();
  KernelTarget target;
  target.hwy_target = HWY_EMU128;
  if (cap_rank == 0 && HardwareBf16() && (usable & HWY_AVX3) != 0) {
    target.hwy_target = HWY_AVX3;
    target.native_bf16 = true;
    target.name = kNativeBf16Name;
  } else {
    int rank = 1;
    for (const IsaName& isa : kIsas) {
      if (rank++ < cap_rank) continue;
      if ((usable & isa.target) != 0 || (isa.target & (HWY_EMU128 | HWY_SCALAR)) != 0) {
        target.hwy_target = (usable & isa.target) != 0 ? (usable & isa.target) : HWY_EMU128;
        target.name = isa.name;
        break;
      }
    }
  }
  // One bit: the best of the matched ones (the scalar entry may match EMU128 and SCALAR).
  target.hwy_target &= -target.hwy_target;
  target.dispatch_index = DispatchIndex(target.hwy_target);
  return target;
}

std::string ActiveIsa() { return PlanningTarget().name; }

}  // namespace openaclnn::cpu

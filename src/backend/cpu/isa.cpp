#include "backend/cpu/isa.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "hwy/targets.h"

namespace openaclnn::cpu {
namespace {

struct IsaName {
  const char* name;
  int64_t target;
};

// Our names for the Highway targets this library is compiled for, best first.
constexpr IsaName kIsas[] = {
    {"avx512", HWY_AVX3},
    {"avx2", HWY_AVX2},
    {"sse4", HWY_SSE4},
    {"scalar", HWY_EMU128 | HWY_SCALAR},
};

int64_t Compiled() { return HWY_TARGETS; }

// The real targets of this CPU, ignoring any cap set before.
int64_t Hardware() {
  static const int64_t hardware = [] {
    hwy::SetSupportedTargetsForTest(0);
    return hwy::SupportedTargets();
  }();
  return hardware;
}

std::mutex& CapMutex() {
  static std::mutex* mutex = new std::mutex;
  return *mutex;
}

}  // namespace

std::vector<std::string> AvailableIsas() {
  std::vector<std::string> names;
  const int64_t usable = Hardware() & Compiled();
  for (const IsaName& isa : kIsas) {
    if (usable & isa.target) names.push_back(isa.name);
  }
  return names;
}

bool SetIsaCap(const std::string& name) {
  std::lock_guard<std::mutex> lock(CapMutex());
  const int64_t hardware = Hardware();
  if (name.empty()) {
    hwy::SetSupportedTargetsForTest(0);
    hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    return true;
  }
  int64_t allowed = 0;
  bool found = false;
  for (const IsaName& isa : kIsas) {
    if (name == isa.name) found = true;
    if (found) allowed |= isa.target;  // the cap and every target below it
  }
  if (!found) return false;
  hwy::SetSupportedTargetsForTest((hardware & allowed) | HWY_EMU128 | HWY_SCALAR);
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  return true;
}

std::string ActiveIsa() {
  const int64_t usable = hwy::SupportedTargets() & Compiled();
  for (const IsaName& isa : kIsas) {
    if (usable & isa.target) return isa.name;
  }
  return "scalar";
}

void ApplyIsaCapFromEnvironment() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* cap = std::getenv("OPENACLNN_CPU_ISA");
    if (cap == nullptr || cap[0] == '\0') return;
    if (!SetIsaCap(cap)) {
      std::fprintf(stderr,
                   "openaclnn: OPENACLNN_CPU_ISA=%s is not one of avx512, avx2, sse4, scalar; "
                   "ignored\n",
                   cap);
    }
  });
}

}  // namespace openaclnn::cpu

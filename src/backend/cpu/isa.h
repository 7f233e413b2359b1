#pragma once
// Run-time choice of the SIMD instruction set for Highway kernels: phase 1 resolves it (under
// OPENACLNN_CPU_ISA and a per-thread cap for tests) and the plan holds it. Nothing here changes
// Highway's process-wide dispatch state after the one-time probe of the CPU's targets.

#include <cstdint>
#include <string>
#include <vector>

namespace openaclnn::cpu {

// The SIMD target a plan's Highway kernels run on, resolved once in phase 1 and held by the plan,
// so that no process-wide dispatch state changes while plans may run.
struct KernelTarget {
  int64_t hwy_target = 0;    // one HWY_* target bit (HWY_AVX3, HWY_AVX2, ..., HWY_EMU128)
  int dispatch_index = 0;    // index into an HWY_EXPORT table for that target
  bool native_bf16 = false;  // the AVX512_BF16 instructions may be used (same bits either way)
  const char* name = "scalar";
};

// The best target this CPU runs that OPENACLNN_CPU_ISA (read once; an unknown name is reported on
// stderr and ignored) and the calling thread's planning cap allow. Phase 1 calls it and stores the
// answer in the plan.
KernelTarget PlanningTarget();
// For tests: caps the target that the calling thread's later phase-1 calls choose (the names of
// AvailableIsas()); "" removes the cap. False for an unknown name. Plans built before keep their
// target, and other threads are unaffected.
bool SetPlanningIsaCap(const std::string& name);

// Calls the HWY_EXPORT-ed function FUNC compiled for `target` (a KernelTarget).
#define OPENACLNN_DISPATCH(FUNC, target) (*(HWY_DISPATCH_TABLE(FUNC)[(target).dispatch_index]))

// Names of the targets this CPU can run, best first (e.g. {"avx512_bf16", "avx512", "avx2",
// "sse4", "scalar"}). "avx512_bf16" is the AVX-512 target plus the AVX512_BF16 conversion
// instructions, which some kernels use where they give the same bits as the plain target.
std::vector<std::string> AvailableIsas();
// The name of the target a plan built now on this thread would hold (PlanningTarget().name).
std::string ActiveIsa();
// True on CPUs whose L1 data cache stores 32 bytes a cycle, so that a 64-byte vector store takes
// two (AMD family 19h: Zen 3, and Zen 4 with AVX-512; measured on Zen 4). Kernels use it to leave
// out stores that only save recomputation on the AVX-512 target; the same bits either way.
bool NarrowVectorStores();
// For tests: 0 or 1 forces NarrowVectorStores(), -1 returns it to the CPU's answer.
void SetNarrowVectorStoresForTest(int value);
// True on CPUs where streaming kernels should prefetch the rows ahead into L2 rather than L1
// (AMD family 19h with AVX-512: Zen 4). Measured there on LayerNorm backward rows read from
// memory: FLOAT rows, and 16-bit rows over 2 KiB, ran faster fetched into L2. Only timing
// depends on it.
bool PrefetchRowsToL2();
// For tests: 0 or 1 forces PrefetchRowsToL2(), -1 returns it to the CPU's answer.
void SetPrefetchRowsToL2ForTest(int value);

}  // namespace openaclnn::cpu

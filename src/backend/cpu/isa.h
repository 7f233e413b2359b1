#pragma once
// Run-time choice of the SIMD instruction set for Highway kernels, with a cap for testing.

#include <string>
#include <vector>

namespace openaclnn::cpu {

// Applies OPENACLNN_CPU_ISA (scalar, sse4, avx2, avx512) once; called by every operator's phase 1.
void ApplyIsaCapFromEnvironment();
// Names of the targets this CPU can run, best first (e.g. {"avx512", "avx2", "sse4", "scalar"}).
std::vector<std::string> AvailableIsas();
// Caps the targets Highway dispatches to; false for an unknown name. "" removes the cap.
bool SetIsaCap(const std::string& name);
// The target Highway dispatch currently picks ("avx512", ...).
std::string ActiveIsa();

}  // namespace openaclnn::cpu

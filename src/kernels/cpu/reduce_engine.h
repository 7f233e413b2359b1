#pragma once
// The reduction engine's CPU half (phase 2): runs a planned sum (api/reduce.h) with the thread
// pool, SIMD kernels for fp32 accumulation of FLOAT/FLOAT16/BFLOAT16 elements whose conversion to
// the output dtype is exact, and scalar loops for every other dtype pair and layout. Every path
// follows the summation order of api/reduce.h.

#include <cstddef>
#include <cstdint>

#include "api/executor.h"
#include "api/reduce.h"
#include "backend/cpu/isa.h"

namespace openaclnn::cpu {

class ReduceSumEngine {
 public:
  // Books the partial sums in `workspace` (when the problem splits outputs over tasks).
  ReduceSumEngine(const ReduceProblem& problem, const KernelTarget& target,
                  WorkspaceBooking* workspace);
  // `in` and `out`: the first elements of the views; `workspace`: the aligned bookings' base.
  void Run(const void* in, void* out, void* workspace) const;
  const ReduceGeometry& geometry() const { return g_; }
  // True when the SIMD kernels run (FLOAT/FLOAT16/BFLOAT16 input, output FLOAT or the input type).
  bool vectorised() const { return vector_; }

 private:
  template <class Acc>
  void RunTyped(const unsigned char* in, unsigned char* out, Acc* partials) const;

  ReduceProblem p_;
  ReduceGeometry g_;
  KernelTarget target_;
  bool vector_ = false;
  size_t partials_offset_ = 0;
};

}  // namespace openaclnn::cpu

#pragma once
// Highway-target kernels over a panel of adjacent softmax rows that lie across memory (an
// outer-dim softmax: the rows' elements are `step` apart and neighbouring rows are neighbouring
// elements). The panel holds element k of row c at a[k * w + c]; the loops run across the rows,
// so the compiler vectorises over them. Every row gets exactly the operations, in the order, that
// the row kernel (row_kernels.h) gives it on the row path, so a row has
// the same bits whichever path computes it.

#include <cstdint>

#include "backend/cpu/isa.h"
#include "ops/softmax/problem.h"

namespace openaclnn::softmax::cpu {

// Widest panel the kernels take.
constexpr int64_t kMaxPanelRows = 64;

// Runs `kind` on the w (<= kMaxPanelRows) rows of n elements held in a (self for the forward,
// gradOutput for the backward; overwritten with the result) and b (output, backward only).
void RunColumnPanel(const openaclnn::cpu::KernelTarget& target, Kind kind, int64_t n, int64_t w,
                    float* a, const float* b);

}  // namespace openaclnn::softmax::cpu

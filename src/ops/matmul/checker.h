#pragma once
// Argument checks of the matmul family, in CANN's order: nulls (161001); dtypes, dtype promotion,
// scalars, formats, ranks, the reduce dim, batch broadcast, self's broadcast, out's shape,
// cubeMathType (161002); then every tensor read or written lies inside its storage (161002).
// On success each fills `problem` (docs/ops/matmul.md lists the rules and the messages).

#include <cstdint>

#include "api/status.h"
#include "ops/matmul/problem.h"

struct aclTensor;
struct aclScalar;

namespace openaclnn::matmul {

// aclnnMatmul: 1-D to 6-D operands, torch.matmul semantics.
Status CheckMatmul(const aclTensor* self, const aclTensor* mat2, const aclTensor* out,
                   int8_t cube_math_type, Problem* problem);
// aclnnMm: 2-D operands.
Status CheckMm(const aclTensor* self, const aclTensor* mat2, const aclTensor* out,
               int8_t cube_math_type, Problem* problem);
// aclnnBatchMatMul: 3-D operands; a batch of 1 broadcasts.
Status CheckBatchMatMul(const aclTensor* self, const aclTensor* mat2, const aclTensor* out,
                        int8_t cube_math_type, Problem* problem);
// aclnnAddmm (out given) and aclnnInplaceAddmm (out == nullptr: self is selfRef and the output).
Status CheckAddmm(const aclTensor* self, const aclTensor* mat1, const aclTensor* mat2,
                  const aclScalar* beta, const aclScalar* alpha, const aclTensor* out,
                  int8_t cube_math_type, bool inplace, Problem* problem);
// aclnnBaddbmm and aclnnInplaceBaddbmm, likewise.
Status CheckBaddbmm(const aclTensor* self, const aclTensor* batch1, const aclTensor* batch2,
                    const aclScalar* beta, const aclScalar* alpha, const aclTensor* out,
                    int8_t cube_math_type, bool inplace, Problem* problem);

}  // namespace openaclnn::matmul

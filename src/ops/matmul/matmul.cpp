// The matmul family's entries: aclnnMatmul, aclnnMm, aclnnBatchMatMul, aclnnAddmm,
// aclnnInplaceAddmm, aclnnBaddbmm and aclnnInplaceBaddbmm. Each is its checker (ops/matmul/
// checker.h) feeding one engine: the tiled CPU GEMM plan, or the float64 reference.
#include "aclnnop/aclnn_addmm.h"
#include "aclnnop/aclnn_baddbmm.h"
#include "aclnnop/aclnn_batch_matmul.h"
#include "aclnnop/aclnn_matmul.h"
#include "aclnnop/aclnn_mm.h"
#include "api/executor.h"
#include "ops/matmul/checker.h"
#include "ops/matmul/cpu/gemm_plan.h"
#include "ops/matmul/reference.h"

namespace openaclnn::matmul {
namespace {

// Ordered list: the first that accepts the problem runs; the reference is last.
const Implementation<Problem> kImplementations[] = {
    {"cpu_gemm", DeviceKind::kCpu, GemmDeclines, MakeGemmPlan},
    {"reference", DeviceKind::kCpu, ReferenceDeclines, MakeReferencePlan},
};

// Phase 1 of every member: `check` fills the problem; an empty output needs no plan.
template <class Check>
aclnnStatus Phase1(const char* name, uint64_t* workspace_size, aclOpExecutor** executor,
                   std::initializer_list<const aclTensor*> inputs,
                   std::initializer_list<const aclTensor*> outputs, Check&& check) {
  return RunPhase1(name, workspace_size, executor, inputs, outputs,
                   [&](PlanBuilder* builder) -> Status {
                     Problem problem;
                     OPENACLNN_RETURN_IF_ERROR(check(&problem));
                     builder->problem = problem.Describe();
                     // self's values do not matter when beta == 0 (or there is no self).
                     if (!problem.has_bias && problem.bias_slot < 0 && inputs.size() > 2) {
                       builder->input_unused[0] = true;
                     }
                     if (problem.batch == 0 || problem.m == 0 || problem.n == 0) {
                       return Status::Ok();  // nothing to write
                     }
                     return ChooseImplementation("matmul", kImplementations, problem, builder);
                   });
}

}  // namespace
}  // namespace openaclnn::matmul

using openaclnn::matmul::Phase1;
using openaclnn::matmul::Problem;

aclnnStatus aclnnMatmulGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2,
                                        aclTensor* out, int8_t cubeMathType,
                                        uint64_t* workspaceSize, aclOpExecutor** executor) {
  return Phase1("aclnnMatmul", workspaceSize, executor, {self, mat2}, {out}, [&](Problem* p) {
    return openaclnn::matmul::CheckMatmul(self, mat2, out, cubeMathType, p);
  });
}

aclnnStatus aclnnMatmul(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                        aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnMatmul", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnMmGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2, aclTensor* out,
                                    int8_t cubeMathType, uint64_t* workspaceSize,
                                    aclOpExecutor** executor) {
  return Phase1("aclnnMm", workspaceSize, executor, {self, mat2}, {out}, [&](Problem* p) {
    return openaclnn::matmul::CheckMm(self, mat2, out, cubeMathType, p);
  });
}

aclnnStatus aclnnMm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                    aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnMm", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnBatchMatMulGetWorkspaceSize(const aclTensor* self, const aclTensor* mat2,
                                             aclTensor* out, int8_t cubeMathType,
                                             uint64_t* workspaceSize, aclOpExecutor** executor) {
  return Phase1("aclnnBatchMatMul", workspaceSize, executor, {self, mat2}, {out}, [&](Problem* p) {
    return openaclnn::matmul::CheckBatchMatMul(self, mat2, out, cubeMathType, p);
  });
}

aclnnStatus aclnnBatchMatMul(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnBatchMatMul", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnAddmmGetWorkspaceSize(const aclTensor* self, const aclTensor* mat1,
                                       const aclTensor* mat2, const aclScalar* beta,
                                       const aclScalar* alpha, aclTensor* out, int8_t cubeMathType,
                                       uint64_t* workspaceSize, aclOpExecutor** executor) {
  return Phase1("aclnnAddmm", workspaceSize, executor, {self, mat1, mat2}, {out}, [&](Problem* p) {
    return openaclnn::matmul::CheckAddmm(self, mat1, mat2, beta, alpha, out, cubeMathType, false,
                                         p);
  });
}

aclnnStatus aclnnInplaceAddmmGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* mat1,
                                              const aclTensor* mat2, const aclScalar* beta,
                                              const aclScalar* alpha, int8_t cubeMathType,
                                              uint64_t* workspaceSize, aclOpExecutor** executor) {
  return Phase1("aclnnInplaceAddmm", workspaceSize, executor, {selfRef, mat1, mat2}, {selfRef},
                [&](Problem* p) {
                  return openaclnn::matmul::CheckAddmm(selfRef, mat1, mat2, beta, alpha, nullptr,
                                                       cubeMathType, true, p);
                });
}

aclnnStatus aclnnAddmm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                       aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnAddmm", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceAddmm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                              aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnInplaceAddmm", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnBaddbmmGetWorkspaceSize(const aclTensor* self, const aclTensor* batch1,
                                         const aclTensor* batch2, const aclScalar* beta,
                                         const aclScalar* alpha, aclTensor* out,
                                         int8_t cubeMathType, uint64_t* workspaceSize,
                                         aclOpExecutor** executor) {
  return Phase1("aclnnBaddbmm", workspaceSize, executor, {self, batch1, batch2}, {out},
                [&](Problem* p) {
                  return openaclnn::matmul::CheckBaddbmm(self, batch1, batch2, beta, alpha, out,
                                                         cubeMathType, false, p);
                });
}

aclnnStatus aclnnBaddbmm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                         aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnBaddbmm", workspace, workspaceSize, executor, stream);
}

aclnnStatus aclnnInplaceBaddbmmGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* batch1,
                                                const aclTensor* batch2, const aclScalar* beta,
                                                const aclScalar* alpha, int8_t cubeMathType,
                                                uint64_t* workspaceSize, aclOpExecutor** executor) {
  return Phase1("aclnnInplaceBaddbmm", workspaceSize, executor, {selfRef, batch1, batch2},
                {selfRef}, [&](Problem* p) {
                  return openaclnn::matmul::CheckBaddbmm(selfRef, batch1, batch2, beta, alpha,
                                                         nullptr, cubeMathType, true, p);
                });
}

aclnnStatus aclnnInplaceBaddbmm(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                aclrtStream stream) {
  return openaclnn::RunPhase2("aclnnInplaceBaddbmm", workspace, workspaceSize, executor, stream);
}

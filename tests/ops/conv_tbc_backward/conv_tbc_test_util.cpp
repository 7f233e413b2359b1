#include "conv_tbc_test_util.h"

namespace openaclnn::test {

CallResult CallConvTbcBackward(const aclTensor* self, const aclTensor* input,
                               const aclTensor* weight, const aclTensor* bias, int64_t pad,
                               int8_t cube_math_type, aclTensor* grad_input, aclTensor* grad_weight,
                               aclTensor* grad_bias, aclrtStream stream) {
  CallResult r;
  aclOpExecutor* executor = nullptr;
  r.phase1 = aclnnConvTbcBackwardGetWorkspaceSize(self, input, weight, bias, pad, cube_math_type,
                                                  grad_input, grad_weight, grad_bias, &r.workspace,
                                                  &executor);
  if (r.phase1 != ACLNN_SUCCESS) {
    const char* m = aclGetRecentErrMsg();
    r.message = m == nullptr ? "" : m;
    return r;
  }
  void* ws = nullptr;
  if (r.workspace > 0) {
    EXPECT_EQ(aclrtMalloc(&ws, r.workspace, ACL_MEM_MALLOC_HUGE_FIRST), 0);
  }
  r.phase2 = aclnnConvTbcBackward(ws, r.workspace, executor, stream);
  if (r.phase2 == ACLNN_SUCCESS) r.sync = aclrtSynchronizeStream(stream);
  if (r.phase2 != ACLNN_SUCCESS || r.sync != ACL_SUCCESS) {
    const char* m = aclGetRecentErrMsg();
    r.message = m == nullptr ? "" : m;
  }
  if (ws != nullptr) aclrtFree(ws);
  return r;
}

float EmulationRound(float value, int cube_math_type, aclDataType promoted) {
  if (cube_math_type == 2) return RoundThroughHalf(value);
  if ((cube_math_type == 1 || cube_math_type == 3) && promoted == ACL_FLOAT) {
    return RoundToHf32(value);
  }
  return value;
}

}  // namespace openaclnn::test

// cuBLAS is loaded on first use (dlopen), not linked. Loading needs no GPU, so this runs wherever
// the CUDA backend is built: the library is found and every symbol the GPU plans call resolves.

#include <gtest/gtest.h>

#include "ops/conv_tbc_backward/cuda/cublas_pool.h"

namespace openaclnn::test {
namespace {

TEST(CublasLoader, FindsTheLibraryAndEverySymbol) {
  const conv_tbc::cuda::CublasApi* api = conv_tbc::cuda::Cublas();
  ASSERT_NE(api, nullptr) << conv_tbc::cuda::CublasLoadError();
  EXPECT_STREQ(api->status_name(CUBLAS_STATUS_SUCCESS), "CUBLAS_STATUS_SUCCESS");
  EXPECT_NE(api->gemm_ex, nullptr);
  EXPECT_NE(api->gemm_strided_batched_ex, nullptr);
}

}  // namespace
}  // namespace openaclnn::test

#pragma once
// Test helpers shared by the forward-operator suites (layer_norm, conv_tbc, gradient_check): the
// layouts they use (on test::DeviceTensor), the phase-2 call and a stream per test. Header-only
// so each suite's executable compiles its own copy.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "api/dtype.h"
#include "util/device_tensor.h"

namespace openaclnn::fwd_test {

using test::DeviceTensor;
// The forward suites' layouts: test::TensorLayouts named for failure messages.
using Layout = test::TensorLayout;

inline Layout Contiguous() { return Layout::Contiguous(); }
// Each innermost line followed by 3 unused elements.
inline Layout Padded() { return Layout::PaddedRows(1, 3).Named("padded"); }
inline Layout Offset() { return Layout::Offset(7); }
// Every element 2 apart, from element 1.
inline Layout Strided() { return Layout::Strided(2, 1); }
// `order` lists the view dims from the outermost stored one to the innermost.
inline Layout Permuted(std::vector<int> order, std::string name) {
  return Layout::Permuted(std::move(order)).Named(std::move(name));
}

// Runs phase 2 with a workspace from aclrtMalloc (when needed) and synchronises the stream.
template <class Phase2>
aclnnStatus RunPhase2AndSync(Phase2 phase2, uint64_t workspace_size, aclOpExecutor* executor,
                             aclrtStream stream) {
  void* workspace = nullptr;
  if (workspace_size > 0 &&
      aclrtMalloc(&workspace, workspace_size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
    return ACLNN_ERR_INNER;
  }
  aclnnStatus st = phase2(workspace, workspace_size, executor, stream);
  if (st == ACLNN_SUCCESS && aclrtSynchronizeStream(stream) != ACL_SUCCESS) st = ACLNN_ERR_INNER;
  if (workspace != nullptr) aclrtFree(workspace);
  return st;
}

// A stream for one test, destroyed with it.
class ScopedStream {
 public:
  ScopedStream() { EXPECT_EQ(aclrtCreateStream(&stream_), ACL_SUCCESS); }
  ScopedStream(const ScopedStream&) = delete;
  ScopedStream& operator=(const ScopedStream&) = delete;
  ~ScopedStream() { aclrtDestroyStream(stream_); }
  aclrtStream get() const { return stream_; }

 private:
  aclrtStream stream_ = nullptr;
};

}  // namespace openaclnn::fwd_test

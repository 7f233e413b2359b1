#pragma once

#include <cstdint>

namespace openaclnn {

// ACL_OPT_DETERMINISTIC as aclrtGetSysParamOpt reads it (0 when never set): phase 1 reads this.
int64_t DeterministicMode();

}  // namespace openaclnn

#pragma once
// OPENACLNN_HOST_DEVICE marks functions that both g++ and nvcc (host and device code) compile.

#if defined(__CUDACC__)
#define OPENACLNN_HOST_DEVICE __host__ __device__
#else
#define OPENACLNN_HOST_DEVICE
#endif

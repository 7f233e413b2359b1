#pragma once
// The CPU thread pool. Work is split into tasks by the caller, from the problem alone; the pool
// only decides which thread runs which task, so results never depend on the thread count.

#include <cstdint>
#include <functional>

namespace openaclnn::cpu {

// Threads used by ParallelFor: OPENACLNN_NUM_THREADS, else the CPUs this process may use.
int NumThreads();
// Overrides the thread count (tests); 0 restores the default.
void SetNumThreads(int threads);
// Runs fn(0) .. fn(num_tasks - 1), each exactly once, on up to NumThreads() threads including the
// caller, and returns when all are done. Safe to call from several threads at once and nested.
void ParallelFor(int64_t num_tasks, const std::function<void(int64_t task)>& fn);

}  // namespace openaclnn::cpu

#include "backend/cpu/thread_pool.h"

#include <sched.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "backend/cpu/spin.h"

namespace openaclnn::cpu {
namespace {

// One ParallelFor call: tasks are claimed with an atomic counter by the caller and by workers.
struct Region {
  const std::function<void(int64_t)>* fn = nullptr;
  int64_t num_tasks = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  int helpers_wanted = 0;  // workers that may still join
  std::mutex mutex;
  std::condition_variable finished;

  // Runs tasks until none are left to claim.
  void Work() {
    int64_t completed = 0;
    for (int64_t t = next.fetch_add(1); t < num_tasks; t = next.fetch_add(1)) {
      (*fn)(t);
      ++completed;
    }
    if (completed > 0 && done.fetch_add(completed) + completed == num_tasks) {
      std::lock_guard<std::mutex> lock(mutex);
      finished.notify_all();
    }
  }
};

class Pool {
 public:
  static Pool& Get() {
    static Pool* pool = new Pool;  // never destroyed: workers may be busy at exit
    return *pool;
  }

  int threads() const { return override_.load() > 0 ? override_.load() : default_threads_; }
  void set_override(int n) { override_.store(n); }

  void Run(int64_t num_tasks, const std::function<void(int64_t)>& fn) {
    const int want = static_cast<int>(std::min<int64_t>(threads(), num_tasks)) - 1;
    if (want <= 0) {
      for (int64_t t = 0; t < num_tasks; ++t) fn(t);
      return;
    }
    auto region = std::make_shared<Region>();
    region->fn = &fn;
    region->num_tasks = num_tasks;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      EnsureWorkers(want);
      region->helpers_wanted = want;
      pending_.push_back(region);
      pending_count_.fetch_add(1);
    }
    work_ready_.notify_all();
    region->Work();
    SpinUntil([&] { return region->done.load() == num_tasks; });
    std::unique_lock<std::mutex> lock(region->mutex);
    region->finished.wait(lock, [&] { return region->done.load() == num_tasks; });
    // Workers that have not picked the region up yet will find it exhausted; take it off the
    // queue so they do not try.
    lock.unlock();
    std::lock_guard<std::mutex> queue_lock(mutex_);
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      if (it->get() == region.get()) {
        pending_.erase(it);
        pending_count_.fetch_sub(1);
        break;
      }
    }
  }

 private:
  Pool() {
    int n = 0;
    if (const char* env = std::getenv("OPENACLNN_NUM_THREADS")) n = std::atoi(env);
    if (n <= 0) {
      cpu_set_t set;
      if (sched_getaffinity(0, sizeof(set), &set) == 0) n = CPU_COUNT(&set);
    }
    if (n <= 0) n = static_cast<int>(std::thread::hardware_concurrency());
    default_threads_ = n > 0 ? n : 1;
  }

  void EnsureWorkers(int count) {
    while (static_cast<int>(workers_.size()) < count) {
      workers_.emplace_back([this] { WorkerLoop(); });
      workers_.back().detach();
    }
  }

  void WorkerLoop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (pending_.empty()) {
        // Parallel regions come in bursts (one per operator phase): look again before sleeping.
        lock.unlock();
        SpinUntil([this] { return pending_count_.load() > 0; });
        lock.lock();
      }
      work_ready_.wait(lock, [this] { return !pending_.empty(); });
      std::shared_ptr<Region> region = pending_.front();
      if (--region->helpers_wanted <= 0) {
        pending_.pop_front();
        pending_count_.fetch_sub(1);
      }
      lock.unlock();
      region->Work();
      region.reset();
      lock.lock();
    }
  }

  int default_threads_ = 1;
  std::atomic<int> override_{0};
  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::deque<std::shared_ptr<Region>> pending_;
  std::atomic<int64_t> pending_count_{0};  // pending_.size(), readable without the mutex
  std::vector<std::thread> workers_;
};

}  // namespace

int NumThreads() { return Pool::Get().threads(); }
void SetNumThreads(int threads) { Pool::Get().set_override(threads > 0 ? threads : 0); }

void ParallelFor(int64_t num_tasks, const std::function<void(int64_t task)>& fn) {
  if (num_tasks <= 0) return;
  Pool::Get().Run(num_tasks, fn);
}

}  // namespace openaclnn::cpu

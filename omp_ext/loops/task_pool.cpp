// Task pools for threads: the library side of selfsched_tasks.h.
//
// The threads of one parallel region (opened by the caller's inline
// selfsched_task_pool_run, so this file uses no OpenMP runtime symbol and
// serves libomp and libgomp programs alike) share one priority queue
// (core/task_queue.hpp) under one lock, as seed 001's processors share
// their local queue. A thread with no current task waits on a condition
// variable; it is woken by a put, by a task finishing that completes a
// level or ends the pool, or by a stop. The pool ends when nothing is
// queued or running: while a task runs it may still put more, so the last
// thread to finish with an empty queue wakes everyone to leave.
//
// Tasks are expected to take tens of microseconds or more: a task costs one
// lock round trip to take and one to finish (about a microsecond with two
// threads contending).
#include "selfsched_tasks.h"

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>

#include "selfsched/core/task_queue.hpp"
#include "selfsched/machine/platform.hpp"

namespace selfsched::omp {
namespace {

thread_local std::string last_error;

int fail(const std::string& why) {
  last_error = "selfsched task pool: " + why;
  return -1;
}

constexpr std::size_t default_max_payload = 65536;

}  // namespace
}  // namespace selfsched::omp

namespace so = selfsched::omp;

struct selfsched_task_pool {
  int threads = 0;
  std::size_t max_payload = so::default_max_payload;

  std::mutex lock;  // guards everything below but the atomics
  std::condition_variable changed;
  selfsched::task_queue queue;
  int waiting = 0;       // threads in changed.wait
  bool running = false;  // between begin and end
  bool stopped = false;
  bool failed = false;
  selfsched_task_fn run = nullptr;
  void* context = nullptr;
  std::int64_t tasks = 0, discarded = 0, peak_queued = 0;
  std::int64_t started_ns = 0;
  int team = 0;
  std::atomic<std::int64_t> busy_ns{0}, idle_ns{0};

  explicit selfsched_task_pool(int async_levels) : queue(async_levels) {}

  // With the lock held.
  void stop_locked() {
    stopped = true;
    discarded += static_cast<std::int64_t>(queue.discard_queued());
    changed.notify_all();
  }
};

extern "C" selfsched_task_pool* selfsched_task_pool_create(const selfsched_task_pool_options* options) {
  so::last_error.clear();
  const selfsched_task_pool_options o = options ? *options : selfsched_task_pool_options SELFSCHED_TASK_POOL_OPTIONS_INIT;
  if (o.threads < 0) {
    so::fail("threads " + std::to_string(o.threads) + " is negative (0: the OpenMP default, or a count >= 1)");
    return nullptr;
  }
  if (o.async_levels < 0) {
    so::fail("async_levels " + std::to_string(o.async_levels) +
             " is negative (0: no limit, or the number of global iterations that may be in progress)");
    return nullptr;
  }
  auto* pool = new (std::nothrow) selfsched_task_pool(o.async_levels);
  if (!pool) {
    so::fail("out of memory");
    return nullptr;
  }
  pool->threads = o.threads;
  pool->max_payload = o.max_payload > 0 ? o.max_payload : so::default_max_payload;
  return pool;
}

extern "C" void selfsched_task_pool_destroy(selfsched_task_pool* pool) { delete pool; }

extern "C" int selfsched_task_pool_put(selfsched_task_pool* pool, const void* data, size_t size, int level,
                                       double priority) {
  if (!pool) return so::fail("put: the pool is NULL");
  if (const std::string why = selfsched::check_task(data, size, pool->max_payload, level, priority); !why.empty())
    return so::fail("put: " + why);
  std::string payload;
  try {
    payload.assign(static_cast<const char*>(data), size);
  } catch (const std::bad_alloc&) {
    return so::fail("put: out of memory for a task of " + std::to_string(size) + " bytes");
  }
  std::lock_guard guard(pool->lock);
  if (pool->stopped) {
    ++pool->discarded;
    return 0;
  }
  pool->queue.push(std::move(payload), level, priority);
  const auto queued = static_cast<std::int64_t>(pool->queue.queued());
  if (queued > pool->peak_queued) pool->peak_queued = queued;
  if (pool->waiting > 0) pool->changed.notify_one();
  return 0;
}

extern "C" void selfsched_task_pool_stop(selfsched_task_pool* pool) {
  if (!pool) return;
  std::lock_guard guard(pool->lock);
  if (pool->running) pool->stop_locked();
}

extern "C" int selfsched_task_pool_last_completed_level(selfsched_task_pool* pool) {
  if (!pool) return -1;
  std::lock_guard guard(pool->lock);
  return pool->queue.last_completed_level();
}

extern "C" const char* selfsched_task_pool_error(void) { return so::last_error.c_str(); }

extern "C" int selfsched_task_pool_begin(selfsched_task_pool* pool, selfsched_task_fn run, void* context,
                                         int default_threads) {
  so::last_error.clear();
  if (!pool) return so::fail("run: the pool is NULL");
  if (!run) return so::fail("run: the task function is NULL");
  std::lock_guard guard(pool->lock);
  if (pool->running) return so::fail("run: the pool is already running (runs do not nest)");
  pool->running = true;
  pool->stopped = false;
  pool->failed = false;
  pool->run = run;
  pool->context = context;
  pool->tasks = pool->discarded = 0;
  pool->peak_queued = static_cast<std::int64_t>(pool->queue.queued());
  pool->busy_ns = 0;
  pool->idle_ns = 0;
  pool->team = 0;
  pool->started_ns = so::now_ns();
  return pool->threads > 0 ? pool->threads : (default_threads > 0 ? default_threads : 1);
}

extern "C" void selfsched_task_pool_work(selfsched_task_pool* pool, int thread, int threads) {
  if (!pool) return;
  std::unique_lock guard(pool->lock);
  if (!pool->running) return;
  if (threads > pool->team) pool->team = threads;
  for (;;) {
    if (pool->stopped) break;
    std::optional<selfsched::queued_task> task = pool->queue.pop_current();
    if (!task) {
      if (pool->queue.done()) break;
      // Tasks are running (and may put more), or queued ones wait for a
      // level to complete.
      const std::int64_t from = so::now_ns();
      ++pool->waiting;
      pool->changed.wait(guard);
      --pool->waiting;
      pool->idle_ns += so::now_ns() - from;
      continue;
    }
    guard.unlock();
    const selfsched_task view{task->payload.data(), task->payload.size(), task->level, task->priority};
    const std::int64_t from = so::now_ns();
    const int status = pool->run(pool, &view, thread, pool->context);
    pool->busy_ns += so::now_ns() - from;
    guard.lock();
    ++pool->tasks;
    const int completed_before = pool->queue.last_completed_level();
    pool->queue.finish(task->level);
    if (status != 0) {
      pool->failed = true;
      if (!pool->stopped) pool->stop_locked();
    } else if (pool->waiting > 0 &&
               (pool->queue.done() || pool->queue.last_completed_level() != completed_before)) {
      pool->changed.notify_all();
    }
  }
  pool->changed.notify_all();  // the others may be waiting for the end
}

extern "C" int selfsched_task_pool_end(selfsched_task_pool* pool, selfsched_task_pool_report* report) {
  if (!pool) return so::fail("run: the pool is NULL");
  std::lock_guard guard(pool->lock);
  const std::int64_t ended = so::now_ns();
  pool->running = false;
  pool->stopped = false;  // what is put from now on is for the next run
  if (report) {
    *report = selfsched_task_pool_report{};
    report->threads = pool->team;
    report->tasks = pool->tasks;
    report->discarded = pool->discarded;
    report->last_completed_level = pool->queue.last_completed_level();
    report->peak_queued = pool->peak_queued;
    report->seconds = static_cast<double>(ended - pool->started_ns) * 1e-9;
    report->busy_seconds = static_cast<double>(pool->busy_ns.load()) * 1e-9;
    report->idle_seconds = static_cast<double>(pool->idle_ns.load()) * 1e-9;
  }
  if (pool->failed) return so::fail("run: a task returned non-zero; the pool was stopped");
  return 0;
}

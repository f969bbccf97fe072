// selfsched task pools for C++: tasks that create tasks as they run, shared
// by the threads of an OpenMP parallel region (selfsched_tasks.h says how).
//
//   selfsched::task_pool pool({.async_levels = 2});
//   pool.put(node{root}, /*level=*/0, /*priority=*/1.0);
//   auto report = pool.run([&](const selfsched::task& t) {
//     const node n = t.as<node>();
//     for (const node& child : expand(n)) pool.put(child, t.level() + 1);
//   });
//
// Payloads are copied bytes: put() takes trivially copyable values,
// put_bytes() a pointer and a size. Bad options or arguments throw
// selfsched::task_pool_error; an exception from the body stops the pool and
// is rethrown from run() once the threads have joined.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "selfsched_tasks.h"

namespace selfsched {

struct task_pool_options {
  int threads = 0;               // 0: omp_get_max_threads()
  int async_levels = 0;          // global iterations in progress at most; 0: no limit
  std::size_t max_payload = 0;   // bytes per task; 0: 65536
};

using task_pool_report = selfsched_task_pool_report;

class task_pool_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// What a task's payload may be: its bytes are copied (across ranks, sent),
// so a trivially copyable value, never a pointer (put_bytes copies what one
// points to).
template <typename T>
inline constexpr bool is_task_value =
    std::is_trivially_copyable_v<T> && !std::is_pointer_v<T> && !std::is_null_pointer_v<T>;

class task {
 public:
  explicit task(const selfsched_task& t, int thread) : t_(t), thread_(thread) {}
  const void* data() const { return t_.data; }
  std::size_t size() const { return t_.size; }
  int level() const { return t_.level; }
  double priority() const { return t_.priority; }
  int thread() const { return thread_; }
  // The payload as the value put; throws if the sizes differ.
  template <typename T>
  T as() const {
    static_assert(std::is_trivially_copyable_v<T>, "selfsched::task::as: a trivially copyable type");
    if (t_.size != sizeof(T))
      throw task_pool_error("selfsched task pool: a task of " + std::to_string(t_.size) + " bytes read as " +
                            std::to_string(sizeof(T)) + " bytes");
    T value;
    std::memcpy(&value, t_.data, sizeof(T));
    return value;
  }

 private:
  const selfsched_task& t_;
  int thread_;
};

class task_pool {
 public:
  explicit task_pool(const task_pool_options& options = {}) {
    const selfsched_task_pool_options o{options.threads, options.async_levels, options.max_payload};
    pool_ = selfsched_task_pool_create(&o);
    if (!pool_) throw task_pool_error(selfsched_task_pool_error());
  }
  ~task_pool() { selfsched_task_pool_destroy(pool_); }
  task_pool(const task_pool&) = delete;
  task_pool& operator=(const task_pool&) = delete;

  // A copy of value as a task; before run() or from a task; thread-safe.
  template <typename T>
  void put(const T& value, int level = 0, double priority = 0) {
    static_assert(is_task_value<T>, "selfsched::task_pool::put: a trivially copyable value, not a pointer");
    put_bytes(&value, sizeof(T), level, priority);
  }
  // A copy of size bytes at data as a task.
  void put_bytes(const void* data, std::size_t size, int level = 0, double priority = 0) {
    if (selfsched_task_pool_put(pool_, data, size, level, priority) != 0)
      throw task_pool_error(selfsched_task_pool_error());
  }
  // From a task: no new task starts; queued ones are discarded.
  void stop() { selfsched_task_pool_stop(pool_); }
  int last_completed_level() { return selfsched_task_pool_last_completed_level(pool_); }

  // Runs body(const task&) on every task until none is queued or running,
  // or until stop().
  template <typename Body>
  task_pool_report run(Body&& body) {
    runner<std::remove_reference_t<Body>> r{body};
    task_pool_report report{};
    const int status = selfsched_task_pool_run(pool_, &runner<std::remove_reference_t<Body>>::call, &r, &report);
    if (r.error) std::rethrow_exception(r.error);
    if (status != 0) throw task_pool_error(selfsched_task_pool_error());
    return report;
  }

  selfsched_task_pool* native() { return pool_; }

 private:
  template <typename Body>
  struct runner {
    Body& body;
    std::exception_ptr error{};
    std::atomic<bool> failed{false};
    static int call(selfsched_task_pool*, const selfsched_task* t, int thread, void* self) {
      auto& r = *static_cast<runner*>(self);
      try {
        r.body(task(*t, thread));
      } catch (...) {
        if (!r.failed.exchange(true)) r.error = std::current_exception();
        return 1;
      }
      return 0;
    }
  };

  selfsched_task_pool* pool_;
};

}  // namespace selfsched

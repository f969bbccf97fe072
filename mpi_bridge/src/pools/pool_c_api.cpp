// selfsched_mpi_tasks.h: the C face of selfsched::mpi::task_pool.
#include "selfsched_mpi_tasks.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "selfsched/mpi_tasks.hpp"

namespace {

thread_local std::string last_error;

int fail(const std::string& why) {
  last_error = why;
  return -1;
}

// A C task's non-zero status, carried through the C++ pool as an exception.
struct task_failed : std::exception {
  int status;
  explicit task_failed(int s) : status(s) {}
};

}  // namespace

struct selfsched_mpi_task_pool {
  std::unique_ptr<selfsched::mpi::task_pool> pool;
};

extern "C" selfsched_mpi_task_pool* selfsched_mpi_task_pool_create(MPI_Comm comm,
                                                                   const selfsched_mpi_task_pool_options* options) {
  last_error.clear();
  selfsched::mpi::task_pool_options o;
  if (options) {
    o.strategy = options->strategy ? options->strategy : "";
    o.threads = options->threads;
    o.async_levels = options->async_levels;
    o.max_payload = options->max_payload;
    o.transfer = options->transfer ? options->transfer : "";
  }
  try {
    return new selfsched_mpi_task_pool{std::make_unique<selfsched::mpi::task_pool>(comm, o)};
  } catch (const std::exception& e) {
    fail(e.what());
    return nullptr;
  }
}

extern "C" void selfsched_mpi_task_pool_destroy(selfsched_mpi_task_pool* pool) { delete pool; }

extern "C" int selfsched_mpi_task_pool_put(selfsched_mpi_task_pool* pool, const void* data, size_t size, int level,
                                           double priority) {
  if (!pool) return fail("selfsched task pool: put: the pool is NULL");
  try {
    pool->pool->put_bytes(data, size, level, priority);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  return 0;
}

extern "C" void selfsched_mpi_task_pool_stop(selfsched_mpi_task_pool* pool) {
  if (pool) pool->pool->stop();
}

extern "C" int selfsched_mpi_task_pool_run(selfsched_mpi_task_pool* pool, selfsched_mpi_task_fn run, void* context,
                                           selfsched_mpi_task_pool_report* report) {
  last_error.clear();
  if (!pool) return fail("selfsched task pool: run: the pool is NULL");
  // A NULL function on one rank cannot leave the others waiting: it runs
  // the pool with a body that fails at the first task.
  const bool bad = run == nullptr;
  int status = 0;
  selfsched::mpi::task_pool_report r;
  try {
    r = pool->pool->run([&](const selfsched::task& t) {
      if (bad) throw task_failed(-1);
      const selfsched_task view{t.data(), t.size(), t.level(), t.priority()};
      if (const int s = run(pool, &view, t.thread(), context); s != 0) throw task_failed(s);
    });
  } catch (const task_failed& f) {
    status = fail("selfsched task pool: a task returned " + std::to_string(f.status) + "; the pool was stopped");
  } catch (const std::exception& e) {
    status = fail(e.what());
  }
  if (bad) status = fail("selfsched task pool: run: the task function is NULL");
  if (report) {
    *report = selfsched_mpi_task_pool_report{};
    std::snprintf(report->strategy, sizeof report->strategy, "%s", r.strategy.c_str());
    report->rank = r.rank;
    report->ranks = r.ranks;
    report->threads = r.threads;
    report->tasks = r.tasks;
    report->tasks_everywhere = r.tasks_everywhere;
    report->discarded = r.discarded;
    report->last_completed_level = r.last_completed_level;
    report->seconds = r.seconds;
    report->busy_seconds = r.busy_seconds;
    report->idle_seconds = r.idle_seconds;
    report->utilization_min = r.utilization_min;
    report->utilization_max = r.utilization_max;
    report->server_utilization = r.server_utilization;
    report->messages_sent = r.messages_sent;
  }
  return status;
}

extern "C" const char* selfsched_mpi_task_pool_error(void) { return last_error.c_str(); }

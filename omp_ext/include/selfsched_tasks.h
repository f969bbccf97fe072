/* selfsched task pools: work that creates work as it runs (branch and bound,
 * adaptive refinement, tree search, global optimization), which no loop
 * schedule can serve. Seed 001 (Smith & Schnabel): tasks with a level (the
 * global iteration of the task precedence tree) and a priority, kept in a
 * priority queue that the threads of an OpenMP parallel region share.
 *
 *   selfsched_task_pool* pool = selfsched_task_pool_create(NULL);
 *   selfsched_task_pool_put(pool, &root, sizeof root, 0, 0.0);
 *   selfsched_task_pool_run(pool, visit, &context, &report);   // visit may put tasks
 *   selfsched_task_pool_destroy(pool);
 *
 * Order: every task of level k before any of level k + 1, then the higher
 * priority first, then the order of arrival. With an asynchronicity level
 * a > 0, a task of level k starts only once every task of level k - a and
 * below has finished (at most a global iterations in progress). The pool
 * ends when no task is queued or running, or when a task stops it. The call
 * opens the parallel region itself; see docs/tasks.md. C++:
 * selfsched/task_pool.hpp. */
#ifndef SELFSCHED_TASKS_H
#define SELFSCHED_TASKS_H

#include <stddef.h>
#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct selfsched_task_pool selfsched_task_pool;

typedef struct selfsched_task_pool_options {
  int threads;        /* 0: omp_get_max_threads() */
  int async_levels;   /* the asynchronicity level; 0: no limit */
  size_t max_payload; /* bytes per task; 0: 65536. Larger puts are refused. */
} selfsched_task_pool_options;

#define SELFSCHED_TASK_POOL_OPTIONS_INIT {0, 0, 0}

/* A task as its callback sees it; data is valid during the call only. */
typedef struct selfsched_task {
  const void* data;
  size_t size;
  int level;
  double priority;
} selfsched_task;

typedef struct selfsched_task_pool_report {
  int threads;
  int64_t tasks;            /* run */
  int64_t discarded;        /* queued when the pool was stopped, or put after */
  int last_completed_level; /* -1: none */
  int64_t peak_queued;
  double seconds;           /* the parallel region, wall clock */
  double busy_seconds;      /* summed over threads: inside callbacks */
  double idle_seconds;      /* summed over threads: waiting for a task */
} selfsched_task_pool_report;

/* Runs one task on thread `thread` (0 .. threads-1). It may put tasks into
 * the pool and stop it. Non-zero: stop the pool (no new task starts, queued
 * tasks are discarded) and make run return -1. */
typedef int (*selfsched_task_fn)(selfsched_task_pool* pool, const selfsched_task* task, int thread,
                                 void* context);

/* NULL options: the defaults. Returns NULL (selfsched_task_pool_error()
 * says why) on bad options. */
selfsched_task_pool* selfsched_task_pool_create(const selfsched_task_pool_options* options);
void selfsched_task_pool_destroy(selfsched_task_pool* pool);

/* Queues a copy of size bytes. Before run or from a task; thread-safe.
 * Returns 0, or -1 with the reason in selfsched_task_pool_error(): a
 * negative level, a NaN priority, size above max_payload, data NULL with
 * size > 0. From a stop to the end of that run, puts are discarded (and
 * 0 returned). */
int selfsched_task_pool_put(selfsched_task_pool* pool, const void* data, size_t size, int level,
                            double priority);

/* From a task: no new task starts; queued ones are discarded. */
void selfsched_task_pool_stop(selfsched_task_pool* pool);

/* The last global iteration completed so far (-1: none); thread-safe. */
int selfsched_task_pool_last_completed_level(selfsched_task_pool* pool);

/* The reason the last failing call of this thread failed. */
const char* selfsched_task_pool_error(void);

/* The library side of run, for the inline function below: begin checks and
 * returns the team size (the options' threads, else default_threads), or
 * -1; each thread of one parallel region then calls work with its thread
 * number and the team's size; end fills the report. */
int selfsched_task_pool_begin(selfsched_task_pool* pool, selfsched_task_fn run, void* context, int default_threads);
void selfsched_task_pool_work(selfsched_task_pool* pool, int thread, int threads);
int selfsched_task_pool_end(selfsched_task_pool* pool, selfsched_task_pool_report* report);

#ifdef _OPENMP
/* Runs the pool's tasks until none is queued or running, or until a stop.
 * Returns 0, or -1 (a callback failed, or bad arguments: see
 * selfsched_task_pool_error()). report may be NULL. */
static inline int selfsched_task_pool_run(selfsched_task_pool* pool, selfsched_task_fn run, void* context,
                                          selfsched_task_pool_report* report) {
  const int threads = selfsched_task_pool_begin(pool, run, context, omp_get_max_threads());
  if (threads < 0) return -1;
#pragma omp parallel num_threads(threads)
  selfsched_task_pool_work(pool, omp_get_thread_num(), omp_get_num_threads());
  return selfsched_task_pool_end(pool, report);
}
#endif

#ifdef __cplusplus
}
#endif

#endif

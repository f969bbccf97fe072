/* selfsched task pools shared by MPI ranks, from C (selfsched/mpi_tasks.hpp
 * for C++ and the rules; docs/tasks.md). Tasks are those of
 * selfsched_tasks.h: bytes with a level and a priority.
 *
 *   selfsched_mpi_task_pool_options o = SELFSCHED_MPI_TASK_POOL_OPTIONS_INIT;
 *   o.strategy = "mediation";
 *   selfsched_mpi_task_pool* pool = selfsched_mpi_task_pool_create(MPI_COMM_WORLD, &o);   // collective
 *   if (rank == 0) selfsched_mpi_task_pool_put(pool, &root, sizeof root, 0, 0.0);
 *   selfsched_mpi_task_pool_run(pool, visit, &context, &report);                          // collective
 *   selfsched_mpi_task_pool_destroy(pool);                                                // collective
 *
 * Link -lselfsched_mpi -lselfsched before the OpenMP runtime. */
#ifndef SELFSCHED_MPI_TASKS_H
#define SELFSCHED_MPI_TASKS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "selfsched_tasks.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct selfsched_mpi_task_pool selfsched_mpi_task_pool;

typedef struct selfsched_mpi_task_pool_options {
  const char* strategy; /* central, mediation, hier-mediation, receiver, sender; NULL: SELFSCHED_POOL_STRATEGY, else central */
  int threads;          /* per rank; 0: omp_get_max_threads() */
  int async_levels;     /* global iterations in progress at most; 0: no limit */
  size_t max_payload;   /* bytes per task; 0: 65536 */
  const char* transfer; /* priority or threshold (selfsched/mpi_tasks.hpp); NULL: SELFSCHED_POOL_TRANSFER */
} selfsched_mpi_task_pool_options;

#define SELFSCHED_MPI_TASK_POOL_OPTIONS_INIT {NULL, 0, 0, 0, NULL}

typedef struct selfsched_mpi_task_pool_report {
  char strategy[16];
  int rank, ranks, threads;
  int64_t tasks;            /* run on this rank */
  int64_t tasks_everywhere; /* run on all ranks */
  int64_t discarded;        /* everywhere, after a stop */
  int last_completed_level;
  double seconds, busy_seconds, idle_seconds; /* this rank */
  double utilization_min, utilization_max;    /* over the ranks that run tasks */
  double server_utilization;                  /* rank 0's master or mediator */
  int64_t messages_sent;
} selfsched_mpi_task_pool_report;

/* Runs one task on thread `thread` of this rank; it may put tasks and stop
 * the pool. Non-zero: stop the pool everywhere, and run returns -1 here. */
typedef int (*selfsched_mpi_task_fn)(selfsched_mpi_task_pool* pool, const selfsched_task* task, int thread,
                                     void* context);

/* Collective. NULL options: the defaults. NULL on every rank, with the same
 * reason in selfsched_mpi_task_pool_error(), on bad options. */
selfsched_mpi_task_pool* selfsched_mpi_task_pool_create(MPI_Comm comm, const selfsched_mpi_task_pool_options* options);
/* Collective (frees the pool's communicator). */
void selfsched_mpi_task_pool_destroy(selfsched_mpi_task_pool* pool);
/* Before run or from a task; thread-safe. 0, or -1 and the reason. */
int selfsched_mpi_task_pool_put(selfsched_mpi_task_pool* pool, const void* data, size_t size, int level,
                                double priority);
void selfsched_mpi_task_pool_stop(selfsched_mpi_task_pool* pool);
/* Collective: until no task is queued or running on any rank, or a stop.
 * 0, or -1 on this rank if one of its tasks failed (or bad arguments). The
 * report (may be NULL) is filled when run returns 0. */
int selfsched_mpi_task_pool_run(selfsched_mpi_task_pool* pool, selfsched_mpi_task_fn run, void* context,
                                selfsched_mpi_task_pool_report* report);
const char* selfsched_mpi_task_pool_error(void);

#ifdef __cplusplus
}
#endif

#endif

/* Task pools across ranks from C (selfsched_mpi_tasks.h): a binary tree of
 * depth D put as one root on the last rank, every node a task that puts its
 * two children; each node must run exactly once across the ranks, levels
 * must complete to the deepest; a task that fails stops the pool on every
 * rank and makes run return -1 where it failed; bad options are named.
 * Prints "mpi_task_pool_c: ... ok=1" on rank 0.
 *
 *   mpi_task_pool_c STRATEGY */
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selfsched_mpi_tasks.h"

enum { depth = 11 };

typedef struct node {
  int depth;
  long index; /* level order: the children of i are 2i+1 and 2i+2 */
} node;

static atomic_int runs[(1 << depth) - 1];
static atomic_int wrong_level;

static int visit(selfsched_mpi_task_pool* pool, const selfsched_task* task, int thread, void* context) {
  (void)thread;
  (void)context;
  if (task->size != sizeof(node)) return 1;
  node n;
  memcpy(&n, task->data, sizeof n);
  if (n.depth != task->level) atomic_fetch_add(&wrong_level, 1);
  atomic_fetch_add(&runs[n.index], 1);
  for (long k = 1; k <= 2 && n.depth + 1 < depth; ++k) {
    node child = {n.depth + 1, 2 * n.index + k};
    if (selfsched_mpi_task_pool_put(pool, &child, sizeof child, child.depth, (double)k) != 0) return 1;
  }
  return 0;
}

static int fail_at_7(selfsched_mpi_task_pool* pool, const selfsched_task* task, int thread, void* context) {
  (void)pool;
  (void)thread;
  (void)context;
  int value;
  memcpy(&value, task->data, sizeof value);
  return value == 7 ? 42 : 0;
}

int main(int argc, char** argv) {
  int provided = 0, rank = 0, ranks = 1, failures = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  selfsched_mpi_task_pool_options options = SELFSCHED_MPI_TASK_POOL_OPTIONS_INIT;
  options.strategy = argc > 1 ? argv[1] : "central";

  /* The tree. */
  selfsched_mpi_task_pool* pool = selfsched_mpi_task_pool_create(MPI_COMM_WORLD, &options);
  if (!pool) {
    fprintf(stderr, "mpi_task_pool_c: %s\n", selfsched_mpi_task_pool_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == ranks - 1) {
    node root = {0, 0};
    selfsched_mpi_task_pool_put(pool, &root, sizeof root, 0, 0.0);
  }
  selfsched_mpi_task_pool_report report;
  if (selfsched_mpi_task_pool_run(pool, visit, NULL, &report) != 0) {
    fprintf(stderr, "mpi_task_pool_c: rank %d: %s\n", rank, selfsched_mpi_task_pool_error());
    ++failures;
  }
  const long nodes = (1L << depth) - 1;
  int mine[(1 << depth) - 1], all[(1 << depth) - 1];
  for (long i = 0; i < nodes; ++i) mine[i] = atomic_load(&runs[i]);
  MPI_Allreduce(mine, all, (int)nodes, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (long i = 0; i < nodes; ++i)
    if (all[i] != 1) {
      if (rank == 0) fprintf(stderr, "mpi_task_pool_c: node %ld ran %d times\n", i, all[i]);
      ++failures;
      break;
    }
  if (report.tasks_everywhere != nodes || report.last_completed_level != depth - 1 || atomic_load(&wrong_level)) {
    fprintf(stderr, "mpi_task_pool_c: rank %d: %lld tasks, last level %d, %d at a wrong level\n", rank,
            (long long)report.tasks_everywhere, report.last_completed_level, atomic_load(&wrong_level));
    ++failures;
  }

  /* A failing task: -1 where it ran, the pool stopped everywhere. */
  if (rank == 0)
    for (int i = 0; i < 100; ++i) selfsched_mpi_task_pool_put(pool, &i, sizeof i, 0, 0.0);
  const int failed_here = selfsched_mpi_task_pool_run(pool, fail_at_7, NULL, NULL) != 0;
  int failed_ranks = 0;
  MPI_Allreduce(&failed_here, &failed_ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (failed_ranks != 1) {
    if (rank == 0) fprintf(stderr, "mpi_task_pool_c: %d ranks saw the failing task\n", failed_ranks);
    ++failures;
  }
  if (failed_here && !strstr(selfsched_mpi_task_pool_error(), "a task returned 42")) {
    fprintf(stderr, "mpi_task_pool_c: %s\n", selfsched_mpi_task_pool_error());
    ++failures;
  }
  selfsched_mpi_task_pool_destroy(pool);

  /* Bad options: NULL on every rank, the value named. */
  selfsched_mpi_task_pool_options bad = SELFSCHED_MPI_TASK_POOL_OPTIONS_INIT;
  bad.strategy = "centre";
  if (selfsched_mpi_task_pool_create(MPI_COMM_WORLD, &bad) != NULL ||
      !strstr(selfsched_mpi_task_pool_error(), "unknown strategy 'centre'")) {
    fprintf(stderr, "mpi_task_pool_c: rank %d: bad strategy accepted or not named (%s)\n", rank,
            selfsched_mpi_task_pool_error());
    ++failures;
  }

  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("mpi_task_pool_c: strategy=%s ranks=%d failures=%d ok=%d\n", options.strategy, ranks, total,
                        total == 0);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}

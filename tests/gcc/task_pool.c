/* The task pool's C API from a C program built with gcc (libgomp): a
 * binary tree of depth D where every node is a task that puts its two
 * children; each node must run exactly once, and a task at the last level
 * stops nothing. Prints "nodes=N runs_ok=1 ok=1" or says what went wrong.
 *
 *   task_pool_c [depth] [async_levels] */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "selfsched_tasks.h"

typedef struct node {
  int depth;
  long index; /* in level order: children of i are 2i+1, 2i+2 */
} node;

typedef struct context {
  int depth;
  atomic_int* runs;
  atomic_int wrong_level;
} context;

static int visit(selfsched_task_pool* pool, const selfsched_task* task, int thread, void* data) {
  context* c = (context*)data;
  (void)thread;
  if (task->size != sizeof(node)) return 1;
  const node* n = (const node*)task->data;
  if (n->depth != task->level) atomic_fetch_add(&c->wrong_level, 1);
  atomic_fetch_add(&c->runs[n->index], 1);
  if (n->depth + 1 < c->depth) {
    for (long k = 1; k <= 2; ++k) {
      node child = {n->depth + 1, 2 * n->index + k};
      if (selfsched_task_pool_put(pool, &child, sizeof child, child.depth, (double)(k)) != 0) return 1;
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  const int depth = argc > 1 ? atoi(argv[1]) : 12;
  const int async_levels = argc > 2 ? atoi(argv[2]) : 0;
  const long nodes = (1L << depth) - 1;
  context c = {depth, calloc((size_t)nodes, sizeof(atomic_int)), 0};
  selfsched_task_pool_options options = SELFSCHED_TASK_POOL_OPTIONS_INIT;
  options.async_levels = async_levels;
  selfsched_task_pool* pool = selfsched_task_pool_create(&options);
  if (!pool || !c.runs) {
    fprintf(stderr, "task_pool_c: %s\n", selfsched_task_pool_error());
    return 1;
  }
  node root = {0, 0};
  selfsched_task_pool_put(pool, &root, sizeof root, 0, 0.0);
  selfsched_task_pool_report report;
  if (selfsched_task_pool_run(pool, visit, &c, &report) != 0) {
    fprintf(stderr, "task_pool_c: %s\n", selfsched_task_pool_error());
    return 1;
  }
  int runs_ok = report.tasks == nodes && atomic_load(&c.wrong_level) == 0 &&
                report.last_completed_level == depth - 1;
  for (long i = 0; i < nodes; ++i)
    if (atomic_load(&c.runs[i]) != 1) runs_ok = 0;
  /* Bad input from C: a negative level names the value. */
  int refused = selfsched_task_pool_put(pool, &root, sizeof root, -3, 0.0) == -1;
  printf("nodes=%ld tasks=%lld threads=%d runs_ok=%d refused=%d ok=%d\n", nodes, (long long)report.tasks,
         report.threads, runs_ok, refused, runs_ok && refused);
  if (!refused) fprintf(stderr, "task_pool_c: a negative level was accepted\n");
  else fprintf(stderr, "%s\n", selfsched_task_pool_error());
  selfsched_task_pool_destroy(pool);
  free(c.runs);
  return runs_ok && refused ? 0 : 1;
}

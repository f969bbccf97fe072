/* selfsched wavefronts: loop nests with uniform dependences, which an
 * OpenMP pragma cannot schedule dynamically, run with mechanism S of Ciorba
 * et al. (JPDC 2008, seed 000 sec. 3) and any selfsched technique.
 *
 * The iteration space is cut into chunks along the chunk dimension u_c by
 * the technique ("s-fss", "s-gss", "sw-tss" ...; "sw-" adds weighting W).
 * Each chunk runs in intervals of SI = ceil(U_s / #SP) iterations along the
 * synchronization dimension u_s; the thread on chunk k starts an interval
 * only when the thread on chunk k-1 has passed the synchronization point at
 * its end. The threads are those of an OpenMP parallel region the call
 * opens. See docs/dependence.md; C++: selfsched/wavefront.hpp. */
#ifndef SELFSCHED_WAVEFRONT_H
#define SELFSCHED_WAVEFRONT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct selfsched_wavefront_options {
  /* Technique, e.g. "s-fss", "sw-gss,10" (",k": minimum chunk, or css's
   * chunk). NULL or "": the technique chosen for schedule(runtime) loops
   * (SELFSCHED_SCHEDULE / OMP_SCHEDULE / selfsched_set_schedule) if any,
   * else "s-fss". S is implied: "fss" means "s-fss". */
  const char* technique;
  /* #SP, synchronization points per chunk. 0: SELFSCHED_SYNC_POINTS if set,
   * else 3 x threads (seed 000 sec. 3.3: #SP >= 3m). */
  int64_t sync_points;
  /* u_c and u_s as dimension numbers (0 = outermost as written), or -1:
   * u_s the longest dimension, u_c the longest of the others, the next legal
   * pair if the dependences forbid that one. */
  int chunk_dim;
  int sync_dim;
  int threads;       /* 0: omp_get_max_threads() */
  int64_t min_chunk; /* lower threshold on chunks along u_c; 0: 1 */
  int64_t max_chunk; /* upper threshold; 0: none */
} selfsched_wavefront_options;

#define SELFSCHED_WAVEFRONT_OPTIONS_INIT {NULL, 0, -1, -1, 0, 0, 0}

/* One chunk in hand-out order (along u_c after the skew; see the report). */
typedef struct selfsched_wavefront_chunk {
  int64_t start;
  int64_t size;
  int thread;
} selfsched_wavefront_chunk;

typedef struct selfsched_wavefront_report {
  char technique[64];     /* canonical name, e.g. "sw-fss" */
  int threads;
  int sync_dim, chunk_dim;
  int64_t skew;           /* chunks are cut along c' = c + skew * s */
  int64_t chunk_extent;   /* U_c + skew (U_s - 1) */
  int64_t sync_points, sync_interval, intervals;  /* #SP, SI, SPs placed */
  int64_t chunks;
  double seconds;         /* the parallel region, wall clock */
  double wait_seconds;    /* summed over threads: blocked at synchronization points */
  /* In: an optional buffer; out: its first chunk_log_capacity chunks. */
  selfsched_wavefront_chunk* chunk_log;
  int64_t chunk_log_capacity;
} selfsched_wavefront_report;

/* Called once per iteration, in an order that honours the dependences;
 * index[0 .. rank-1]. */
typedef void (*selfsched_wavefront_body)(const int64_t* index, void* context);

/* Runs the iteration space [0, extents[0]) x ... (rank 2 or 3). A
 * dependence vector d (row d of `dependences`, dependence_count x rank,
 * row-major) says iteration x needs x - d to have run first; list every
 * flow, anti and output dependence. Returns 0; -1 when the problem, the
 * technique or the options are invalid (nothing ran;
 * selfsched_wavefront_error() says why: the bad value and what is valid);
 * -2 when a run callback stopped it. `report` may be NULL. Do not call it
 * from inside a parallel region unless nested parallelism is enabled. */
int selfsched_wavefront(int rank, const int64_t* extents, const int64_t* dependences, int dependence_count,
                        const selfsched_wavefront_options* options, selfsched_wavefront_body body, void* context,
                        selfsched_wavefront_report* report);

/* The same with one call per run of consecutive iterations: index `start`,
 * then start + e_dim, ..., count in all (dim is the innermost dimension of
 * the order inside an interval). A non-zero return stops the wavefront. */
typedef int (*selfsched_wavefront_run)(void* context, const int64_t* start, int dim, int64_t count);
int selfsched_wavefront_runs(int rank, const int64_t* extents, const int64_t* dependences, int dependence_count,
                             const selfsched_wavefront_options* options, selfsched_wavefront_run run, void* context,
                             selfsched_wavefront_report* report);

/* Why the last call on this thread returned non-zero ("" after success). */
const char* selfsched_wavefront_error(void);

#ifdef __cplusplus
}
#endif

#endif

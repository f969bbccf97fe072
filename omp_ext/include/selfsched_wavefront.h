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
#ifdef _OPENMP
#include <omp.h>
#endif

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
  /* In: an optional buffer; out: the first chunk_log_capacity chunks (at
   * most 16384 are kept). */
  selfsched_wavefront_chunk* chunk_log;
  int64_t chunk_log_capacity;
} selfsched_wavefront_report;

/* Called once per iteration, in an order that honours the dependences;
 * index[0 .. rank-1]. */
typedef void (*selfsched_wavefront_body)(const int64_t* index, void* context);

/* Called once per run of consecutive iterations: index `start`, then
 * start + e_dim, ..., count in all (dim is the innermost dimension of the
 * order inside an interval). A non-zero return stops the wavefront. */
typedef int (*selfsched_wavefront_run)(void* context, const int64_t* start, int dim, int64_t count);

/* The library side, for the inline functions below: prepare checks the
 * problem and returns NULL (and selfsched_wavefront_error() says why) if it
 * is invalid; each thread of one parallel region then calls work with its
 * number and the team size; finish frees the wavefront, fills `report` (may
 * be NULL) and returns 0, or -2 when a run callback stopped it. The region
 * is opened in the caller's code, so libselfsched itself needs no OpenMP
 * runtime symbols and can be preloaded anywhere. */
typedef struct selfsched_wavefront_state selfsched_wavefront_t;
selfsched_wavefront_t* selfsched_wavefront_prepare(int rank, const int64_t* extents, const int64_t* dependences,
                                                   int dependence_count, const selfsched_wavefront_options* options,
                                                   selfsched_wavefront_run run, void* context);
void selfsched_wavefront_work(selfsched_wavefront_t* wavefront, int thread, int team_size);
int selfsched_wavefront_finish(selfsched_wavefront_t* wavefront, selfsched_wavefront_report* report);

/* Why the last call on this thread returned non-zero ("" after success). */
const char* selfsched_wavefront_error(void);

/* Runs the iteration space [0, extents[0]) x ... (rank 2 or 3) with one
 * call of `run` per run of consecutive iterations. A dependence vector d
 * (row d of `dependences`, dependence_count x rank, row-major) says
 * iteration x needs x - d to have run first; list every flow, anti and
 * output dependence. Returns 0; -1 when the problem, the technique or the
 * options are invalid (nothing ran; selfsched_wavefront_error() says why:
 * the bad value and what is valid); -2 when `run` stopped it. `options` and
 * `report` may be NULL. Compile with -fopenmp (without, one thread runs it).
 * Called inside a parallel region, the team is a nested one. */
static inline int selfsched_wavefront_runs(int rank, const int64_t* extents, const int64_t* dependences,
                                           int dependence_count, const selfsched_wavefront_options* options,
                                           selfsched_wavefront_run run, void* context,
                                           selfsched_wavefront_report* report) {
  selfsched_wavefront_t* w =
      selfsched_wavefront_prepare(rank, extents, dependences, dependence_count, options, run, context);
  if (w == NULL) return -1;
#ifdef _OPENMP
  const int threads = options != NULL && options->threads > 0 ? options->threads : omp_get_max_threads();
#pragma omp parallel num_threads(threads)
  selfsched_wavefront_work(w, omp_get_thread_num(), omp_get_num_threads());
#else
  selfsched_wavefront_work(w, 0, 1);
#endif
  return selfsched_wavefront_finish(w, report);
}

struct selfsched_wavefront_point {
  selfsched_wavefront_body body;
  void* context;
};

static inline int selfsched_wavefront_point_run(void* context, const int64_t* start, int dim, int64_t count) {
  const struct selfsched_wavefront_point* p = (const struct selfsched_wavefront_point*)context;
  int64_t index[3] = {start[0], start[1], start[2]};
  for (int64_t k = 0; k < count; ++k, ++index[dim]) p->body(index, p->context);
  return 0;
}

/* The same with one call of `body` per iteration. */
static inline int selfsched_wavefront(int rank, const int64_t* extents, const int64_t* dependences,
                                      int dependence_count, const selfsched_wavefront_options* options,
                                      selfsched_wavefront_body body, void* context,
                                      selfsched_wavefront_report* report) {
  struct selfsched_wavefront_point point = {body, context};
  return selfsched_wavefront_runs(rank, extents, dependences, dependence_count, options,
                                  body != NULL ? selfsched_wavefront_point_run : NULL, &point, report);
}

#ifdef __cplusplus
}
#endif

#endif

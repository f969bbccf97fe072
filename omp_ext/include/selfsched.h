/* selfsched: self-scheduling techniques for OpenMP schedule(runtime) loops.
 *
 * Most programs need no call at all: link libselfsched before libomp (or
 * LD_PRELOAD it) and set OMP_SCHEDULE=<technique>, e.g. fss, w-gss,4, tss-80.
 * These calls choose the technique from code instead. */
#ifndef SELFSCHED_H
#define SELFSCHED_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Serve schedule(runtime) loops with technique `name` (any catalog name with
 * its w-/s-/sw- prefix and -alpha suffix; an optional ",k" in the name or
 * chunk > 0 sets the minimum chunk). NULL or "" gives runtime loops back to
 * libomp's run-sched-var. Returns 0, or -1 for an unknown name (one message
 * on stderr names it and the valid choices; the previous choice stays).
 * Like omp_set_schedule, it applies to the calling task: outside parallel
 * regions, to the whole program; inside one, to the regions this thread
 * starts next (the loops of the current team keep their technique). */
int selfsched_set_schedule(const char* name, long chunk);

/* Writes the calling task's technique (e.g. "w-gss,4") into buf, "" when
 * runtime loops follow libomp (also once libomp has ended selfsched's tool:
 * omp_pause_resource_all(omp_pause_hard)). Returns the length it needs,
 * excluding the NUL. */
size_t selfsched_get_schedule(char* buf, size_t size);

/* Writes the profile gathered so far (SELFSCHED_PROFILE must be set; it is
 * also written there at exit) as JSON to `path`. Returns 0, or -1 when
 * profiling is off or the file cannot be written. */
int selfsched_write_profile(const char* path);

#ifdef __cplusplus
}
#endif

#endif

/* selfsched MPI regions from C: the schedule(runtime) loops run between
 * selfsched_mpi_region_begin() and selfsched_mpi_region_end() are shared by
 * the ranks of the communicator (see selfsched/mpi.hpp for the C++ API and
 * the rules: every rank runs the same shared loops with the same bounds).
 *
 *   selfsched_mpi_options* o = selfsched_mpi_options_new();
 *   selfsched_mpi_gather_rows(o, image, row_bytes, 0);
 *   selfsched_mpi_region* r = selfsched_mpi_region_begin(MPI_COMM_WORLD, o);
 *   #pragma omp parallel for schedule(runtime)
 *   for (long row = 0; row < rows; ++row) compute(row);
 *   selfsched_mpi_region_end(r);
 *   selfsched_mpi_options_free(o);
 *
 * Link -lselfsched_mpi -lselfsched before the OpenMP runtime. */
#ifndef SELFSCHED_MPI_H
#define SELFSCHED_MPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "selfsched_wavefront.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A gather or reduction target meaning "every rank". */
#define SELFSCHED_MPI_ALL_RANKS (-1)
/* selfsched_mpi_wavefront's gather: no cell moves after the loop. */
#define SELFSCHED_MPI_NO_GATHER (-2)

typedef struct selfsched_mpi_options selfsched_mpi_options;
typedef struct selfsched_mpi_region selfsched_mpi_region;

/* A shared loop every rank has finished. own: this rank's outer chunks as
 * (start, size) pairs, own_count pairs. */
typedef struct {
  MPI_Comm comm;
  uint64_t index;
  int64_t n;
  const int64_t* own;
  size_t own_count;
} selfsched_mpi_loop_info;

selfsched_mpi_options* selfsched_mpi_options_new(void);
void selfsched_mpi_options_free(selfsched_mpi_options* options);

/* The moves of selfsched/mpi.hpp's options. Each returns 0, or -1 (with one
 * message on stderr) for an invalid argument. */
int selfsched_mpi_gather_rows(selfsched_mpi_options* options, void* rows, size_t row_bytes, int root);
/* row(i, &size, user): the bytes of row i on the rank that computed it;
 * store(i, bytes, size, user): puts them in place on a receiver. */
int selfsched_mpi_gather_variable_rows(selfsched_mpi_options* options,
                                       const void* (*row)(int64_t i, size_t* size, void* user),
                                       void (*store)(int64_t i, const void* bytes, size_t size, void* user),
                                       void* user, int root);
/* at_region_end: 0 after each shared loop, 1 once when the region ends. */
int selfsched_mpi_reduce(selfsched_mpi_options* options, void* buffer, int count, MPI_Datatype type, MPI_Op op,
                         int root, int at_region_end);
int selfsched_mpi_after_loop(selfsched_mpi_options* options,
                             void (*callback)(const selfsched_mpi_loop_info* info, void* user), void* user);
/* Writes of shared loops that no movement covers: merged across ranks
 * instead of warned about; more memory to track than the program's global
 * data (selfsched::mpi::options::merge_writes, track_writes). */
int selfsched_mpi_merge_writes(selfsched_mpi_options* options);
int selfsched_mpi_track_writes(selfsched_mpi_options* options, void* data, size_t bytes);
/* The outer technique and transport (instead of SELFSCHED_MPI_SCHEDULE /
 * SELFSCHED_MPI_TRANSPORT). */
int selfsched_mpi_set_schedule(selfsched_mpi_options* options, const char* technique);
int selfsched_mpi_set_transport(selfsched_mpi_options* options, const char* transport);

/* Collective. options may be NULL (the region copies them). NULL on error
 * (the message is on stderr). */
selfsched_mpi_region* selfsched_mpi_region_begin(MPI_Comm comm, const selfsched_mpi_options* options);
/* Collective; returns 0. */
int selfsched_mpi_region_end(selfsched_mpi_region* region);

/* A dependence loop across the region's ranks (selfsched/mpi_wavefront.hpp
 * has the rules): the problem and `run` as for selfsched_wavefront_runs
 * (selfsched_wavefront.h; options->technique is the threads', min_chunk and
 * max_chunk bound the ranks' chunks); cell(context, index) points to the
 * cell_bytes bytes of iteration index's result, which only that iteration
 * writes. gather: a rank, SELFSCHED_MPI_ALL_RANKS or SELFSCHED_MPI_NO_GATHER.
 * Collective, on the thread that created the region. Returns 0 (report, if
 * not NULL, is this rank's threads'), or -1 on every rank alike when the
 * problem or the options are invalid (one message on stderr, nothing ran).
 * A run callback that returns non-zero ends the job with a message. */
int selfsched_mpi_wavefront(selfsched_mpi_region* region, int rank, const int64_t* extents,
                            const int64_t* dependences, int dependence_count,
                            const selfsched_wavefront_options* options, selfsched_wavefront_run run,
                            void* (*cell)(void* context, const int64_t* index), size_t cell_bytes, void* context,
                            int gather, selfsched_wavefront_report* report);

#ifdef __cplusplus
}
#endif

#endif

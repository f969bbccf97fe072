/* The MPI bridge from C: one region over the ranks, every row once. */
#include <mpi.h>
#include <selfsched_mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  enum { rows = 997 };
  static long hits[rows];
  selfsched_mpi_options* o = selfsched_mpi_options_new();
  selfsched_mpi_reduce(o, hits, rows, MPI_LONG, MPI_SUM, SELFSCHED_MPI_ALL_RANKS, 0);
  selfsched_mpi_region* r = selfsched_mpi_region_begin(MPI_COMM_WORLD, o);
#pragma omp parallel for schedule(runtime)
  for (long row = 0; row < rows; ++row) hits[row] += 1;
  selfsched_mpi_region_end(r);
  selfsched_mpi_options_free(o);
  int bad = 0;
  for (long row = 0; row < rows; ++row) bad += hits[row] != 1;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("C MPI consumer ok: %d rows wrong\n", bad);
  MPI_Finalize();
  return bad != 0;
}

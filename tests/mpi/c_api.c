/* The C API of selfsched MPI regions (selfsched_mpi.h), compiled as C: a
 * shared loop writes rows gathered to rank 0, a reduction, a callback. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "selfsched_mpi.h"

static void after_loop(const selfsched_mpi_loop_info* info, void* user) {
  long long* seen = (long long*)user;
  for (size_t k = 0; k < info->own_count; ++k) *seen += info->own[2 * k + 1];  /* sizes of my chunks */
}

int main(int argc, char** argv) {
  int provided, rank, ranks;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  enum { n = 1000, width = 3 };
  static double rows[n][width];
  long long sum = 0, mine = 0, total_mine = 0;

  selfsched_mpi_options* options = selfsched_mpi_options_new();
  int bad = selfsched_mpi_gather_rows(options, rows, sizeof rows[0], 0);
  bad |= selfsched_mpi_reduce(options, &sum, 1, MPI_LONG_LONG, MPI_SUM, SELFSCHED_MPI_ALL_RANKS, 0);
  bad |= selfsched_mpi_after_loop(options, after_loop, &mine);
  bad |= selfsched_mpi_set_schedule(options, "gss");
  /* Invalid input: -1 and a message, the options unchanged. */
  const int rejected = selfsched_mpi_gather_rows(options, rows, 0, 0);
  selfsched_mpi_region* region = selfsched_mpi_region_begin(MPI_COMM_WORLD, options);
  if (region == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
  for (long i = 0; i < n; ++i) {
    for (int k = 0; k < width; ++k) rows[i][k] = (double)(i * width + k);
    sum += i;
  }
  selfsched_mpi_region_end(region);
  selfsched_mpi_options_free(options);

  MPI_Reduce(&mine, &total_mine, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  int ok = !bad && rejected == -1 && sum == (long long)n * (n - 1) / 2;
  if (rank == 0) {
    for (long i = 0; i < n; ++i)
      for (int k = 0; k < width; ++k) ok = ok && rows[i][k] == (double)(i * width + k);
    ok = ok && total_mine == n;
    printf("mpi_c_api: ranks=%d sum=%lld chunks_cover=%lld ok=%d\n", ranks, sum, total_mine, ok);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return ok ? 0 : 1;
}

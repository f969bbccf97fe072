/* The C API of selfsched MPI regions (selfsched_mpi.h), compiled as C: a
 * shared loop writes rows gathered to rank 0, a reduction, a callback; a
 * dependence loop across the ranks, its cells gathered to rank 0. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selfsched_mpi.h"

/* A dependence loop: cell (i, j) = cell (i-1, j) + 2 cell (i, j-1) + 1 mod a
 * prime, so a cell read before its neighbours are final changes the result. */
enum { wf_rows = 40, wf_cols = 50 };
static int64_t cells[wf_rows][wf_cols], serial[wf_rows][wf_cols];

static int64_t next_cell(int64_t (*c)[wf_cols], int64_t i, int64_t j) {
  const int64_t up = i > 0 ? c[i - 1][j] : 1, left = j > 0 ? c[i][j - 1] : 2;
  return (up + 2 * left + 1) % 1000003;
}

static int run_cells(void* context, const int64_t* start, int dim, int64_t count) {
  (void)context;
  int64_t x[3] = {start[0], start[1], start[2]};
  for (int64_t k = 0; k < count; ++k, ++x[dim]) cells[x[0]][x[1]] = next_cell(cells, x[0], x[1]);
  return 0;
}

static void* cell_of(void* context, const int64_t* x) {
  (void)context;
  return &cells[x[0]][x[1]];
}

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

  /* The dependence loop, cells to rank 0, against the serial loop there. */
  const int64_t extents[2] = {wf_rows, wf_cols}, dependences[4] = {1, 0, 0, 1};
  selfsched_wavefront_options wf = SELFSCHED_WAVEFRONT_OPTIONS_INIT;
  wf.technique = "s-gss";
  wf.max_chunk = 8;
  selfsched_wavefront_report report;
  selfsched_mpi_region* loops = selfsched_mpi_region_begin(MPI_COMM_WORLD, NULL);
  const int wavefront = selfsched_mpi_wavefront(loops, 2, extents, dependences, 2, &wf, run_cells, cell_of,
                                                sizeof cells[0][0], NULL, 0, &report);
  /* Invalid input: -1 and a message on every rank, nothing run. */
  const int refused = selfsched_mpi_wavefront(loops, 4, extents, dependences, 2, &wf, run_cells, cell_of,
                                              sizeof cells[0][0], NULL, 0, NULL);
  selfsched_mpi_region_end(loops);
  /* A region that runs copies of chunks refuses dependence loops. */
  const char* resilience = getenv("SELFSCHED_MPI_RESILIENCE");
  const int copies = resilience != NULL && strcmp(resilience, "duplicate") == 0;
  int same = copies ? wavefront == -1 : wavefront == 0 && refused == -1;
  if (rank == 0 && !copies) {
    for (int64_t i = 0; i < wf_rows; ++i)
      for (int64_t j = 0; j < wf_cols; ++j) serial[i][j] = next_cell(serial, i, j);
    for (int64_t i = 0; i < wf_rows; ++i)
      for (int64_t j = 0; j < wf_cols; ++j) same = same && cells[i][j] == serial[i][j];
  }

  MPI_Reduce(&mine, &total_mine, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  int ok = !bad && rejected == -1 && sum == (long long)n * (n - 1) / 2 && same;
  if (rank == 0) {
    for (long i = 0; i < n; ++i)
      for (int k = 0; k < width; ++k) ok = ok && rows[i][k] == (double)(i * width + k);
    ok = ok && total_mine == n;
    printf("mpi_c_api: ranks=%d sum=%lld wavefront=%s chunks_cover=%lld ok=%d\n", ranks, sum,
           !same ? "wrong" : copies ? "refused" : "serial_equal", total_mine, ok);
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return ok ? 0 : 1;
}

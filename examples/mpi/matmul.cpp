// mpi_matmul: matmul (../matmul.cpp) on the ranks of MPI_COMM_WORLD and
// their threads: the rows of C = A B shared by the ranks through a
// selfsched::mpi::region (seeds 002, 003: matrix multiplication on
// heterogeneous clusters), every row then gathered to every rank.
#include "../matmul.hpp"

#include "mpi_common.hpp"

int main(int argc, char** argv) {
  std::int64_t n = 500, seed = 1;
  std::string level = "multiple";
  bool verify = false;
  example::command_line cli("mpi_matmul",
                            "Matrix product C = A B of random n x n matrices over MPI ranks and their threads;\n"
                            "one row of C per iteration of the shared schedule(runtime) loop; every rank gets C.");
  cli.option("n", n, 1, "matrix order; seed 004: 15000, seeds 002/003: up to 2048");
  cli.option("seed", seed, 0, "seed of the random matrices");
  cli.flag("verify", verify, "recompute every row serially (default: a sample) and compare exactly");
  example::thread_level_option(cli, level);
  cli.parse(argc, argv);
  if (n > 50'000) cli.fail("--n '" + std::to_string(n) + "' is larger than 50000");
  example::mpi_session mpi(argc, argv, level);

  example::matrices m = example::matrices::random(n, seed);  // the same on every rank
  example::loop_monitor monitor("mpi_matmul", n);
  selfsched::mpi::options moves;
  moves.gather_rows(m.c.data(), m.stride * sizeof(double), selfsched::mpi::all_ranks);
  example::rank_coverage coverage(moves, monitor);

  double seconds = 0;
  selfsched::mpi::statistics stats;
  {
    selfsched::mpi::region region(MPI_COMM_WORLD, moves);
    const double start = example::now_seconds();
#pragma omp parallel for schedule(runtime)
    for (std::int64_t i = 0; i < n; ++i) monitor.run(i, [&] { m.product_row(i, m.row(m.c, i)); });
    seconds = example::now_seconds() - start;
    stats = region.stats();
  }
  coverage.settle(stats);

  example::report r("mpi_matmul");
  example::add_rank_fields(r, mpi, monitor, stats);
  // Every rank holds C: each checks a sample of it; rank 0 reports.
  example::check_product(m, seed, verify && mpi.rank == 0, r);
  if (mpi.rank != 0) return 0;
  example::checksum sum;
  m.add_product_to(sum);
  r.add("n", n);
  r.add("seed", seed);
  r.add("multiply_adds", n * n * n);
  return r.finish(monitor, seconds, sum);
}

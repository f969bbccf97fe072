// mpi_matmul: matmul (../matmul.cpp) on the ranks of MPI_COMM_WORLD and
// their threads: the rows of C = A B shared by the ranks through a
// selfsched::mpi::region (seeds 002, 003: matrix multiplication on
// heterogeneous clusters), every row then gathered to every rank.
#include "../matmul.hpp"

#include "mpi_common.hpp"

int main(int argc, char** argv) {
  example::matmul_options o;
  std::string level = "multiple";
  example::command_line cli("mpi_matmul",
                            "Matrix product C = A B of random n x n matrices over MPI ranks and their threads;\n"
                            "one row of C per iteration of the shared schedule(runtime) loop; every rank gets C.");
  o.declare(cli);
  example::thread_level_option(cli, level);
  cli.parse(argc, argv);
  o.check(cli);
  example::mpi_session mpi(argc, argv, level);

  example::matrices m = example::matrices::random(o.n, o.seed);  // the same on every rank
  const std::int64_t n = o.n;
  example::loop_monitor monitor("mpi_matmul", n);
  selfsched::mpi::options moves;
  moves.gather_rows(m.c.data(), m.stride * sizeof(double), selfsched::mpi::all_ranks);
  const example::shared_loop run = example::run_shared_loop(moves, monitor, [&] {
#pragma omp parallel for schedule(runtime)
    for (std::int64_t i = 0; i < n; ++i) monitor.run(i, [&] { m.product_row(i, m.row(m.c, i)); });
  });

  example::report r("mpi_matmul");
  example::add_rank_fields(r, mpi, monitor, run.stats);
  // Every rank holds C: each checks a sample of it; rank 0 reports.
  example::check_product(m, o.seed, o.verify && mpi.rank == 0, r);
  if (mpi.rank != 0) return 0;
  return example::finish_report(r, m, o, monitor, run.seconds);
}

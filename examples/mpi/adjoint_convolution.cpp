// mpi_adjoint_convolution: adjoint_convolution (../adjoint_convolution.cpp)
// on the ranks of MPI_COMM_WORLD and their threads: the loop of seed 004
// (Sect. 6.1) shared by the ranks through a selfsched::mpi::region, the
// elements gathered to rank 0.
#include <cstring>

#include "../adjoint_convolution.hpp"

#include "mpi_common.hpp"

int main(int argc, char** argv) {
  example::adjoint_convolution_options o;
  std::string level = "multiple";
  example::command_line cli("mpi_adjoint_convolution",
                            "Adjoint convolution a[i] = sum_{j>=i} b[j] c[j-i] over MPI ranks and their threads;\n"
                            "one element per iteration of the shared schedule(runtime) loop; rank 0 gets a.");
  o.declare(cli);
  example::thread_level_option(cli, level);
  cli.parse(argc, argv);
  o.check(cli);
  example::mpi_session mpi(argc, argv, level);

  const example::adjoint_convolution conv = example::adjoint_convolution::random(o.n, o.seed);  // the same on every rank
  const std::int64_t n = o.n;
  std::vector<double> a(n);
  example::loop_monitor monitor("mpi_adjoint_convolution", n);
  // Iteration k wrote a[element_of(k)]: in place when that is a[k], else as a
  // one-element variable-size row.
  selfsched::mpi::options moves;
  if (!o.increasing())
    moves.gather_rows(a.data(), sizeof(double), 0);
  else
    moves.gather_rows([&](selfsched::iter_t k) { return std::as_bytes(std::span(&a[o.element_of(k)], 1)); },
                      [&](selfsched::iter_t k, std::span<const std::byte> bytes) {
                        std::memcpy(&a[o.element_of(k)], bytes.data(), sizeof(double));
                      },
                      0);
  const example::shared_loop run = example::run_shared_loop(moves, monitor, [&] {
#pragma omp parallel for schedule(runtime)
    for (std::int64_t k = 0; k < n; ++k)
      monitor.run(k, [&] { a[o.element_of(k)] = conv.element(o.element_of(k)); });
  });

  example::report r("mpi_adjoint_convolution");
  example::add_rank_fields(r, mpi, monitor, run.stats);
  if (mpi.rank != 0) return 0;
  example::check_result(conv, a, o.verify, r);
  return example::finish_report(r, o, a, monitor, run.seconds);
}

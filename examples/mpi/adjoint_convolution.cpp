// mpi_adjoint_convolution: adjoint_convolution (../adjoint_convolution.cpp)
// on the ranks of MPI_COMM_WORLD and their threads: the loop of seed 004
// (Sect. 6.1) shared by the ranks through a selfsched::mpi::region, the
// elements gathered to rank 0.
#include <cstring>

#include "../adjoint_convolution.hpp"

#include "mpi_common.hpp"

int main(int argc, char** argv) {
  std::int64_t n = 20000, seed = 1;
  std::string order = "decreasing", level = "multiple";
  bool verify = false;
  example::command_line cli("mpi_adjoint_convolution",
                            "Adjoint convolution a[i] = sum_{j>=i} b[j] c[j-i] over MPI ranks and their threads;\n"
                            "one element per iteration of the shared schedule(runtime) loop; rank 0 gets a.");
  cli.option("n", n, 1, "elements; seed 004: 800 x 800 = 640000");
  cli.choice("order", order, {"decreasing", "increasing"},
             "iteration k computes a[k], cost falling as in seed 004, or a[n-1-k], cost rising");
  cli.option("seed", seed, 0, "seed of the random arrays");
  cli.flag("verify", verify, "recompute every element serially (default: a sample) and compare exactly");
  example::thread_level_option(cli, level);
  cli.parse(argc, argv);
  if (n > 100'000'000) cli.fail("--n '" + std::to_string(n) + "' is larger than 100000000");
  example::mpi_session mpi(argc, argv, level);

  const example::adjoint_convolution conv = example::adjoint_convolution::random(n, seed);  // the same on every rank
  const bool increasing = order == "increasing";
  const auto element_of = [&](std::int64_t k) { return increasing ? n - 1 - k : k; };

  std::vector<double> a(n);
  example::loop_monitor monitor("mpi_adjoint_convolution", n);
  // Iteration k wrote a[element_of(k)]: in place when that is a[k], else as a
  // one-element variable-size row.
  selfsched::mpi::options moves;
  if (!increasing)
    moves.gather_rows(a.data(), sizeof(double), 0);
  else
    moves.gather_rows([&](selfsched::iter_t k) { return std::as_bytes(std::span(&a[element_of(k)], 1)); },
                      [&](selfsched::iter_t k, std::span<const std::byte> bytes) {
                        std::memcpy(&a[element_of(k)], bytes.data(), sizeof(double));
                      },
                      0);
  example::rank_coverage coverage(moves, monitor);

  double seconds = 0;
  selfsched::mpi::statistics stats;
  {
    selfsched::mpi::region region(MPI_COMM_WORLD, moves);
    const double start = example::now_seconds();
#pragma omp parallel for schedule(runtime)
    for (std::int64_t k = 0; k < n; ++k)
      monitor.run(k, [&] { a[element_of(k)] = conv.element(element_of(k)); });
    seconds = example::now_seconds() - start;
    stats = region.stats();
  }
  coverage.settle(stats);

  example::report r("mpi_adjoint_convolution");
  example::add_rank_fields(r, mpi, monitor, stats);
  if (mpi.rank != 0) return 0;
  example::check_result(conv, a, verify, r);
  example::checksum sum;
  sum.add(a);
  r.add("n", n);
  r.add("order", order);
  r.add("seed", seed);
  r.add("multiply_adds", n * (n + 1) / 2);
  return r.finish(monitor, seconds, sum);
}

// matmul: C = A B for n x n matrices, one row of C per iteration of a
// schedule(runtime) loop: the regular (uniform-cost) loop of seeds 002 and 003
// (Yang et al. 2003/2004, matrix multiplication on heterogeneous clusters) and
// seed 004 (Sect. 6.2). Uneven finishing times come only from the workers, so
// it shows what weighting buys on unequal threads (SELFSCHED_EXAMPLE_SLOWDOWN).
//
// Entries are small integers held in doubles: every product and sum is exact,
// so the whole result is checked exactly by Freivalds' test, C x = A (B x).
#include "common.hpp"
#include "matmul.hpp"

int main(int argc, char** argv) {
  std::int64_t n = 500, seed = 1;
  bool verify = false;
  example::command_line cli("matmul",
                            "Matrix product C = A B of random n x n matrices; one row of C per iteration\n"
                            "of the schedule(runtime) loop. Uniform cost: n^2 multiply-adds per iteration.");
  cli.option("n", n, 1, "matrix order; seed 004: 15000, seeds 002/003: up to 2048");
  cli.option("seed", seed, 0, "seed of the random matrices");
  cli.flag("verify", verify, "recompute every row serially (default: a sample) and compare exactly");
  example::time_steps steps(cli);
  cli.parse(argc, argv);
  steps.check(cli);
  // Entries in [-8, 8]: |(C x)_i| <= 512 n^2 stays exact in a double up to n = 2^22.
  if (n > 50'000) cli.fail("--n '" + std::to_string(n) + "' is larger than 50000");

  example::matrices m = example::matrices::random(n, seed);

  example::loop_monitor monitor("matmul", n);
  const double seconds = steps.run(monitor, [&] { std::fill(m.c.begin(), m.c.end(), 0); }, [&] {
#pragma omp parallel for schedule(runtime)
    for (std::int64_t i = 0; i < n; ++i) monitor.run(i, [&] { m.product_row(i, m.row(m.c, i)); });
  });

  example::report r("matmul");
  steps.add_to(r);
  example::check_product(m, seed, verify, r);

  example::checksum sum;
  m.add_product_to(sum);
  r.add("n", n);
  r.add("seed", seed);
  r.add("multiply_adds", n * n * n);
  return r.finish(monitor, seconds, sum);
}

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
  example::matmul_options o;
  example::command_line cli("matmul",
                            "Matrix product C = A B of random n x n matrices; one row of C per iteration\n"
                            "of the schedule(runtime) loop. Uniform cost: n^2 multiply-adds per iteration.");
  o.declare(cli);
  example::time_steps steps(cli);
  cli.parse(argc, argv);
  steps.check(cli);
  o.check(cli);

  example::matrices m = example::matrices::random(o.n, o.seed);
  const std::int64_t n = o.n;
  example::loop_monitor monitor("matmul", n);
  const double seconds = steps.run(monitor, [&] { std::fill(m.c.begin(), m.c.end(), 0); }, [&] {
#pragma omp parallel for schedule(runtime)
    for (std::int64_t i = 0; i < n; ++i) monitor.run(i, [&] { m.product_row(i, m.row(m.c, i)); });
  });

  example::report r("matmul");
  steps.add_to(r);
  example::check_product(m, o.seed, o.verify, r);
  return example::finish_report(r, m, o, monitor, seconds);
}

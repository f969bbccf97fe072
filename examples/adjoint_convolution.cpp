// adjoint_convolution: a[i] = sum_{j=i}^{n-1} b[j] * c[j-i], one element of a
// per iteration of a schedule(runtime) loop. Seed 004 (Han & Chronopoulos
// 2016, Sect. 6.1) uses it for its decreasing task sizes: iteration i costs
// n - i multiply-adds, a triangular loop (800 x 800 = 640000 iterations there,
// random arrays). It is the adjoint (transpose) of the convolution
// y[j] = sum_{i<=j} c[j-i] x[i]. --order increasing runs the same triangle
// from the cheap end, for the increasing-cost profile.
#include "adjoint_convolution.hpp"
#include "common.hpp"

using example::adjoint_convolution;

int main(int argc, char** argv) {
  std::int64_t n = 20000, seed = 1;
  std::string order = "decreasing";
  bool verify = false;
  example::command_line cli("adjoint_convolution",
                            "Adjoint convolution a[i] = sum_{j>=i} b[j] c[j-i] of random arrays; one element\n"
                            "per iteration of the schedule(runtime) loop. Triangular cost: n - i per iteration.");
  cli.option("n", n, 1, "elements; seed 004: 800 x 800 = 640000");
  cli.choice("order", order, {"decreasing", "increasing"},
             "iteration k computes a[k], cost falling as in seed 004, or a[n-1-k], cost rising");
  cli.option("seed", seed, 0, "seed of the random arrays");
  cli.flag("verify", verify, "recompute every element serially (default: a sample) and compare exactly");
  example::time_steps steps(cli);
  cli.parse(argc, argv);
  steps.check(cli);
  if (n > 100'000'000) cli.fail("--n '" + std::to_string(n) + "' is larger than 100000000");

  const adjoint_convolution conv = adjoint_convolution::random(n, seed);
  const bool increasing = order == "increasing";
  const auto element_of = [&](std::int64_t k) { return increasing ? n - 1 - k : k; };

  std::vector<double> a(n);
  example::loop_monitor monitor("adjoint_convolution", n);
  const double seconds = steps.run(monitor, [&] { std::fill(a.begin(), a.end(), 0.0); }, [&] {
#pragma omp parallel for schedule(runtime)
    for (std::int64_t k = 0; k < n; ++k)
      monitor.run(k, [&] { a[element_of(k)] = conv.element(element_of(k)); });
  });

  example::report r("adjoint_convolution");
  steps.add_to(r);
  example::check_result(conv, a, verify, r);

  example::checksum sum;
  sum.add(a);
  r.add("n", n);
  r.add("order", order);
  r.add("seed", seed);
  r.add("multiply_adds", n * (n + 1) / 2);
  return r.finish(monitor, seconds, sum);
}

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
  example::adjoint_convolution_options o;
  example::command_line cli("adjoint_convolution",
                            "Adjoint convolution a[i] = sum_{j>=i} b[j] c[j-i] of random arrays; one element\n"
                            "per iteration of the schedule(runtime) loop. Triangular cost: n - i per iteration.");
  o.declare(cli);
  example::time_steps steps(cli);
  cli.parse(argc, argv);
  steps.check(cli);
  o.check(cli);

  const adjoint_convolution conv = adjoint_convolution::random(o.n, o.seed);
  const std::int64_t n = o.n;
  std::vector<double> a(n);
  example::loop_monitor monitor("adjoint_convolution", n);
  const double seconds = steps.run(monitor, [&] { std::fill(a.begin(), a.end(), 0.0); }, [&] {
#pragma omp parallel for schedule(runtime)
    for (std::int64_t k = 0; k < n; ++k)
      monitor.run(k, [&] { a[o.element_of(k)] = conv.element(o.element_of(k)); });
  });

  example::report r("adjoint_convolution");
  steps.add_to(r);
  example::check_result(conv, a, o.verify, r);
  return example::finish_report(r, o, a, monitor, seconds);
}

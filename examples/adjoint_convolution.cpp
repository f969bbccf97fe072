// adjoint_convolution: a[i] = sum_{j=i}^{n-1} b[j] * c[j-i], one element of a
// per iteration of a schedule(runtime) loop. Seed 004 (Han & Chronopoulos
// 2016, Sect. 6.1) uses it for its decreasing task sizes: iteration i costs
// n - i multiply-adds, a triangular loop (800 x 800 = 640000 iterations there,
// random arrays). It is the adjoint (transpose) of the convolution
// y[j] = sum_{i<=j} c[j-i] x[i]. --order increasing runs the same triangle
// from the cheap end, for the increasing-cost profile.
#include <cfloat>
#include <cmath>

#include "common.hpp"

namespace {

struct adjoint_convolution {
  std::vector<double> b, c;

  std::int64_t size() const { return static_cast<std::int64_t>(b.size()); }
  double element(std::int64_t i) const {
    double sum = 0;
    for (std::int64_t j = i; j < size(); ++j) sum += b[j] * c[j - i];
    return sum;
  }
};

}  // namespace

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
  cli.parse(argc, argv);
  if (n > 100'000'000) cli.fail("--n '" + std::to_string(n) + "' is larger than 100000000");

  adjoint_convolution conv{std::vector<double>(n), std::vector<double>(n)};
  const example::random_stream random_b(seed, 1), random_c(seed, 2);
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < n; ++j) {
    conv.b[j] = 2 * random_b.unit(j) - 1;
    conv.c[j] = 2 * random_c.unit(j) - 1;
  }
  const bool increasing = order == "increasing";
  const auto element_of = [&](std::int64_t k) { return increasing ? n - 1 - k : k; };

  std::vector<double> a(n);
  example::loop_monitor monitor("adjoint_convolution", n);
  const double start = example::now_seconds();
#pragma omp parallel for schedule(runtime)
  for (std::int64_t k = 0; k < n; ++k)
    monitor.run(k, [&] { a[element_of(k)] = conv.element(element_of(k)); });
  const double seconds = example::now_seconds() - start;

  example::report r("adjoint_convolution");
  for (const std::int64_t i : example::lines_to_check(n, verify))
    r.expect(a[i] == conv.element(i), "a[" + std::to_string(i) + "] differs from the serial computation");
  // Every element at once, independently of element(): summing over i first,
  // sum_i a[i] = sum_j b[j] * sum_{d<=j} c[d]. Equal up to rounding: a small
  // multiple of n * eps * sum_j |b[j]| * sum_{d<=j} |c[d]|.
  double total = 0, identity = 0, bound = 0, prefix = 0, abs_prefix = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    total += a[j];
    prefix += conv.c[j];
    abs_prefix += std::fabs(conv.c[j]);
    identity += conv.b[j] * prefix;
    bound += std::fabs(conv.b[j]) * abs_prefix;
  }
  bound *= 4.0 * n * DBL_EPSILON;
  r.expect(std::fabs(total - identity) <= bound, "sum of a is " + std::to_string(total) + ", expected " +
                                                     std::to_string(identity) + " within " + std::to_string(bound));

  example::checksum sum;
  sum.add(a);
  r.add("n", n);
  r.add("order", order);
  r.add("seed", seed);
  r.add("multiply_adds", n * (n + 1) / 2);
  return r.finish(monitor, seconds, sum);
}

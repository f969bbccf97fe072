// The adjoint convolution kernel and its self-check, shared by
// adjoint_convolution.cpp (threads) and mpi/adjoint_convolution.cpp.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common.hpp"

namespace example {

struct adjoint_convolution {
  std::vector<double> b, c;

  // b and c uniform in [-1, 1), a pure function of (seed, index).
  static adjoint_convolution random(std::int64_t n, std::int64_t seed) {
    adjoint_convolution conv{std::vector<double>(n), std::vector<double>(n)};
    const random_stream random_b(seed, 1), random_c(seed, 2);
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < n; ++j) {
      conv.b[j] = 2 * random_b.unit(j) - 1;
      conv.c[j] = 2 * random_c.unit(j) - 1;
    }
    return conv;
  }

  std::int64_t size() const { return static_cast<std::int64_t>(b.size()); }
  double element(std::int64_t i) const {
    double sum = 0;
    for (std::int64_t j = i; j < size(); ++j) sum += b[j] * c[j - i];
    return sum;
  }
};

// Sampled elements (all with `all`) recomputed serially, and every element at
// once through an identity.
inline void check_result(const adjoint_convolution& conv, const std::vector<double>& a, bool all, report& r) {
  const std::int64_t n = conv.size();
  for (const std::int64_t i : lines_to_check(n, all))
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
}

// The command line both adjoint convolution programs share, and the fields
// it adds to the result line.
struct adjoint_convolution_options {
  std::int64_t n = 20000, seed = 1;
  std::string order = "decreasing";
  bool verify = false;

  void declare(command_line& cli) {
    cli.option("n", n, 1, "elements; seed 004: 800 x 800 = 640000");
    cli.choice("order", order, {"decreasing", "increasing"},
               "iteration k computes a[k], cost falling as in seed 004, or a[n-1-k], cost rising");
    cli.option("seed", seed, 0, "seed of the random arrays");
    cli.flag("verify", verify, "recompute every element serially (default: a sample) and compare exactly");
  }
  void check(const command_line& cli) const {
    if (n > 100'000'000) cli.fail("--n '" + std::to_string(n) + "' is larger than 100000000");
  }
  bool increasing() const { return order == "increasing"; }
  // The element iteration k computes: the triangle from its costly end or its cheap one.
  std::int64_t element_of(std::int64_t k) const { return increasing() ? n - 1 - k : k; }
};

// a's fields of the result line (checksum, size, order, work), then the
// line itself: the program's exit status.
inline int finish_report(report& r, const adjoint_convolution_options& o, const std::vector<double>& a,
                         const loop_monitor& monitor, double loop_seconds) {
  checksum sum;
  sum.add(a);
  r.add("n", o.n);
  r.add("order", o.order);
  r.add("seed", o.seed);
  r.add("multiply_adds", o.n * (o.n + 1) / 2);
  return r.finish(monitor, loop_seconds, sum);
}

}  // namespace example

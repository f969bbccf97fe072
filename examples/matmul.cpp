// matmul: C = A B for n x n matrices, one row of C per iteration of a
// schedule(runtime) loop: the regular (uniform-cost) loop of seeds 002 and 003
// (Yang et al. 2003/2004, matrix multiplication on heterogeneous clusters) and
// seed 004 (Sect. 6.2). Uneven finishing times come only from the workers, so
// it shows what weighting buys on unequal threads (SELFSCHED_EXAMPLE_SLOWDOWN).
//
// Entries are small integers held in doubles: every product and sum is exact,
// so the whole result is checked exactly by Freivalds' test, C x = A (B x).
#include <algorithm>

#include "common.hpp"

namespace {

struct matrices {
  std::int64_t n;
  std::vector<double> a, b, c;  // row-major

  double* row(std::vector<double>& m, std::int64_t i) const { return m.data() + i * n; }
  const double* row(const std::vector<double>& m, std::int64_t i) const { return m.data() + i * n; }

  // Row i of A B into out: out = sum_k a[i][k] * row k of B (i-k-j order, unit stride).
  void product_row(std::int64_t i, double* out) const {
    std::fill(out, out + n, 0.0);
    for (std::int64_t k = 0; k < n; ++k) {
      const double aik = row(a, i)[k];
      const double* bk = row(b, k);
      for (std::int64_t j = 0; j < n; ++j) out[j] += aik * bk[j];
    }
  }
};

std::vector<double> times_vector(const matrices& m, const std::vector<double>& mat, const std::vector<double>& x) {
  std::vector<double> y(m.n, 0.0);
  for (std::int64_t i = 0; i < m.n; ++i)
    for (std::int64_t k = 0; k < m.n; ++k) y[i] += m.row(mat, i)[k] * x[k];
  return y;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t n = 500, seed = 1;
  bool verify = false;
  example::command_line cli("matmul",
                            "Matrix product C = A B of random n x n matrices; one row of C per iteration\n"
                            "of the schedule(runtime) loop. Uniform cost: n^2 multiply-adds per iteration.");
  cli.option("n", n, 1, "matrix order; seed 004: 15000, seeds 002/003: up to 2048");
  cli.option("seed", seed, 0, "seed of the random matrices");
  cli.flag("verify", verify, "recompute every row serially (default: a sample) and compare exactly");
  cli.parse(argc, argv);
  // Entries in [-8, 8]: |(C x)_i| <= 512 n^2 stays exact in a double up to n = 2^22.
  if (n > 50'000) cli.fail("--n '" + std::to_string(n) + "' is larger than 50000");

  const std::int64_t elements = n * n;
  matrices m{n, std::vector<double>(elements), std::vector<double>(elements), std::vector<double>(elements)};
  const example::random_stream random_a(seed, 1), random_b(seed, 2);
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < elements; ++e) {
    m.a[e] = random_a.between(e, -8, 8);
    m.b[e] = random_b.between(e, -8, 8);
  }

  example::loop_monitor monitor("matmul", n);
  const double start = example::now_seconds();
#pragma omp parallel for schedule(runtime)
  for (std::int64_t i = 0; i < n; ++i) monitor.run(i, [&] { m.product_row(i, m.row(m.c, i)); });
  const double seconds = example::now_seconds() - start;

  example::report r("matmul");
  std::vector<double> expected(n);
  for (const std::int64_t i : example::lines_to_check(n, verify)) {
    m.product_row(i, expected.data());
    r.expect(std::equal(expected.begin(), expected.end(), m.row(m.c, i)),
             "row " + std::to_string(i) + " differs from the serial computation");
  }
  // Freivalds' test with two integer vectors: exact, O(n^2), covers every row.
  for (std::uint64_t stream : {3, 4}) {
    const example::random_stream random_x(seed, stream);
    std::vector<double> x(n);
    for (std::int64_t k = 0; k < n; ++k) x[k] = random_x.between(k, -8, 8);
    r.expect(times_vector(m, m.c, x) == times_vector(m, m.a, times_vector(m, m.b, x)), "C x differs from A (B x)");
  }

  example::checksum sum;
  sum.add(m.c);
  r.add("n", n);
  r.add("seed", seed);
  r.add("multiply_adds", n * n * n);
  return r.finish(monitor, seconds, sum);
}

// The matrix product kernel and its self-check, shared by matmul.cpp
// (threads) and mpi/matmul.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common.hpp"

namespace example {

struct matrices {
  std::int64_t n;
  std::vector<double> a, b, c;  // row-major

  // A and B with integer entries in [-8, 8], a pure function of (seed, index).
  static matrices random(std::int64_t n, std::int64_t seed) {
    const std::int64_t elements = n * n;
    matrices m{n, std::vector<double>(elements), std::vector<double>(elements), std::vector<double>(elements)};
    const random_stream random_a(seed, 1), random_b(seed, 2);
#pragma omp parallel for schedule(static)
    for (std::int64_t e = 0; e < elements; ++e) {
      m.a[e] = random_a.between(e, -8, 8);
      m.b[e] = random_b.between(e, -8, 8);
    }
    return m;
  }

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

inline std::vector<double> times_vector(const matrices& m, const std::vector<double>& mat, const std::vector<double>& x) {
  std::vector<double> y(m.n, 0.0);
  for (std::int64_t i = 0; i < m.n; ++i)
    for (std::int64_t k = 0; k < m.n; ++k) y[i] += m.row(mat, i)[k] * x[k];
  return y;
}

// Sampled rows (all with `all`) recomputed serially, and Freivalds' test.
inline void check_product(const matrices& m, std::int64_t seed, bool all, report& r) {
  std::vector<double> expected(m.n);
  for (const std::int64_t i : lines_to_check(m.n, all)) {
    m.product_row(i, expected.data());
    r.expect(std::equal(expected.begin(), expected.end(), m.row(m.c, i)),
             "row " + std::to_string(i) + " differs from the serial computation");
  }
  // Freivalds' test with two integer vectors: exact, O(n^2), covers every row.
  for (std::uint64_t stream : {3, 4}) {
    const random_stream random_x(seed, stream);
    std::vector<double> x(m.n);
    for (std::int64_t k = 0; k < m.n; ++k) x[k] = random_x.between(k, -8, 8);
    r.expect(times_vector(m, m.c, x) == times_vector(m, m.a, times_vector(m, m.b, x)), "C x differs from A (B x)");
  }
}

}  // namespace example

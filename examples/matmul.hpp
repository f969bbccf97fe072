// The matrix product kernel and its self-check, shared by matmul.cpp
// (threads) and mpi/matmul.cpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "common.hpp"

namespace example {

// Storage whose first element starts a cache line.
template <typename T>
struct cache_line_allocator {
  using value_type = T;
  static constexpr std::align_val_t line{64};
  cache_line_allocator() = default;
  template <typename U> cache_line_allocator(const cache_line_allocator<U>&) {}
  T* allocate(std::size_t count) { return static_cast<T*>(::operator new(count * sizeof(T), line)); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, line); }
  template <typename U> bool operator==(const cache_line_allocator<U>&) const { return true; }
};

struct matrices {
  using storage = std::vector<double, cache_line_allocator<double>>;
  std::int64_t n;
  // Doubles from one row's start to the next: n rounded up to whole cache
  // lines, so that no two rows share one. Threads writing neighbouring rows
  // of C would otherwise both write the line where one row ends and the next
  // begins, once for every k (false sharing): a row then cost 1.7-2.2x under
  // one-row chunks what it cost under static (Intel and AMD VMs), and the
  // loop's iterations were no longer of uniform cost.
  std::int64_t stride;
  storage a, b, c;  // row-major, `stride` apart; the padding is zero

  // A and B with integer entries in [-8, 8], a pure function of (seed, index).
  static matrices random(std::int64_t n, std::int64_t seed) {
    const std::int64_t stride = (n + 7) / 8 * 8;
    matrices m{n, stride, storage(n * stride), storage(n * stride), storage(n * stride)};
    const random_stream random_a(seed, 1), random_b(seed, 2);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t k = 0; k < n; ++k) {
        m.row(m.a, i)[k] = random_a.between(i * n + k, -8, 8);
        m.row(m.b, i)[k] = random_b.between(i * n + k, -8, 8);
      }
    return m;
  }

  double* row(storage& m, std::int64_t i) const { return m.data() + i * stride; }
  const double* row(const storage& m, std::int64_t i) const { return m.data() + i * stride; }

  // Row i of A B into out: out = sum_k a[i][k] * row k of B (i-k-j order, unit stride).
  void product_row(std::int64_t i, double* out) const {
    std::fill(out, out + n, 0.0);
    for (std::int64_t k = 0; k < n; ++k) {
      const double aik = row(a, i)[k];
      const double* bk = row(b, k);
      for (std::int64_t j = 0; j < n; ++j) out[j] += aik * bk[j];
    }
  }

  // C's entries, row by row without the padding: the same for every layout.
  void add_product_to(checksum& sum) const {
    for (std::int64_t i = 0; i < n; ++i) sum.add_bytes(row(c, i), n * sizeof(double));
  }
};

inline std::vector<double> times_vector(const matrices& m, const matrices::storage& mat, const std::vector<double>& x) {
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

// The command line both matrix product programs share.
struct matmul_options {
  std::int64_t n = 500, seed = 1;
  bool verify = false;

  void declare(command_line& cli) {
    cli.option("n", n, 1, "matrix order; seed 004: 15000, seeds 002/003: up to 2048");
    cli.option("seed", seed, 0, "seed of the random matrices");
    cli.flag("verify", verify, "recompute every row serially (default: a sample) and compare exactly");
  }
  // Entries in [-8, 8]: |(C x)_i| <= 512 n^2 stays exact in a double up to n = 2^22.
  void check(const command_line& cli) const {
    if (n > 50'000) cli.fail("--n '" + std::to_string(n) + "' is larger than 50000");
  }
};

// C's fields of the result line (checksum, order, work), then the line
// itself: the program's exit status.
inline int finish_report(report& r, const matrices& m, const matmul_options& o, const loop_monitor& monitor,
                         double loop_seconds) {
  checksum sum;
  m.add_product_to(sum);
  r.add("n", o.n);
  r.add("seed", o.seed);
  r.add("multiply_adds", o.n * o.n * o.n);
  return r.finish(monitor, loop_seconds, sum);
}

}  // namespace example

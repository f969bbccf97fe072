// Doacross loops (ordered(n) + depend(sink/source)) served by libselfsched,
// built by clang (libomp) and by g++ (libgomp, tests/gcc/): results
// identical to the serial loop under every catalog technique (plain,
// s- and sw-) and 1-4 threads, including the boundary sinks (i-1, j+1) that
// deadlock on stock libomp (clang passes trip counts where libomp expects
// inclusive bounds). A watchdog turns a deadlock into a failure naming the
// case.
//
//   omp_doacross [--shard K/N] [technique ...]
#include <omp.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "case_watchdog.hpp"
#include "selfsched.h"
#include "selfsched/core/registry.hpp"

namespace {

using case_watchdog::begin_case;
using case_watchdog::check;
using case_watchdog::failures;

// Wrapping integer arithmetic: any order violation changes the result.
std::uint64_t mix(std::uint64_t x) { return (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ULL + 0x9e3779b97f4a7c15ULL; }
std::uint64_t load(const std::uint64_t& v) {
  return std::atomic_ref<const std::uint64_t>(v).load(std::memory_order_relaxed);
}
void store(std::uint64_t& v, std::uint64_t x) { std::atomic_ref<std::uint64_t>(v).store(x, std::memory_order_relaxed); }

// a[i][j] from a[i-1][j+1] and a[i][j-1]: the sink (i-1, j+1) at the last j
// lies outside the space.
template <bool Parallel>
std::vector<std::uint64_t> boundary_sink(int n, int m) {
  std::vector<std::uint64_t> a(static_cast<std::size_t>(n) * m);
  auto at = [&](int i, int j) -> std::uint64_t& { return a[static_cast<std::size_t>(i) * m + j]; };
  auto body = [&](int i, int j) {
    const std::uint64_t up = i > 0 && j + 1 < m ? load(at(i - 1, j + 1)) : 7;
    const std::uint64_t left = j > 0 ? load(at(i, j - 1)) : 3;
    store(at(i, j), mix(up * 31 + left + static_cast<std::uint64_t>(i * m + j)));
  };
  if constexpr (Parallel) {
#pragma omp parallel for ordered(2) schedule(runtime)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) {
#pragma omp ordered depend(sink : i - 1, j + 1)
        body(i, j);
#pragma omp ordered depend(source)
      }
  } else {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) body(i, j);
  }
  return a;
}

// Hydro's shape (seed 000 sec. 6.1): ordered(3), sinks (l-1, j+1, k) and
// (l-1, j, k+1), both outside the space at the last j or k.
template <bool Parallel>
std::vector<std::uint64_t> three_dims(int loops, int rows, int n) {
  std::vector<std::uint64_t> z(static_cast<std::size_t>(loops) * rows * n);
  auto at = [&](int l, int j, int k) -> std::uint64_t& { return z[(static_cast<std::size_t>(l) * rows + j) * n + k]; };
  auto body = [&](int l, int j, int k) {
    const std::uint64_t a = l > 0 && j + 1 < rows ? load(at(l - 1, j + 1, k)) : 1;
    const std::uint64_t b = l > 0 && k + 1 < n ? load(at(l - 1, j, k + 1)) : 2;
    const std::uint64_t c = j > 0 ? load(at(l, j - 1, k)) : 5;
    const std::uint64_t d = k > 0 ? load(at(l, j, k - 1)) : 11;
    store(at(l, j, k), mix(a * 3 + b * 5 + c * 7 + d * 11 + static_cast<std::uint64_t>(k)));
  };
  if constexpr (Parallel) {
#pragma omp parallel for ordered(3) schedule(runtime)
    for (int l = 0; l < loops; ++l)
      for (int j = 0; j < rows; ++j)
        for (int k = 0; k < n; ++k) {
#pragma omp ordered depend(sink : l - 1, j + 1, k) depend(sink : l - 1, j, k + 1)
          body(l, j, k);
#pragma omp ordered depend(source)
        }
  } else {
    for (int l = 0; l < loops; ++l)
      for (int j = 0; j < rows; ++j)
        for (int k = 0; k < n; ++k) body(l, j, k);
  }
  return z;
}

// Strides, a descending inner loop and 64-bit indices: clang normalises the
// sink vector; the bounds of each dimension must still be found.
template <bool Parallel>
std::vector<std::uint64_t> strided(std::int64_t n, std::int64_t m) {
  std::vector<std::uint64_t> a(static_cast<std::size_t>(n * m));
  auto at = [&](std::int64_t i, std::int64_t j) -> std::uint64_t& { return a[static_cast<std::size_t>(i * m + j)]; };
  // i = 5, 8, 11 ... ; j = m-1, m-3, ... (descending by 2)
  auto body = [&](std::int64_t i, std::int64_t j) {
    const std::int64_t r = (i - 5) / 3;
    const std::uint64_t up = r > 0 && j - 2 >= 0 ? load(at(r - 1, j - 2)) : 13;
    store(at(r, j), mix(up + static_cast<std::uint64_t>(r * m + j)));
  };
  const std::int64_t top = 5 + 3 * n;
  if constexpr (Parallel) {
#pragma omp parallel for ordered(2) schedule(runtime)
    for (std::int64_t i = 5; i < top; i += 3)
      for (std::int64_t j = m - 1; j >= 0; j -= 2) {
        // (i-1 row, the next j of that row): past the end of the row at the last j.
#pragma omp ordered depend(sink : i - 3, j - 2)
        body(i, j);
#pragma omp ordered depend(source)
      }
  } else {
    for (std::int64_t i = 5; i < top; i += 3)
      for (std::int64_t j = m - 1; j >= 0; j -= 2) body(i, j);
  }
  return a;
}

// collapse(2) ordered(2): both loops are dispatched, every (i, j) is a row.
template <bool Parallel>
std::vector<std::uint64_t> collapsed(int n, int m) {
  std::vector<std::uint64_t> a(static_cast<std::size_t>(n) * m);
  auto at = [&](int i, int j) -> std::uint64_t& { return a[static_cast<std::size_t>(i) * m + j]; };
  auto body = [&](int i, int j) {
    const std::uint64_t up = i > 0 && j + 1 < m ? load(at(i - 1, j + 1)) : 17;
    const std::uint64_t left = j > 0 ? load(at(i, j - 1)) : 19;
    store(at(i, j), mix(up ^ (left * 3)));
  };
  if constexpr (Parallel) {
#pragma omp parallel for collapse(2) ordered(2) schedule(runtime)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) {
#pragma omp ordered depend(sink : i - 1, j + 1) depend(sink : i, j - 1)
        body(i, j);
#pragma omp ordered depend(source)
      }
  } else {
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) body(i, j);
  }
  return a;
}

// ordered(1), two nowait loops back to back in one region, then a
// schedule(static) doacross loop (libomp's, initialised late by selfsched).
void one_dim_nowait_and_static(int n) {
  std::vector<std::uint64_t> a(static_cast<std::size_t>(n)), b(a.size()), c(a.size());
  std::vector<std::uint64_t> ra(a.size()), rb(a.size());
  for (int i = 0; i < n; ++i) ra[i] = mix((i ? ra[i - 1] : 1) + i);
  for (int i = 0; i < n; ++i) rb[i] = mix((i > 1 ? rb[i - 2] : 2) * 3 + ra[i]);
#pragma omp parallel
  {
#pragma omp for ordered(1) schedule(runtime) nowait
    for (int i = 0; i < n; ++i) {
#pragma omp ordered depend(sink : i - 1)
      store(a[i], mix((i ? load(a[i - 1]) : 1) + i));
#pragma omp ordered depend(source)
    }
#pragma omp barrier
#pragma omp for ordered(1) schedule(runtime) nowait
    for (int i = 0; i < n; ++i) {
#pragma omp ordered depend(sink : i - 2)
      store(b[i], mix((i > 1 ? load(b[i - 2]) : 2) * 3 + load(a[i])));
#pragma omp ordered depend(source)
    }
#pragma omp barrier
    // (i - 1, j) only: libomp's own doacross, with no boundary sink.
#pragma omp for ordered(1) schedule(static, 1)
    for (int i = 0; i < n; ++i) {
#pragma omp ordered depend(sink : i - 1)
      store(c[i], (i ? load(c[i - 1]) : 0) + 1);
#pragma omp ordered depend(source)
    }
  }
  check(a == ra, "ordered(1) sink i-1 differs from serial");
  check(b == rb, "ordered(1) nowait sink i-2 differs from serial");
  bool counted = true;
  for (int i = 0; i < n; ++i) counted = counted && c[i] == static_cast<std::uint64_t>(i + 1);
  check(counted, "schedule(static,1) doacross (libomp's) differs from serial");
}

// An unsigned 64-bit loop whose bound is known only at run time: GCC's
// GOMP_loop_ull_doacross_* and GOMP_doacross_ull_*, clang's 8u dispatch.
void unsigned_rows(unsigned long long n) {
  std::vector<std::uint64_t> a(static_cast<std::size_t>(n) + 1), r(a.size());
  r[0] = a[0] = 1;
  for (unsigned long long i = 1; i <= n; ++i) r[i] = mix(r[i - 1] + i);
#pragma omp parallel for ordered(1) schedule(runtime)
  for (unsigned long long i = 1; i <= n; ++i) {
#pragma omp ordered depend(sink : i - 1)
    store(a[i], mix(load(a[i - 1]) + i));
#pragma omp ordered depend(source)
  }
  check(a == r, "unsigned long long ordered(1) differs from serial");
}

void run_all(const std::string& technique, int threads, std::mt19937& rng) {
  if (selfsched_set_schedule(technique.c_str(), 0) != 0) {
    ++failures;
    std::fprintf(stderr, "FAIL: technique %s not accepted\n", technique.c_str());
    return;
  }
  omp_set_num_threads(threads);
  auto size = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::string where = technique + " threads=" + std::to_string(threads);

  const int n = size(1, 40), m = size(1, 30);
  begin_case(where + " boundary_sink " + std::to_string(n) + "x" + std::to_string(m));
  check(boundary_sink<true>(n, m) == boundary_sink<false>(n, m), "sink (i-1, j+1) differs from serial");

  const int loops = size(1, 12), rows = size(1, 5), k = size(1, 16);
  begin_case(where + " three_dims " + std::to_string(loops) + "x" + std::to_string(rows) + "x" + std::to_string(k));
  check(three_dims<true>(loops, rows, k) == three_dims<false>(loops, rows, k), "ordered(3) differs from serial");

  const std::int64_t sn = size(1, 20), sm = size(1, 20);
  begin_case(where + " strided " + std::to_string(sn) + "x" + std::to_string(sm));
  check(strided<true>(sn, sm) == strided<false>(sn, sm), "strided/descending doacross differs from serial");

  const int cn = size(1, 12), cm = size(1, 12);
  begin_case(where + " collapsed " + std::to_string(cn) + "x" + std::to_string(cm));
  check(collapsed<true>(cn, cm) == collapsed<false>(cn, cm), "collapse(2) ordered(2) differs from serial");

  const int un = size(1, 50);
  begin_case(where + " unsigned_rows " + std::to_string(un));
  unsigned_rows(static_cast<unsigned long long>(un));

  begin_case(where + " one_dim_nowait_and_static");
  one_dim_nowait_and_static(size(1, 60));
}

}  // namespace

int main(int argc, char** argv) {
  case_watchdog::sharded_run run = case_watchdog::parse_sharded_run(argc, argv);
  const int shard = run.shard, shards = run.shards;
  std::vector<std::string>& techniques = run.techniques;
  if (techniques.empty())
    for (const auto& t : selfsched::catalog())
      for (const char* prefix : {"", "s-", "sw-"}) techniques.push_back(prefix + std::string(t.name));

  case_watchdog::start_watchdog();
  std::mt19937 rng(2008 + static_cast<unsigned>(shard));
  int index = 0, cases = 0;
  for (const std::string& technique : techniques) {
    if (index++ % shards != shard) continue;
    for (int threads = 1; threads <= 4; ++threads, ++cases) run_all(technique, threads, rng);
  }
  case_watchdog::end_cases();
  if (failures) std::fprintf(stderr, "%d failures\n", failures);
  else std::printf("ok: %d technique x thread cases, every doacross loop equal to serial\n", cases);
  return failures ? 1 : 0;
}

// Real OpenMP loops, compiled with clang -fopenmp, served by libselfsched:
// every loop form must run each iteration exactly once under every catalog
// technique and thread count.
//
//   omp_loop_forms [--shard K/N] [--forms all|flat|nested] [technique ...]
// Default: every catalog technique, plus its w-, -50 and -auto variants;
// --shard K/N runs every N-th of them starting at K (for parallel ctest).
// --forms nested runs only the nested and serialized regions, 20 times
// over (a mix-up of two inner teams depends on timing); flat, all the rest;
// paused, the flat forms, then again after a hard pause
// (omp_pause_resource_all(omp_pause_hard)), which ends selfsched's tool for
// good: every loop is then libomp's, each iteration still run once.
#include <omp.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "selfsched.h"
#include "selfsched/core/registry.hpp"

namespace {

int failures = 0;
std::string context;  // technique and thread count, for messages

void check(bool ok, const char* form, const std::string& detail = "") {
  if (ok) return;
  ++failures;
  if (failures <= 20) std::fprintf(stderr, "FAIL %s: %s %s\n", context.c_str(), form, detail.c_str());
}

// Counts visits per iteration and checks each is exactly 1.
struct visits {
  std::vector<std::atomic<int>> count;
  explicit visits(std::size_t n) : count(n) {}
  void hit(std::size_t i) { count[i].fetch_add(1, std::memory_order_relaxed); }
  void expect_once(const char* form) {
    std::size_t wrong = 0, first = 0;
    for (std::size_t i = 0; i < count.size(); ++i)
      if (count[i].load() != 1 && wrong++ == 0) first = i;
    check(wrong == 0, form,
          wrong ? "iteration " + std::to_string(first) + " ran " + std::to_string(count[first].load()) +
                      " times (" + std::to_string(wrong) + " wrong)"
                : "");
  }
};

template <typename T>
void signed_and_unsigned(const char* form, T n) {
  visits v(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(runtime)
  for (T i = 0; i < n; ++i) v.hit(static_cast<std::size_t>(i));
  v.expect_once(form);
}

void strides() {
  const long n = 3001;
  visits down(n);
#pragma omp parallel for schedule(runtime)
  for (long i = n - 1; i >= 0; i -= 3) down.hit(static_cast<std::size_t>(i));
  std::size_t wrong = 0;
  for (long i = 0; i < n; ++i) wrong += down.count[i].load() != ((n - 1 - i) % 3 == 0 ? 1 : 0);
  check(wrong == 0, "negative stride", std::to_string(wrong) + " wrong");

  visits up(n);
#pragma omp parallel for schedule(runtime)
  for (int i = 5; i < n; i += 7) up.hit(static_cast<std::size_t>(i));
  wrong = 0;
  for (long i = 0; i < n; ++i) wrong += up.count[i].load() != (i >= 5 && (i - 5) % 7 == 0 ? 1 : 0);
  check(wrong == 0, "stride 7", std::to_string(wrong) + " wrong");

  // Near the top of the 64-bit range: bounds must not overflow.
  const std::int64_t top = std::numeric_limits<std::int64_t>::max();
  visits high(1000);
#pragma omp parallel for schedule(runtime)
  for (std::int64_t i = top - 999; i < top; ++i) high.hit(static_cast<std::size_t>(i - (top - 999)));
  high.count[999].store(1);  // i < top: the last slot is never visited
  high.expect_once("int64 near INT64_MAX");

  const std::uint64_t utop = std::numeric_limits<std::uint64_t>::max();
  visits uhigh(1000);
#pragma omp parallel for schedule(runtime)
  for (std::uint64_t i = utop; i > utop - 1000; --i) uhigh.hit(static_cast<std::size_t>(utop - i));
  uhigh.expect_once("uint64 counting down from UINT64_MAX");
}

void collapse_and_clauses() {
  const int rows = 37, cols = 53;
  visits v(rows * cols);
#pragma omp parallel for schedule(runtime) collapse(2)
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) v.hit(static_cast<std::size_t>(r * cols + c));
  v.expect_once("collapse(2)");

  long sum = 0;
  const long n = 10007;
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
  for (long i = 0; i < n; ++i) sum += i;
  check(sum == n * (n - 1) / 2, "reduction", std::to_string(sum));

  long last = -1;
#pragma omp parallel for schedule(runtime) lastprivate(last)
  for (long i = 0; i < n; ++i) last = i;
  check(last == n - 1, "lastprivate", std::to_string(last));

  int zero_trip_runs = 0;
  const int empty = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : zero_trip_runs)
  for (int i = 0; i < empty; ++i) ++zero_trip_runs;
  check(zero_trip_runs == 0, "zero-trip loop");

  visits one(1);
#pragma omp parallel for schedule(runtime)
  for (int i = 0; i < 1; ++i) one.hit(0);
  one.expect_once("one-iteration loop");
}

void nowait_loops() {
  // More loops in flight than libomp's 7 dispatch buffers and our ring of 16.
  constexpr int loops = 40;
  const int n = 997;
  std::vector<visits> v;
  v.reserve(loops);
  for (int k = 0; k < loops; ++k) v.emplace_back(n + k);
#pragma omp parallel
  {
    for (int k = 0; k < loops; ++k) {
#pragma omp for schedule(runtime) nowait
      for (int i = 0; i < n + k; ++i) v[k].hit(static_cast<std::size_t>(i));
    }
  }
  for (auto& x : v) x.expect_once("nowait loops back to back");
}

void many_instances() {
  const int n = 64;
  visits v(n);
  for (int k = 0; k < 2000; ++k) {
#pragma omp parallel for schedule(runtime)
    for (int i = 0; i < n; ++i) v.hit(static_cast<std::size_t>(i));
  }
  std::size_t wrong = 0;
  for (auto& c : v.count) wrong += c.load() != 2000;
  check(wrong == 0, "2000 loop instances in a row");
}

void nested_and_serialized() {
  omp_set_max_active_levels(2);
  const int outer = 6, inner = 211;
  visits v(outer * inner);
#pragma omp parallel for schedule(runtime) num_threads(2)
  for (int o = 0; o < outer; ++o) {
#pragma omp parallel for schedule(runtime) num_threads(2)
    for (int i = 0; i < inner; ++i) v.hit(static_cast<std::size_t>(o * inner + i));
  }
  v.expect_once("nested parallel regions");
  omp_set_max_active_levels(1);

  visits s(500);
#pragma omp parallel for schedule(runtime) if (0)
  for (int i = 0; i < 500; ++i) s.hit(static_cast<std::size_t>(i));
  s.expect_once("serialized team (if(0))");

  visits orphan(300);
#pragma omp for schedule(runtime)
  for (int i = 0; i < 300; ++i) orphan.hit(static_cast<std::size_t>(i));
  orphan.expect_once("loop outside any parallel region");
}

void root_threads() {
  // Teams of different root threads run at the same time.
  const int n = 5000;
  std::vector<visits> v;
  v.reserve(3);
  for (int r = 0; r < 3; ++r) v.emplace_back(n);
  std::vector<std::thread> roots;
  for (int r = 0; r < 3; ++r)
    roots.emplace_back([&, r] {
      for (int k = 0; k < 20; ++k) {
#pragma omp parallel for schedule(runtime) num_threads(2)
        for (int i = 0; i < n; ++i)
          if (k == 0) v[r].hit(static_cast<std::size_t>(i));
      }
    });
  for (auto& t : roots) t.join();
  for (auto& x : v) x.expect_once("concurrent teams of 3 root threads");
}

void ordered_and_doacross() {
  // ordered loops stay libomp's; the order must hold.
  std::vector<int> order;
#pragma omp parallel for schedule(runtime) ordered
  for (int i = 0; i < 200; ++i) {
#pragma omp ordered
    order.push_back(i);
  }
  bool in_order = order.size() == 200;
  for (int i = 0; in_order && i < 200; ++i) in_order = order[i] == i;
  check(in_order, "ordered loop");

  // doacross: a[i] depends on a[i-1]; chunks must come in increasing order.
  const int n = 2000;
  std::vector<long> a(n, 0);
  a[0] = 1;
#pragma omp parallel for schedule(runtime) ordered(1)
  for (int i = 1; i < n; ++i) {
#pragma omp ordered depend(sink : i - 1)
    a[i] = a[i - 1] + i;
#pragma omp ordered depend(source)
  }
  check(a[n - 1] == 1 + static_cast<long>(n - 1) * n / 2, "doacross depend(sink: i-1)", std::to_string(a[n - 1]));
}

void standard_schedules_untouched() {
  visits v(4000);
#pragma omp parallel for schedule(dynamic, 3)
  for (int i = 0; i < 4000; ++i) v.hit(static_cast<std::size_t>(i));
  v.expect_once("schedule(dynamic,3), forwarded to libomp");
  visits g(4000);
#pragma omp parallel for schedule(guided)
  for (int i = 0; i < 4000; ++i) g.hit(static_cast<std::size_t>(i));
  g.expect_once("schedule(guided), forwarded to libomp");
}

enum class forms { all, flat, nested, paused };

void run_forms(forms which) {
  if (which == forms::nested) {
    for (int repeat = 0; repeat < 20; ++repeat) nested_and_serialized();
    return;
  }
  signed_and_unsigned<int>("int loop", 10007);
  signed_and_unsigned<unsigned>("unsigned loop", 10007u);
  signed_and_unsigned<long long>("int64 loop", 10007LL);
  signed_and_unsigned<unsigned long long>("uint64 loop", 10007ULL);
  strides();
  collapse_and_clauses();
  nowait_loops();
  many_instances();
  if (which == forms::all) nested_and_serialized();
  root_threads();
  ordered_and_doacross();
  standard_schedules_untouched();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> techniques;
  int shard = 0, shards = 1;
  forms which = forms::all;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--shard" && i + 1 < argc && std::sscanf(argv[i + 1], "%d/%d", &shard, &shards) == 2 &&
        shards > 0 && shard >= 0 && shard < shards) {
      ++i;
      continue;
    }
    if (std::string(argv[i]) == "--forms" && i + 1 < argc) {
      const std::string name = argv[++i];
      if (name != "all" && name != "flat" && name != "nested" && name != "paused") {
        std::fprintf(stderr, "--forms %s: expected all, flat, nested or paused\n", name.c_str());
        return 2;
      }
      which = name == "all" ? forms::all : name == "flat" ? forms::flat : name == "nested" ? forms::nested : forms::paused;
      continue;
    }
    techniques.push_back(argv[i]);
  }
  if (techniques.empty())
    for (const auto& t : selfsched::catalog())
      for (const char* form : {"%s", "w-%s", "%s-50", "%s-auto,2"}) {
        char name[64];
        std::snprintf(name, sizeof name, form, std::string(t.name).c_str());
        techniques.push_back(name);
      }
  std::vector<std::string> mine;
  for (std::size_t i = static_cast<std::size_t>(shard); i < techniques.size(); i += static_cast<std::size_t>(shards))
    mine.push_back(techniques[i]);
  techniques.swap(mine);

  for (const bool paused : {false, true}) {
    if (paused && which != forms::paused) break;
    if (paused && omp_pause_resource_all(omp_pause_hard) != 0) {
      std::fprintf(stderr, "FAIL: omp_pause_resource_all(omp_pause_hard) refused\n");
      return 1;
    }
    for (const std::string& technique : techniques) {
      if (selfsched_set_schedule(technique.c_str(), 0) != 0) {
        std::fprintf(stderr, "FAIL: selfsched_set_schedule(%s) refused\n", technique.c_str());
        return 1;
      }
      char active[64];
      selfsched_get_schedule(active, sizeof active);
      if (paused && active[0] != '\0') {  // its loops are libomp's: no technique may be claimed
        std::fprintf(stderr, "FAIL: after a hard pause selfsched_get_schedule says '%s', expected ''\n", active);
        return 1;
      }
      for (int threads : {1, 2, 3, 4, 8}) {
        context = technique + " (active '" + active + "'), " + std::to_string(threads) + " threads" +
                  (paused ? ", after a hard pause" : "");
        omp_set_num_threads(threads);
        run_forms(which == forms::paused ? forms::flat : which);
      }
    }
  }
  std::printf("%zu techniques x 5 thread counts: %d failures\n", techniques.size(), failures);
  return failures == 0 ? 0 : 1;
}

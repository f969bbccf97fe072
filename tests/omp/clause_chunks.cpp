// Loops written schedule(dynamic, k) or schedule(guided, k) that selfsched
// serves (SELFSCHED_OVERRIDE=dynamic,guided): OpenMP runs each chunk of k
// iterations of a dynamic loop on one thread, and no chunk of a guided loop
// is smaller than k but the last. A program may rely on who ran what (LLVM's
// own tests do), so every catalog technique, auto's shares and steals
// included, must hand out whole chunks of k, each iteration once, at every
// thread count.
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "selfsched.h"
#include "selfsched/core/registry.hpp"

namespace {

constexpr int n = 10'007;  // not a multiple of any k below
int failures = 0;
int owner[n];
std::atomic<int> runs[n];

void check(bool ok, const std::string& what) {
  if (ok) return;
  if (++failures <= 20) std::fprintf(stderr, "FAIL %s\n", what.c_str());
}

// Uneven iterations, so that auto's threads run dry and steal.
void visit(int i) {
  owner[i] = omp_get_thread_num();
  runs[i].fetch_add(1, std::memory_order_relaxed);
  volatile double x = 0;
  for (int k = 0; k < (i * 7919) % 300; ++k) x = x + 1.0 / (k + 1);
}

void reset() {
  for (auto& r : runs) r.store(0, std::memory_order_relaxed);
}

// Every iteration once; each aligned block of k run by one thread.
void expect_whole_chunks(int k, const std::string& what) {
  int wrong_runs = 0, split = -1;
  for (int i = 0; i < n; ++i) {
    if (runs[i].load() != 1) ++wrong_runs;
    if (split < 0 && owner[i] != owner[i - i % k]) split = i;
  }
  check(wrong_runs == 0, what + ": " + std::to_string(wrong_runs) + " iterations not run once");
  check(split < 0, what + ": the chunk of " + std::to_string(k) + " at " + std::to_string(split - split % k) +
                       " ran on two threads");
}

// No run of one thread's iterations shorter than k but the last.
void expect_guided_minimum(int k, const std::string& what) {
  int run = 1, short_at = -1;
  for (int i = 1; i < n; ++i, ++run)
    if (owner[i] != owner[i - 1]) {
      if (run < k && short_at < 0) short_at = i - run;
      run = 0;
    }
  check(short_at < 0, what + ": a chunk under " + std::to_string(k) + " at " + std::to_string(short_at));
}

void run_loops(const std::string& context) {
  reset();
#pragma omp parallel for schedule(dynamic, 7)
  for (int i = 0; i < n; ++i) visit(i);
  expect_whole_chunks(7, context + " dynamic,7");
  reset();
#pragma omp parallel for schedule(monotonic: dynamic, 64)
  for (int i = 0; i < n; ++i) visit(i);
  expect_whole_chunks(64, context + " monotonic:dynamic,64");
  reset();
#pragma omp parallel for schedule(guided, 9)
  for (int i = 0; i < n; ++i) visit(i);
  expect_guided_minimum(9, context + " guided,9");
}

}  // namespace

int main() {
  std::vector<std::string> techniques;
  for (const auto& t : selfsched::catalog()) {
    techniques.emplace_back(t.name);
    techniques.push_back("w-" + std::string(t.name));
  }
  for (const std::string& technique : techniques) {
    if (selfsched_set_schedule(technique.c_str(), 0) != 0) {
      std::fprintf(stderr, "FAIL: selfsched_set_schedule(%s) refused\n", technique.c_str());
      return 1;
    }
    for (int threads : {1, 2, 3, 4}) {
      omp_set_num_threads(threads);
      run_loops(technique + ", " + std::to_string(threads) + " threads");
    }
  }
  std::printf("%zu techniques x 4 thread counts: %d failures\n", techniques.size(), failures);
  return failures == 0 ? 0 : 1;
}

// The order in which auto hands a thread its chunks (team_auto/iteration_shares.hpp):
//  - schedule(monotonic:runtime): each thread's chunks in increasing order;
//  - schedule(runtime) (nonmonotonic since OpenMP 5.0): each thread starts
//    at its own share, as under static, and takes from the others' when it
//    runs dry; built for OpenMP 4.5 (-fopenmp-version=45, no modifier), in
//    order, as that version's default was monotonic;
//  - either way, every iteration once, and lastprivate holds the last
//    iteration's value, while threads steal from each other.
#include <omp.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "selfsched.h"

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  if (ok) return;
  ++failures;
  std::fprintf(stderr, "FAIL %s\n", what.c_str());
}

// Uneven iterations: some threads run dry early and steal.
void work(long i) {
  volatile double x = 0;
  for (long k = 0; k < (i * 7919) % 400; ++k) x = x + 1.0 / static_cast<double>(k + 1);
}

// Each thread's first iteration of a loop of n on two threads, where the
// thread that runs iteration 0 holds it until the other has begun one (at
// most 10 s): the other's first chunk is then what it gets while the first
// chunk is still running.
struct first_iterations {
  std::atomic<long> of[2] = {-1, -1};
  void note(long i) {
    const int me = omp_get_thread_num();
    long none = -1;
    of[me].compare_exchange_strong(none, i);
    if (i != 0) return;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (of[1 - me].load() < 0 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  }
  long of_other_than_0() const { return of[0].load() == 0 ? of[1].load() : of[0].load(); }
};

void monotonic_per_thread(int threads) {
  const long n = 20'000;
  std::vector<std::vector<long>> seen(static_cast<std::size_t>(threads));
  std::vector<std::atomic<int>> runs(n);
#pragma omp parallel num_threads(threads)
  {
    std::vector<long>& mine = seen[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(monotonic : runtime)
    for (long i = 0; i < n; ++i) {
      mine.push_back(i);
      runs[i].fetch_add(1);
      work(i);
    }
  }
  for (int t = 0; t < threads; ++t)
    for (std::size_t k = 1; k < seen[t].size(); ++k)
      if (seen[t][k] <= seen[t][k - 1]) {
        check(false, "monotonic, " + std::to_string(threads) + " threads: thread " + std::to_string(t) + " ran " +
                         std::to_string(seen[t][k]) + " after " + std::to_string(seen[t][k - 1]));
        break;
      }
  long wrong = 0;
  for (long i = 0; i < n; ++i) wrong += runs[i].load() != 1;
  check(wrong == 0, "monotonic, " + std::to_string(threads) + " threads: " + std::to_string(wrong) +
                        " iterations not run exactly once");
}

void thread1_starts_at_its_share() {
  // n - 1 iterations shared (the last one is kept back for the end): thread
  // 1's share starts at (n - 1) / 2. Under OpenMP 4.5, in order: the thread
  // without iteration 0 begins at 1.
  const long n = 1001;
  first_iterations first;
#pragma omp parallel for schedule(runtime) num_threads(2)
  for (long i = 0; i < n; ++i) first.note(i);
#if _OPENMP >= 201811
  const long got = first.of[1].load(), expected = (n - 1) / 2;
#else
  const long got = first.of_other_than_0(), expected = 1;
#endif
  check(got == expected, "schedule(runtime) under OpenMP " + std::to_string(_OPENMP) + ": began at " +
                             std::to_string(got) + ", not at " + std::to_string(expected));
}

void monotonic_other_thread_begins_next() {
  const long n = 1001;
  first_iterations first;
#pragma omp parallel for schedule(monotonic : runtime) num_threads(2)
  for (long i = 0; i < n; ++i) first.note(i);
  // auto's first chunk is one iteration: [0, 1) is held by one thread.
  check(first.of_other_than_0() == 1,
        "monotonic: the thread without iteration 0 began at " + std::to_string(first.of_other_than_0()));
}

void lastprivate_while_stealing(int threads) {
  const long n = 5'000;
  for (int round = 0; round < 20; ++round) {
    long last = -1;
    std::vector<std::atomic<int>> runs(n);
#pragma omp parallel for schedule(runtime) lastprivate(last) num_threads(threads)
    for (long i = 0; i < n; ++i) {
      runs[i].fetch_add(1);
      work(n - i);  // the costliest first: the early shares run dry last
      last = i;
    }
    long wrong = 0;
    for (long i = 0; i < n; ++i) wrong += runs[i].load() != 1;
    const std::string context = std::to_string(threads) + " threads, round " + std::to_string(round);
    check(wrong == 0, "nonmonotonic, " + context + ": " + std::to_string(wrong) + " iterations not run exactly once");
    check(last == n - 1, "lastprivate, " + context + ": " + std::to_string(last));
  }
}

}  // namespace

int main() {
  if (selfsched_set_schedule("auto", 0) != 0) {
    std::fprintf(stderr, "FAIL selfsched_set_schedule(\"auto\") refused\n");
    return 1;
  }
  thread1_starts_at_its_share();
  monotonic_other_thread_begins_next();
  for (int threads : {2, 3, 8}) {
    monotonic_per_thread(threads);
    lastprivate_while_stealing(threads);
  }
  if (failures == 0) std::printf("chunk order: all checks passed\n");
  return failures == 0 ? 0 : 1;
}

// The order in which auto hands a thread its chunks (shares.hpp):
//  - schedule(monotonic:runtime): each thread's chunks in increasing order;
//  - schedule(runtime) (nonmonotonic): each thread starts at its own share,
//    as under static, and takes from the others' when it runs dry;
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

// Thread 0 holds its first iteration until thread 1 has begun one (at most
// 10 s): the team's first chunks are then the ones each share starts with.
struct first_iterations {
  std::atomic<long> of_thread1{-1};
  void hold_thread0() {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (of_thread1.load() < 0 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  }
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
  // 1's share starts at (n - 1) / 2.
  const long n = 1001;
  first_iterations first;
#pragma omp parallel for schedule(runtime) num_threads(2)
  for (long i = 0; i < n; ++i) {
    if (omp_get_thread_num() == 1) {
      long none = -1;
      first.of_thread1.compare_exchange_strong(none, i);
    } else if (i == 0) {
      first.hold_thread0();
    }
  }
  check(first.of_thread1.load() == (n - 1) / 2,
        "nonmonotonic: thread 1 began at " + std::to_string(first.of_thread1.load()) + ", not at its share's " +
            std::to_string((n - 1) / 2));
}

void monotonic_thread1_follows_thread0() {
  const long n = 1001;
  first_iterations first;
#pragma omp parallel for schedule(monotonic : runtime) num_threads(2)
  for (long i = 0; i < n; ++i) {
    if (omp_get_thread_num() == 1) {
      long none = -1;
      first.of_thread1.compare_exchange_strong(none, i);
    } else if (i == 0) {
      first.hold_thread0();
    }
  }
  // auto's first chunk is one iteration: thread 0 holds [0, 1).
  check(first.of_thread1.load() == 1, "monotonic: thread 1 began at " + std::to_string(first.of_thread1.load()));
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
  monotonic_thread1_follows_thread0();
  for (int threads : {2, 3, 8}) {
    monotonic_per_thread(threads);
    lastprivate_while_stealing(threads);
  }
  if (failures == 0) std::printf("chunk order: all checks passed\n");
  return failures == 0 ? 0 : 1;
}

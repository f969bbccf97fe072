// A thread waiting inside libselfsched (here for its doacross predecessor)
// gives its CPU away with sched_yield only when its team has more threads
// than the process has CPUs: then the thread it waits for may need that CPU.
// Otherwise a yield hands a CPU shared with another process to that process
// for a whole time slice (selfsched/machine/spin.hpp).
//
// This program defines sched_yield itself (exported, so libselfsched's calls
// land here) and counts the calls made from libselfsched. One thread sleeps
// in the first iteration of a doacross loop while the others wait for it:
// no yield from a team that fits the CPUs, yields from one that does not,
// and from two root threads whose teams fit one by one but not together.
#include <dlfcn.h>
#include <omp.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "selfsched.h"

namespace {
std::atomic<long> yields_from_selfsched{0};
}

extern "C" int sched_yield() {
  Dl_info info;
  if (dladdr(__builtin_return_address(0), &info) != 0 && info.dli_fname != nullptr &&
      std::strstr(info.dli_fname, "libselfsched") != nullptr)
    yields_from_selfsched.fetch_add(1, std::memory_order_relaxed);
  return static_cast<int>(syscall(SYS_sched_yield));
}

namespace {

// A team of `threads` runs a doacross loop whose first iteration takes
// 20 ms; false if the loop ran out of order.
bool doacross_team(int threads) {
  const int n = 4 * threads;
  std::atomic<int> next{0};
  bool in_order = true;
#pragma omp parallel num_threads(threads) reduction(&& : in_order)
  {
#pragma omp for ordered(1) schedule(runtime)
    for (int i = 0; i < n; ++i) {
#pragma omp ordered depend(sink : i - 1)
      if (i == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      in_order = in_order && next.exchange(i + 1) == i;
#pragma omp ordered depend(source)
    }
  }
  return in_order;
}

// The yields from libselfsched while one team runs the loop.
bool run_team(int threads, long& yields) {
  yields_from_selfsched.store(0);
  const bool in_order = doacross_team(threads);
  yields = yields_from_selfsched.load();
  return in_order;
}

// The same from two root threads at once, a team of `threads` each.
bool run_two_roots(int threads, long& yields) {
  yields_from_selfsched.store(0);
  std::atomic<int> arrived{0};
  std::atomic<bool> in_order[2] = {true, true};
  auto root = [&](int r) {
    if (selfsched_set_schedule("ss", 0) != 0) in_order[r] = false;  // each root thread's own run-sched-var
    arrived.fetch_add(1);
    while (arrived.load() < 2) std::this_thread::yield();  // both teams wait at once
    in_order[r] = doacross_team(threads) && in_order[r];
  };
  std::thread first(root, 0), second(root, 1);
  first.join();
  second.join();
  yields = yields_from_selfsched.load();
  return in_order[0] && in_order[1];
}

}  // namespace

int main() {
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) {
    std::perror("sched_getaffinity");
    return 1;
  }
  const int cpus = CPU_COUNT(&mask);
  if (selfsched_set_schedule("ss", 0) != 0) {
    std::fprintf(stderr, "FAIL: selfsched_set_schedule(ss) refused\n");
    return 1;
  }
  int failures = 0;
  long yields = 0;
  // A team that fits: two threads, if the process has two CPUs.
  if (cpus >= 2) {
    if (!run_team(2, yields)) ++failures, std::fprintf(stderr, "FAIL: 2 threads ran the doacross loop out of order\n");
    std::printf("2 threads on %d CPUs: %ld yields from libselfsched\n", cpus, yields);
    if (yields != 0) ++failures, std::fprintf(stderr, "FAIL: a team that fits the CPUs yielded %ld times\n", yields);
  } else {
    std::printf("1 CPU: no team of two fits; only the oversubscribed case runs\n");
  }
  // Two root threads whose teams fit the CPUs one by one, not together.
  if (cpus >= 2) {
    if (!run_two_roots(cpus, yields))
      ++failures, std::fprintf(stderr, "FAIL: two root threads ran their doacross loops out of order\n");
    std::printf("2 root threads with %d threads each on %d CPUs: %ld yields from libselfsched\n", cpus, cpus, yields);
    if (yields == 0) ++failures, std::fprintf(stderr, "FAIL: two teams that together oversubscribe never yielded\n");
    // Their teams have ended: a team that fits waits without yielding again.
    if (!run_team(2, yields)) ++failures, std::fprintf(stderr, "FAIL: 2 threads ran the doacross loop out of order\n");
    std::printf("then 2 threads alone: %ld yields from libselfsched\n", yields);
    if (yields != 0)
      ++failures, std::fprintf(stderr, "FAIL: after the two root threads ended, a team that fits yielded %ld times\n", yields);
  }
  // A team that does not fit: its waiting threads must let the sleeper's
  // successors run (and show that the count sees libselfsched's calls).
  const int too_many = cpus + 2;
  if (!run_team(too_many, yields))
    ++failures, std::fprintf(stderr, "FAIL: %d threads ran the doacross loop out of order\n", too_many);
  std::printf("%d threads on %d CPUs: %ld yields from libselfsched\n", too_many, cpus, yields);
  if (yields == 0) ++failures, std::fprintf(stderr, "FAIL: an oversubscribed team never yielded while it waited\n");
  return failures == 0 ? 0 : 1;
}

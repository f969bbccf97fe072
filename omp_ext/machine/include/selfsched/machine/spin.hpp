// Waiting without a syscall in the common case, and without burning a whole
// time slice when the machine is oversubscribed (16 threads on 2 cores).
#pragma once

#include <sched.h>

#include <atomic>

namespace selfsched::omp {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Whether this thread, when it waits, gives its CPU away after a short spin:
// only when its nest of teams has more threads than the process has CPUs
// (set by teams.cpp as the thread joins and leaves teams), or all the teams
// of the process together have (process_oversubscribed: several root
// threads with a team each), so the thread it waits for may need this CPU.
// Otherwise a yield hands a CPU shared with another process to that process
// for a whole time slice while the thread waited for runs elsewhere: beside
// a busy process, GAPBS sssp's dynamic loop ran 1.5-2x slower under
// selfsched's css than under libomp, whose waits yield only when
// oversubscribed too.
extern __attribute__((tls_model("initial-exec"))) thread_local bool waits_yield;

// The threads running parallel regions now, in the whole process, changed
// by `change` (teams.cpp, as teams start and end), and whether they are more
// than the process has CPUs (placement.hpp). Two root threads with a team of
// 2 each on 2 CPUs fit one by one but not together: their waiting threads
// must yield.
void count_threads_in_regions(int change);
bool process_oversubscribed();

inline void relax_or_yield() {
  if (waits_yield || process_oversubscribed()) sched_yield();
  else cpu_relax();
}

template <typename Ready>
void spin_until(Ready ready) {
  for (int spins = 0; !ready(); ++spins) {
    if (spins < 64) cpu_relax();
    else relax_or_yield();
  }
}

// Test-and-test-and-set; held for a few dozen instructions (one technique
// step), so spinning beats a futex.
class spin_lock {
 public:
  void lock() {
    while (locked_.exchange(true, std::memory_order_acquire))
      spin_until([&] { return !locked_.load(std::memory_order_relaxed); });
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

}  // namespace selfsched::omp

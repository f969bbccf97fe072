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

template <typename Ready>
void spin_until(Ready ready) {
  for (int spins = 0; !ready(); ++spins) {
    if (spins < 64) cpu_relax();
    else sched_yield();
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

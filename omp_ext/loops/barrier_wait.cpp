#include "loops/barrier_wait.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>

#include "selfsched/machine/platform.hpp"
#include "selfsched/machine/runqueue.hpp"
#include "selfsched/settings.hpp"

namespace selfsched::omp {

__attribute__((tls_model("initial-exec"))) thread_local bool detail::watches_cpu = false;
__attribute__((tls_model("initial-exec"))) thread_local std::uint32_t detail::recent_joins = 0;
__attribute__((tls_model("initial-exec"))) thread_local std::uint32_t detail::recent_region_starts = 0;

namespace {

using set_blocktime_function = void (*)(int milliseconds);
using get_blocktime_function = int (*)();

// libomp's kmp_set_blocktime, or nullptr where threads' waits are not ours
// to change.
set_blocktime_function blocktime_setter() {
  static const set_blocktime_function setter = []() -> set_blocktime_function {
    if (!current_settings().shared_cpu_sleep || !current_settings().run_queue) return nullptr;
    for (const char* chosen : {"KMP_BLOCKTIME", "OMP_WAIT_POLICY", "KMP_LIBRARY"})
      if (std::getenv(chosen) != nullptr) return nullptr;
    return reinterpret_cast<set_blocktime_function>(dlsym(RTLD_DEFAULT, "kmp_set_blocktime"));
  }();
  return setter;
}

constexpr int libomp_default_blocktime_ms = 200;  // KMP_BLOCKTIME unset

// The calling thread's blocktime now (libomp's default where it cannot say).
int current_blocktime() {
  static const auto getter = reinterpret_cast<get_blocktime_function>(dlsym(RTLD_DEFAULT, "kmp_get_blocktime"));
  return getter != nullptr ? getter() : libomp_default_blocktime_ms;
}

// The thread's account at its last look (none yet: since it started), since
// when it sleeps at barriers (0: it spins), and its blocktime before.
thread_local cpu_account last_look;
thread_local std::int64_t sleeps_since = 0;
thread_local int blocktime_before = libomp_default_blocktime_ms;

// Whether the thread's recent auto loops mostly ran inside regions, after
// barriers it would be woken from (enough of them to say).
bool loops_inside_regions() {
  return detail::recent_joins >= 8 && 2 * detail::recent_region_starts < detail::recent_joins;
}

// A decision wants this much of the thread's time seen since the last one.
constexpr std::int64_t enough_seen_ns = 2'000'000;
// How long a thread sleeps at barriers before it spins and looks again.
// While it sleeps its own account cannot tell whether the CPU is still
// shared: woken, it preempts the other task and barely waits at all.
constexpr std::int64_t sleep_for_ns = 1'000'000'000;

// Whether another task shares the thread's CPU: since the last look it
// waited, runnable, at least a quarter as long as it ran (beside one busy
// process that spins it waits about as long as it runs; on a CPU of its
// own, almost never): 1 or 0, or -1 when too little was seen to say. Where
// the account cannot be read, the run-queue monitor decides.
int cpu_is_shared(std::int64_t now) {
  cpu_account seen;
  if (!thread_cpu_account(seen)) return run_queue_length(now) >= 1.5;
  const std::int64_t ran = seen.ran_ns - last_look.ran_ns, waited = seen.waited_ns - last_look.waited_ns;
  if (ran + waited < enough_seen_ns) return -1;
  last_look = seen;
  return 4 * waited >= ran;
}

void say_once(int thread, std::int64_t late_ns) {
  static std::atomic<bool> said{false};  // once per process
  if (current_settings().verbose && !said.exchange(true, std::memory_order_relaxed))
    warn("thread %d joined an auto loop %.1f ms late on cpu %d, which another task uses: it sleeps at barriers "
         "instead of spinning while the CPU is shared (SELFSCHED_SHARED_CPU=spin keeps libomp's wait)",
         thread, static_cast<double>(late_ns) * 1e-6, current_cpu());
}

}  // namespace

bool sleeps_at_barriers() { return sleeps_since != 0; }

void detail::look_at_shared_cpu(int thread, std::int64_t late_ns, std::int64_t now) {
  const set_blocktime_function set_blocktime = blocktime_setter();
  if (set_blocktime == nullptr) return;
  if (sleeps_since != 0) {
    if (now - sleeps_since < sleep_for_ns && !loops_inside_regions()) return set_blocktime(0);
    // Spin again, at once (a region may run long), and look afresh at the
    // next late join.
    set_blocktime(blocktime_before);
    sleeps_since = 0;
    watches_cpu = false;
    thread_cpu_account(last_look);
    return;
  }
  const int shared = cpu_is_shared(now);
  watches_cpu = shared == -1;
  if (shared == 1 && !loops_inside_regions()) {
    watches_cpu = true;
    sleeps_since = now;
    blocktime_before = current_blocktime();
    set_blocktime(0);
    say_once(thread, late_ns);
  }
}

}  // namespace selfsched::omp

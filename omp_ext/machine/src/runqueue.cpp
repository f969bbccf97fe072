#include "selfsched/machine/runqueue.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>

#include "selfsched/machine/platform.hpp"
#include "selfsched/machine/spin.hpp"
#include "selfsched/settings.hpp"

namespace selfsched::omp {
namespace {

constexpr int tracked_cpus = CPU_SETSIZE;  // 1024: a CPU beyond gets Q = 1
// Each reading moves the mean this far towards what it saw: about the last
// four readings count.
constexpr double reading_weight = 0.25;
// A reading may cost at most this share of the interval until the next one.
constexpr double largest_reading_share = 0.02;

// Per CPU, the faded mean number of runnable tasks of other processes. One
// table for the process: the run queues are the machine's, not a thread's.
// The scalars come first: set at start-up, they share a page with the
// library's other data, and the 8 KB of means are first touched by the
// first reading.
struct run_queues {
  std::atomic<std::int64_t> next_reading_ns{0};
  std::atomic<bool> reading{false};
  bool have_reading = false;  // written only by the reader holding `reading`
  std::atomic<bool> first_done{false};  // the first reading is in (or reading is off)
  std::int64_t interval_ns = 0;
  std::atomic<double> others[tracked_cpus] = {};
};
constinit run_queues machine_queues;

// Takes one reading into the faded means. Called with `reading` held.
void take_reading(run_queues& q, std::int64_t now) {
  static int counts[tracked_cpus];
  std::fill(std::begin(counts), std::end(counts), 0);
  if (!count_other_runnable_tasks(counts, tracked_cpus)) {
    warn("the run-queue monitor cannot read /proc; Q_k = 1 on every thread");
    for (auto& others : q.others) others.store(0, std::memory_order_relaxed);
    q.next_reading_ns.store(INT64_MAX, std::memory_order_relaxed);
    q.first_done.store(true, std::memory_order_release);
    return;
  }
  const std::int64_t done = now_ns();
  // The first reading stands alone; later ones are averaged with fading
  // weights, so that one instant's picture of tasks that run in bursts does
  // not decide Q.
  const double weight = q.have_reading ? reading_weight : 1.0;
  for (int cpu = 0; cpu < tracked_cpus; ++cpu) {
    const double old = q.others[cpu].load(std::memory_order_relaxed);
    q.others[cpu].store(old + weight * (counts[cpu] - old), std::memory_order_relaxed);
  }
  q.have_reading = true;
  q.first_done.store(true, std::memory_order_release);
  const auto cost = static_cast<std::int64_t>(static_cast<double>(done - now) / largest_reading_share);
  q.next_reading_ns.store(done + std::max(q.interval_ns, cost), std::memory_order_release);
}

// A child forked while another thread was reading would otherwise never
// read again. Registered before the first reading begins, not at load: most
// processes never read.
void release_reading_in_forked_children() {
  static const bool registered =
      pthread_atfork(nullptr, nullptr, [] { machine_queues.reading.store(false, std::memory_order_relaxed); }) == 0;
  (void)registered;
}

}  // namespace

// Set up when the library loads (startup.cpp); the first reading is taken
// when a technique that reads Q comes into force or by the first claim that
// needs Q, not here: a library preloaded into every process of a job
// (shells, launchers) must not walk /proc in each of them.
void set_up_run_queues() {
  run_queues& q = machine_queues;
  const settings& s = current_settings();
  q.interval_ns = static_cast<std::int64_t>(s.run_queue_ms * 1e6);
  if (!s.run_queue) {  // SELFSCHED_RUNQUEUE=false: never read, Q = 1
    q.next_reading_ns.store(INT64_MAX, std::memory_order_relaxed);
    q.first_done.store(true, std::memory_order_relaxed);
  }
}

namespace {

[[gnu::noinline]] void refresh(run_queues& q, std::int64_t now) {
  release_reading_in_forked_children();
  // Another thread is at it: go on with the old values (a plain load first,
  // so that waiting threads do not bounce the flag's cache line).
  if (q.reading.load(std::memory_order_relaxed) || q.reading.exchange(true, std::memory_order_acquire)) {
    // Before the first reading there are no old values: wait for it.
    spin_until([&] { return q.first_done.load(std::memory_order_acquire); });
    return;
  }
  if (now >= q.next_reading_ns.load(std::memory_order_relaxed)) take_reading(q, now);
  q.reading.store(false, std::memory_order_release);
}

}  // namespace

void take_first_run_queue_reading() {
  run_queues& q = machine_queues;
  if (q.first_done.load(std::memory_order_acquire)) return;
  release_reading_in_forked_children();
  if (q.reading.exchange(true, std::memory_order_acquire)) return;
  take_reading(q, now_ns());
  q.have_reading = false;
  q.reading.store(false, std::memory_order_release);
}

double run_queue_length(std::int64_t now) {
  run_queues& q = machine_queues;
  if (now >= q.next_reading_ns.load(std::memory_order_relaxed)) refresh(q, now);
  const int cpu = current_cpu();
  if (cpu < 0 || cpu >= tracked_cpus) return 1.0;
  return 1.0 + q.others[cpu].load(std::memory_order_relaxed);
}

}  // namespace selfsched::omp

#include "runqueue.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "platform.hpp"
#include "settings.hpp"

namespace selfsched::omp {
namespace {

constexpr std::int64_t never = INT64_MAX;
constexpr double refreshes_per_window = 8;
constexpr double largest_queue = 1024;  // a bound, not a model: wait / run with run near 0
constexpr double runnable_fraction = 0.9;  // of an interval, for it to count

struct monitor {
  double queue = 1.0;
  std::int64_t next_refresh_ns = 0;  // 0: never read
  std::int64_t last_ns = 0, last_run_ns = 0, last_wait_ns = 0;
  double run = 0, wait = 0;  // exponentially faded sums, ns
};

// Trivially constructible: static TLS, a plain load on the claim path.
__attribute__((tls_model("initial-exec"))) thread_local monitor this_thread;

struct config {
  bool on;
  std::int64_t interval_ns;
  double window_ns;
};

[[gnu::noinline]] void refresh(monitor& m, std::int64_t now) {
  static const config c = [] {
    const settings& s = current_settings();
    const double interval = s.run_queue_ms * 1e6;
    return config{s.run_queue, static_cast<std::int64_t>(interval), interval * refreshes_per_window};
  }();
  const std::int64_t wait = c.on ? thread_run_queue_wait_ns() : -1;
  const std::int64_t run = wait >= 0 ? thread_cpu_ns() : -1;
  if (wait < 0 || run < 0) {
    static std::atomic<bool> said{false};
    if (c.on && !said.exchange(true))
      warn("the run-queue monitor cannot read /proc/thread-self/schedstat; Q_k = 1 on every thread");
    m.queue = 1;
    m.next_refresh_ns = never;
    return;
  }
  const bool first = m.last_ns == 0;
  double new_run = static_cast<double>(run - m.last_run_ns);
  double new_wait = static_cast<double>(wait - m.last_wait_ns);
  const double elapsed = static_cast<double>(now - m.last_ns);
  m.last_ns = now, m.last_run_ns = run, m.last_wait_ns = wait;
  m.next_refresh_ns = now + c.interval_ns;
  if (first) return;  // a baseline: the thread's life so far mixes in start-up and sleeps
  const double fade = std::exp(-elapsed / c.window_ns);
  m.run *= fade;
  m.wait *= fade;
  // 1 + wait / run is the share of a thread that stayed runnable. One that
  // blocked in between (slept between loops, read a file) pays a wake-up
  // latency each time it wakes, which would read as load: such an interval
  // only fades the old data.
  if (new_run + new_wait >= runnable_fraction * elapsed) {
  // A long interval (one long chunk) counts as one window: its ratio, not
  // its length.
    if (elapsed > c.window_ns) {
      new_run *= c.window_ns / elapsed;
      new_wait *= c.window_ns / elapsed;
    }
    m.run += new_run;
    m.wait += new_wait;
  }
  // Only with about half a window of data (a single interval may fall
  // entirely inside another task's time slice); else unknown: 1.
  const bool enough = m.run > 0 && m.run + m.wait >= c.window_ns / 2;
  m.queue = enough ? std::clamp(1.0 + m.wait / m.run, 1.0, largest_queue) : 1.0;
}

}  // namespace

double run_queue_length(std::int64_t now) {
  monitor& m = this_thread;
  if (now >= m.next_refresh_ns) refresh(m, now);
  return m.queue;
}

}  // namespace selfsched::omp

// Clocks, CPU and run-queue probes: the only place that talks to the OS about
// time and load.
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

namespace selfsched::omp {

// Monotonic nanoseconds through the vDSO: no syscall.
inline std::int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

// The CPU (OS index) this thread runs on now, -1 if unknown. glibc reads it
// from the rseq area or the vDSO: no syscall.
inline int current_cpu() { return sched_getcpu(); }

// CPU time this thread has run, in ns (one syscall; exact, unlike the
// tick-granular run time in schedstat).
inline std::int64_t thread_cpu_ns() {
  timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return -1;
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

// Time this thread has spent runnable but waiting for a CPU (ns), -1 when the
// kernel does not say. /proc/thread-self/schedstat is "run_ns wait_ns
// timeslices" (Linux >= 3.17 with CONFIG_SCHED_INFO, on in every distribution
// kernel); the wait is the scheduler's run_delay, brought up to date each
// time the thread gets a CPU, so it is exact when the thread reads it.
inline std::int64_t thread_run_queue_wait_ns() {
  const int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[96];
  const ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  if (got <= 0) return -1;
  text[got] = '\0';
  unsigned long long run = 0, wait = 0;
  if (std::sscanf(text, "%llu %llu", &run, &wait) != 2) return -1;
  return static_cast<std::int64_t>(wait);
}

}  // namespace selfsched::omp

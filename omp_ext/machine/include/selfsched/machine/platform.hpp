// Clocks, CPU and run-queue probes: the only place that talks to the OS about
// time and load.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

namespace detail {

// Reads a small /proc file into `text` (NUL-terminated); false if it cannot.
inline bool read_proc_file(const char* path, char* text, std::size_t size) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t got = read(fd, text, size - 1);
  close(fd);
  if (got <= 0) return false;
  text[got] = '\0';
  return true;
}

// Field `number` (1-based, as in proc(5)) of a /proc/.../stat line, from field 3
// on: those follow the last ')' (the command name may hold spaces and
// parentheses). nullptr if the line is shorter.
inline const char* stat_field(const char* text, int number) {
  const char* at = std::strrchr(text, ')');
  if (at == nullptr) return nullptr;
  for (int field = 2; field < number; ++field) {
    at = std::strchr(at + 1, ' ');
    if (at == nullptr) return nullptr;
  }
  return at + 1;
}

// The numeric entries (process or thread ids) of a /proc directory, read with
// getdents64: no allocation, so it is safe in a library constructor.
struct numeric_entries {
  int fd;
  long length = 0, at = 0;
  alignas(8) char buffer[8192];

  explicit numeric_entries(int directory) : fd(directory) {}
  // The next entry's name, nullptr at the end.
  const char* next() {
    for (;;) {
      if (at >= length) {
        length = syscall(SYS_getdents64, fd, buffer, sizeof buffer);
        at = 0;
        if (length <= 0) return nullptr;
      }
      const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
      at += entry->d_reclen;
      if (entry->d_name[0] >= '0' && entry->d_name[0] <= '9') return entry->d_name;
    }
  }
};

// Counts one task if its stat line says runnable ('R': running or waiting in
// a run queue); its field 39 is then the CPU whose run queue holds it.
inline void count_if_runnable(const char* stat, int* counts, int cpus) {
  const char* state = stat_field(stat, 3);
  const char* cpu_field = stat_field(stat, 39);
  if (state == nullptr || *state != 'R' || cpu_field == nullptr) return;
  const int cpu = std::atoi(cpu_field);
  if (cpu >= 0 && cpu < cpus) ++counts[cpu];
}

}  // namespace detail

// How long the calling thread has run and how long it has waited, runnable,
// for a CPU (ns, since it started): the scheduler's own account in
// /proc/thread-self/schedstat (CONFIG_SCHED_INFO, on in the kernels of the
// common distributions). One small read, about 3 us. false if unreadable.
struct cpu_account {
  std::int64_t ran_ns = 0, waited_ns = 0;
};
inline bool thread_cpu_account(cpu_account& out) {
  char text[128];
  long long ran = 0, waited = 0;
  if (!detail::read_proc_file("/proc/thread-self/schedstat", text, sizeof text) ||
      std::sscanf(text, "%lld %lld", &ran, &waited) != 2 || ran < 0 || waited < 0)
    return false;
  out = {ran, waited};
  return true;
}

// The run queues of the machine, without this process: counts[c] += the
// number of runnable tasks (running or waiting for a CPU) of other processes
// on CPU c, for c < cpus, from /proc/<pid>/stat (a single-threaded process)
// or /proc/<pid>/task/<tid>/stat. This process is left out so that its own
// threads spinning at a barrier or waiting for a chunk never read as load.
// An instant picture: a busy competitor is runnable whenever it runs or
// waits, so one reading counts it exactly; tasks that run in bursts are seen
// in proportion to their share over repeated readings. Linux keeps no cheap
// per-CPU run-queue length elsewhere: /proc/schedstat needs CONFIG_SCHEDSTATS,
// /proc/stat's procs_running and /proc/loadavg are machine-wide. Cost: one
// open/read/close per process (per thread for multithreaded ones), about
// 10 us each on a 2-vCPU VM. Processes outside this PID namespace are not
// seen. Returns false when /proc cannot be read.
inline bool count_other_runnable_tasks(int* counts, int cpus) {
  const int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) return false;
  const long self = static_cast<long>(getpid());
  char path[64], stat[1024];
  detail::numeric_entries processes(proc);
  while (const char* pid = processes.next()) {
    if (std::atol(pid) == self) continue;
    std::snprintf(path, sizeof path, "/proc/%s/stat", pid);
    if (!detail::read_proc_file(path, stat, sizeof stat)) continue;  // it ended meanwhile
    const char* threads = detail::stat_field(stat, 20);
    if (threads != nullptr && std::atol(threads) == 1) {
      detail::count_if_runnable(stat, counts, cpus);
      continue;
    }
    std::snprintf(path, sizeof path, "/proc/%s/task", pid);
    const int task_directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (task_directory < 0) continue;
    detail::numeric_entries tasks(task_directory);
    while (const char* tid = tasks.next()) {
      std::snprintf(path, sizeof path, "/proc/%s/task/%s/stat", pid, tid);
      if (detail::read_proc_file(path, stat, sizeof stat)) detail::count_if_runnable(stat, counts, cpus);
    }
    close(task_directory);
  }
  close(proc);
  return true;
}

}  // namespace selfsched::omp

// A busy process pinned to one CPU, and a machine quiet enough to read the
// load it makes: what the run-queue tests set up before each attempt.
#pragma once

#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace hetero {

// The runnable tasks of the whole machine now (/proc/loadavg's fourth field,
// the calling test's and its competitor's included).
inline int machine_runnable() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen, running;
  in >> one >> five >> fifteen >> running;
  return std::atoi(running.c_str());
}

// Waits until the caller is the only runnable task of the machine, twice in
// a row 0.1 s apart, or until `budget_ms` is spent (then it goes on).
inline void wait_for_quiet(int& budget_ms) {
  for (int quiet = 0; quiet < 2 && budget_ms > 0; budget_ms -= 100) {
    quiet = machine_runnable() <= 1 ? quiet + 1 : 0;
    usleep(100'000);
  }
}

// A child spinning on `cpu`; -1 when it cannot be pinned there.
inline pid_t start_competitor(int cpu) {
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    cpu_set_t mask;
    CPU_ZERO(&mask);
    CPU_SET(cpu, &mask);
    if (sched_setaffinity(0, sizeof mask, &mask) != 0) _exit(3);
    for (volatile unsigned long spin = 0;; spin = spin + 1) {
    }
  }
  usleep(50'000);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, WNOHANG) != 0) return -1;  // it could not pin and left
  return pid;
}

inline void stop(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

// The first two CPUs this process may use (second -1 if it may use fewer),
// and how many it may use.
struct cpu_pair {
  int first = -1, second = -1;
  int allowed = 0;
};
inline cpu_pair two_cpus() {
  cpu_set_t mask;
  sched_getaffinity(0, sizeof mask, &mask);
  cpu_pair pair;
  pair.allowed = CPU_COUNT(&mask);
  for (int cpu = 0; cpu < CPU_SETSIZE && pair.second < 0; ++cpu)
    if (CPU_ISSET(cpu, &mask)) (pair.first < 0 ? pair.first : pair.second) = cpu;
  return pair;
}

}  // namespace hetero

// Where the threads of a team run, checked rather than assumed: the hetero
// tests bind with OMP_PLACES=threads or explicit places ({0},{1}), never
// OMP_PLACES=cores, whose meaning depends on how libomp reads the topology
// (on a 2-vCPU AMD EPYC VM it sees one core of two hardware threads and binds
// both threads to {0,1}).
#pragma once

#include <omp.h>
#include <sched.h>

#include <string>
#include <vector>

namespace hetero {

struct team_binding {
  std::vector<int> cpus;     // the one CPU thread k is bound to, -1 if it may run on several
  std::vector<int> allowed;  // how many CPUs thread k may run on
  std::string problem;    // empty when each thread is bound to one CPU of its own
};

// Starts a team of `threads` (a parallel region, not a loop) and reads each
// thread's affinity mask.
inline team_binding bind_check(int threads) {
  team_binding b;
  b.cpus.assign(static_cast<std::size_t>(threads), -1);
  b.allowed.assign(static_cast<std::size_t>(threads), 0);
  std::vector<int>& allowed = b.allowed;
  int team = 0;
#pragma omp parallel num_threads(threads)
  {
#pragma omp single
    team = omp_get_num_threads();
    cpu_set_t mask;
    const auto k = static_cast<std::size_t>(omp_get_thread_num());
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
      allowed[k] = CPU_COUNT(&mask);
      for (int cpu = 0; cpu < CPU_SETSIZE && allowed[k] == 1; ++cpu)
        if (CPU_ISSET(cpu, &mask)) b.cpus[k] = cpu;
    }
  }
  if (team != threads) b.problem = "the team has " + std::to_string(team) + " threads, not " + std::to_string(threads);
  for (std::size_t k = 0; k < b.cpus.size() && b.problem.empty(); ++k) {
    if (b.cpus[k] < 0)
      b.problem = "thread " + std::to_string(k) + " may run on " + std::to_string(allowed[k]) + " CPUs, not one";
    for (std::size_t j = 0; j < k && b.problem.empty(); ++j)
      if (b.cpus[j] == b.cpus[k])
        b.problem = "threads " + std::to_string(j) + " and " + std::to_string(k) + " are both bound to cpu " +
                    std::to_string(b.cpus[k]);
  }
  if (!b.problem.empty())
    b.problem += " (OMP_PROC_BIND=true with OMP_PLACES=threads or explicit places such as {0},{1} binds each "
                 "thread to one CPU)";
  return b;
}

}  // namespace hetero

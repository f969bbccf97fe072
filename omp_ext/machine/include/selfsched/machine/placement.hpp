// Which core each thread of a team runs on, so its VP (powers.cpp) and its
// run queue (runqueue.cpp) are those of the right core.
//
// libomp binds threads when OMP_PROC_BIND / OMP_PLACES ask; selfsched then
// only observes. SELFSCHED_BIND=true asks selfsched to bind thread k of the
// outermost team to usable core k mod C itself (all the PUs of that core,
// like OMP_PLACES=cores OMP_PROC_BIND=close). Either way every member records
// sched_getcpu() when its implicit task starts and when it enters a loop,
// and whoever sets a loop up reads the others' CPUs from here.
#pragma once

#include <atomic>
#include <memory>

#include "selfsched/machine/platform.hpp"

namespace selfsched::omp {

class machine;

// The machine's topology, loaded on first use (nullptr, with one warning,
// when hwloc cannot load it).
const machine* this_machine();

// Start-up step (startup.cpp): the process's CPU mask before libomp binds
// the initial thread, the usable CPUs of the topology.
void remember_initial_mask();

// How many CPUs that mask holds (0 before start-up or if it could not be read).
int usable_cpu_count();

class team_placement {
 public:
  // By the encountering thread before the team starts (OMPT parallel_begin).
  void prepare(int team_size, bool outermost);
  // By each member as its implicit task starts: binds it if selfsched binds
  // this team, then records its CPU.
  void join(int thread_num);
  // By each member at loop entry: its CPU now (sched_getcpu, no syscall);
  // written only when it changed, so the table stays in every cache.
  void note(int thread_num) {
    if (thread_num >= capacity_) return;
    const int cpu = current_cpu();
    std::atomic<int>& slot = cpus_[thread_num];
    if (slot.load(std::memory_order_relaxed) != cpu) slot.store(cpu, std::memory_order_relaxed);
  }
  // Thread k's CPU (OS index): as last recorded, else where selfsched binds
  // it, else -1 (not arrived yet in the team's first region).
  int cpu_of(int thread_num) const;

 private:
  std::unique_ptr<std::atomic<int>[]> cpus_;
  int capacity_ = 0;
  bool we_bind_ = false;
};

}  // namespace selfsched::omp

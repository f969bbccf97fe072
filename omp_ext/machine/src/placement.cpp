#include "selfsched/machine/placement.hpp"

#include <sched.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "selfsched/machine/topology.hpp"
#include "selfsched/settings.hpp"

namespace selfsched::omp {
namespace {

// Does libomp bind threads itself? (OpenMP 5.2 sec. 6.4, 6.5; KMP_AFFINITY
// is libomp's older spelling.) Then its placement wins and we only observe.
bool libomp_binds() {
  const char* bind = std::getenv("OMP_PROC_BIND");
  if (bind != nullptr && std::strcmp(bind, "false") != 0 && std::strcmp(bind, "FALSE") != 0) return true;
  if (const char* places = std::getenv("OMP_PLACES"); places != nullptr && *places != '\0') return true;
  const char* affinity = std::getenv("KMP_AFFINITY");
  if (affinity == nullptr) return false;
  for (const char* policy : {"compact", "scatter", "explicit", "balanced"})
    if (std::strstr(affinity, policy) != nullptr) return true;
  return false;
}

// SELFSCHED_BIND=true, libomp not binding, and a topology to bind with.
bool selfsched_binds() {
  static const bool binds = [] {
    if (!current_settings().bind) return false;
    if (libomp_binds()) {
      warn("SELFSCHED_BIND=true ignored: OMP_PROC_BIND / OMP_PLACES / KMP_AFFINITY already bind the threads");
      return false;
    }
    const machine* m = this_machine();
    return m != nullptr && !m->usable_cores().empty();
  }();
  return binds;
}

cpu_set_t initial_mask;
bool have_initial_mask = false;
int initial_cpu_count = 0;  // CPUs in initial_mask, counted once

int planned_core(const machine& m, int thread_num) {
  const auto& cores = m.usable_cores();
  return cores[static_cast<std::size_t>(thread_num) % cores.size()];
}

}  // namespace

// The CPUs the process may use, read before libomp binds its initial thread
// to one place (libomp initialises at the first OpenMP construct, after the
// constructors of loaded libraries).
void remember_initial_mask() {
  have_initial_mask = sched_getaffinity(0, sizeof initial_mask, &initial_mask) == 0;
  initial_cpu_count = have_initial_mask ? CPU_COUNT(&initial_mask) : 0;
}

int usable_cpu_count() { return initial_cpu_count; }

const machine* this_machine() {
  static const machine* loaded = [] {
    std::string error;
    std::unique_ptr<machine> m = machine::load(error, have_initial_mask ? &initial_mask : nullptr);
    if (m == nullptr) warn("%s; every core taken to be equal", error.c_str());
    return m.release();  // never destroyed: threads may still ask at exit
  }();
  return loaded;
}

void team_placement::prepare(int team_size, bool outermost) {
  if (team_size > capacity_) {
    auto grown = std::make_unique<std::atomic<int>[]>(static_cast<std::size_t>(team_size));
    for (int k = 0; k < team_size; ++k) grown[k].store(k < capacity_ ? cpus_[k].load() : -1);
    cpus_ = std::move(grown);
    capacity_ = team_size;
  }
  we_bind_ = outermost && selfsched_binds();
}

void team_placement::join(int thread_num) {
  if (we_bind_) {
    // Rebinding costs a syscall: only when this thread's core changes.
    thread_local int bound_core = -1;
    const machine& m = *this_machine();
    const int core = planned_core(m, thread_num);
    if (core != bound_core) {
      std::string error;
      static std::atomic<bool> warned{false};
      if (m.bind_this_thread(core, /*one_pu=*/false, error)) bound_core = core;
      else if (!warned.exchange(true)) warn("SELFSCHED_BIND: thread %d: %s", thread_num, error.c_str());
    }
  }
  note(thread_num);
}

int team_placement::cpu_of(int thread_num) const {
  if (thread_num < capacity_) {
    const int seen = cpus_[thread_num].load(std::memory_order_relaxed);
    if (seen >= 0) return seen;
  }
  return we_bind_ ? this_machine()->first_usable_pu(planned_core(*this_machine(), thread_num)) : -1;
}

}  // namespace selfsched::omp

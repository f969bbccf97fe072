// A libomp built with patches/ takes loop schedules registered from outside
// (__kmpc_register_loop_schedule). In such a process selfsched registers its
// techniques there and libomp decides which loops are selfsched's: the
// dispatch entry points libselfsched defines (kmpc.cpp; a preloaded library
// cannot stop defining them) become one jump each into libomp's, the
// doacross and schedule calls go to libomp, OMP_SCHEDULE is not rewritten,
// and omp_get_schedule, OMP_DISPLAY_ENV and doacross loops are libomp's.
// libomp calls back init_loop, which starts the loop as the interposed path
// does (libomp_loops.hpp), and the next hooks for its chunks. With a stock
// libomp nothing here is used.
#pragma once

#include "state/active_schedule.hpp"

namespace selfsched::omp {

// Start-up (startup.cpp, before libomp reads OMP_SCHEDULE): registers every
// catalog technique under its names, and the OMP_SCHEDULE or
// SELFSCHED_SCHEDULE technique under its own text; `best` also takes
// schedule(auto) loops (unless SELFSCHED_AUTO=libomp) and the dynamic or
// guided loops SELFSCHED_OVERRIDE names. SELFSCHED_VERBOSE says which way
// libomp's loops reach selfsched. Whether libomp took them:
// runtime_hooks_in_use() (runtimes.hpp).
void register_runtime_schedules();

// The technique OMP_SCHEDULE or SELFSCHED_SCHEDULE names, registered under
// its text so that libomp reads it from OMP_SCHEDULE; `auto` is libomp's
// name, whose loops libomp offers to `best`. false if libomp refused it.
bool register_in_runtime(const active_schedule& technique);

// selfsched_set_schedule with the hooks: libomp's run-sched-var for the
// calling task names the technique (registered now if new); nullptr puts
// back libomp's dynamic schedule if it named one of ours. false if libomp
// refused the technique (said once).
bool set_runtime_schedule(const active_schedule* technique);

// The technique libomp's run-sched-var names for the calling task, else
// nullptr (a standard kind).
const active_schedule* runtime_task_technique();

}  // namespace selfsched::omp

// Which team is this thread in? libomp does not say through omp_* calls
// (concurrent teams of different root threads look alike), so selfsched is an
// OpenMP tool (OMPT) and follows parallel regions as they begin and end.
//
// Team state is owned by the thread that encountered the parallel region
// (libomp's parallel_end may hand us a pointer into a team it already
// recycled, so we never key anything by that pointer); every member keeps a
// small stack of the teams it is in (nested regions push, leaving pops).
#pragma once

#include "state/active_schedule.hpp"
#include "state/team_state.hpp"

namespace selfsched::omp {

// The innermost team this thread is in, or nullptr when selfsched cannot tell
// (OMPT disabled by OMP_TOOL=disabled, or nesting deeper than it tracks).
namespace detail {
extern __thread membership* innermost __attribute__((tls_model("initial-exec")));
}
// One TLS load: read on every chunk and on every forwarded call.
inline membership* current_membership() { return detail::innermost; }

// Did libomp start our tool (and not end it yet), or does a runtime binding
// report regions (below)? If not, every loop goes to the runtime.
namespace detail {
extern bool tool_started, tool_ended, reported_by_runtime;
}
inline bool teams_tracked() { return detail::tool_started || detail::reported_by_runtime; }
// libomp finalized our tool (at exit, or for good at a hard pause): every
// loop is libomp's from then on, whatever technique a task chose.
inline bool tool_ended_for_good() { return detail::tool_ended && !teams_tracked(); }

// The same as current_membership, creating this thread's bookkeeping if
// needed (for loops outside any parallel region). nullptr when selfsched
// cannot tell, also once libomp has ended our tool: a hard pause
// (omp_pause_resource_all) finalizes it and libomp never starts it again,
// and the memberships threads kept from before are stale (the primary
// would take its team's loop for a loop of its own).
namespace detail {
membership* first_membership();
}
inline membership* membership_for_new_loop() {
  if (!teams_tracked()) return nullptr;
  membership* m = current_membership();
  return m != nullptr ? m : detail::first_membership();
}

// Runtimes without OMPT (libgomp: gomp.cpp) report their regions through
// these. The encountering thread opens a region before the fork (nullptr:
// nested deeper than selfsched tracks; its members' loops are the runtime's)
// and closes it after the join; every member joins on entry and leaves on
// exit. `level` is the runtime's nesting level inside the region.
void follow_regions_without_ompt();
team_state* open_region(unsigned requested_threads);
void close_region();
void join_team(team_state* team, int thread_num, int team_size, int level);
void leave_team();

// The technique for the next schedule(runtime) loop of m's team (nullptr:
// libomp's schedule): the team's, or outside any region the process-wide one.
const active_schedule* technique_in_force(const membership& m);

// omp_set_schedule / selfsched_set_schedule act, like OpenMP's run-sched-var,
// on the calling task: the regions it starts next. Outside any region that is
// the process-wide choice.
void set_task_technique(const active_schedule* technique);
const active_schedule* task_technique();

// What `technique`'s first loop would otherwise read with its whole team
// waiting, read now, once per process (each step keeps what it read):
// libm, the threads' powers (hwloc's topology), the first reading of the
// run queues, auto's cache; milliseconds each. Done as the runtime starts for the
// technique in force (libomp: ompt_start_tool; libgomp: the first region)
// and when code chooses a technique (omp_set_schedule,
// selfsched_set_schedule), so that processes without OpenMP never do it.
void read_what_loops_need(const active_schedule* technique);

// Start-up step (startup.cpp): the OMPT tools libomp would have started
// (one the program links, else OMP_TOOL_LIBRARIES) become our tool's
// clients, through SELFSCHED_TOOL_LIBRARIES.
void chain_tool_libraries();

}  // namespace selfsched::omp

// How a thread on a shared CPU waits at libomp's barriers.
//
// libomp's threads spin at a barrier for KMP_BLOCKTIME (200 ms) before they
// sleep. A thread whose CPU also runs another process's task spends its
// time slices spinning between loops and regions, and the kernel's fair
// scheduler then gives the other task the CPU when the next region starts:
// the thread joins each loop about a time slice (4 ms on the development
// VM) after its team mates, longer than a whole instance of a time-stepped
// loop. A thread that sleeps at barriers instead is owed CPU time when it is
// woken and preempts the other task.
//
// So an `auto` loop looks at when each thread joins it. A thread over 1 ms
// after the loop was set up reads the scheduler's account of its own time
// (platform.hpp, thread_cpu_account: about 3 us), and again at each auto
// loop it joins until enough is seen to decide: if since its last look it
// waited for its CPU at least a quarter as long as it ran, another task
// shares the CPU, and its blocktime is 0 for a second (kmp_set_blocktime,
// which sets the calling thread's; libomp copies the primary thread's
// settings at each fork, so it is set again at every auto loop meanwhile).
// Asleep, the thread preempts the other task and barely waits, so its
// account cannot tell when the CPU is its own again: after the second it
// spins and looks afresh at its next late join. Without the account, the
// run-queue monitor (runqueue.hpp) decides. Measured: docs/results/auto.md.
//
// Not where most of the auto loops the thread joined lately (8 or more) ran
// inside regions rather than began them; a thread that sleeps stops as soon
// as they show it. Between regions is where a thread idles. Asleep, it
// sleeps at every barrier inside a region too and is woken at each, which
// costs more than it saves when those barriers come every few hundred
// microseconds (GAPBS sssp, one region of hundreds of loops a second: 1.07x
// libomp's time asleep, 0.98x spinning; with KMP_BLOCKTIME=0 libomp's own
// 1.33x).
//
// Left alone: programs whose user chose how threads wait (KMP_BLOCKTIME,
// OMP_WAIT_POLICY or KMP_LIBRARY set), libgomp's threads (it has no
// per-thread setting, and libomp's kmp_set_blocktime, were libomp loaded
// too, would adopt the caller as a thread of its own: loop.cpp calls this
// only in teams whose threads are libomp's), SELFSCHED_SHARED_CPU=spin,
// SELFSCHED_RUNQUEUE=false.
#pragma once

#include <cstdint>

namespace selfsched::omp {

// A thread this long after its loop's first is worth a look at its CPU.
constexpr std::int64_t late_join_ns = 1'000'000;

namespace detail {
// Set from a late join until the thread's CPU is seen to be its own.
extern __attribute__((tls_model("initial-exec"))) thread_local bool watches_cpu;
// The thread's recent auto loops, and how many of them began its region
// (both halved at 64: the last few dozen count).
extern __attribute__((tls_model("initial-exec"))) thread_local std::uint32_t recent_joins, recent_region_starts;
void look_at_shared_cpu(int thread, std::int64_t late_ns, std::int64_t now);
}  // namespace detail

// At an auto loop's join by team member `thread`, `late_ns` after the loop
// was set up; `starts_region`: the thread's first loop of this region.
inline void note_loop_join(int thread, std::int64_t late_ns, std::int64_t now, bool starts_region) {
  if (++detail::recent_joins == 64) detail::recent_joins = 32, detail::recent_region_starts /= 2;
  detail::recent_region_starts += starts_region;
  if (late_ns > late_join_ns || detail::watches_cpu) detail::look_at_shared_cpu(thread, late_ns, now);
}

// Whether the calling thread sleeps at barriers now (for its profile).
bool sleeps_at_barriers();

}  // namespace selfsched::omp

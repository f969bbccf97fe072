// The run-queue monitor of mechanism W (Ciorba et al., seed 000 sec. 4.2,
// Fig. 6): Q_k, the number of runnable tasks competing for the core thread k
// runs on, itself included. W and the weighted techniques give the thread
// A_k = VP_k / Q_k of its power.
//
// Measured from the thread's own side: over an interval, a thread sharing its
// core fairly with Q - 1 other runnable tasks runs 1/Q of the time it is
// runnable and waits the rest, so Q = 1 + wait / run. run is the thread's
// CPU time (clock_gettime(CLOCK_THREAD_CPUTIME_ID)), wait its run-queue delay
// (/proc/thread-self/schedstat). Why these and not a per-CPU count: Linux
// has no cheap per-CPU run-queue length (/proc/schedstat needs
// CONFIG_SCHEDSTATS and lists no length, /proc/stat's procs_running and
// /proc/loadavg are machine-wide), and the thread's own share is what W needs
// even when the thread migrates, shares a core with its own team, or the
// other task has a different nice value.
//
// Cost: the claim path reads a cached value. At most every
// SELFSCHED_RUNQUEUE_MS (5 ms) a thread that notices its value is older
// refreshes it: one clock_gettime, one open/read/close, about 5 us. run and
// wait are averaged with exponentially fading weights over about 8
// refreshes (40 ms), longer than a scheduler time slice, so Q is steady.
#pragma once

#include <cstdint>

namespace selfsched::omp {

// Q_k of the calling thread (>= 1) at time `now` (now_ns()); 1 when
// SELFSCHED_RUNQUEUE=false or the kernel gives no schedstat.
double run_queue_length(std::int64_t now);

}  // namespace selfsched::omp

// The run-queue monitor of mechanism W (Ciorba et al., seed 000 sec. 4.2,
// Fig. 6): Q_k, the number of runnable tasks competing for the CPU thread k
// runs on, itself included. W and the weighted techniques give the thread
// A_k = VP_k / Q_k of its power.
//
// Measured from the machine's side, per CPU: Q = 1 + the runnable tasks of
// other processes on the CPU the thread runs on now
// (count_other_runnable_tasks in platform.hpp). This process's own threads
// never count, so a thread's waits at a barrier or for a chunk, and its team
// mates' spinning, are not load. The first reading is taken when a technique
// that reads Q comes into force (take_first_run_queue_reading), else by the
// first claim that needs Q (its team mates wait for it), so Q is
// right at a thread's first chunk of the program's first loop, and a process
// that never needs Q never walks /proc.
//
// Cost: the claim path reads one cached value per CPU (sched_getcpu through
// rseq, one relaxed load). At most every SELFSCHED_RUNQUEUE_MS (5 ms), and
// never more often than keeps the readings under 2% of one thread's time,
// the first thread to notice an old reading takes a new one (a walk over
// /proc: about 10 us per task of the machine, 1.5 ms with the 110 tasks of
// a 2-vCPU development VM, so there every 75 ms); the others go on with the
// old values meanwhile. Readings are averaged with fading weights over about
// the last four, so a task that runs in bursts counts with its share.
//
// What Q does not model: a task's nice value and scheduler groups
// (autogroup, cgroups) change the share it takes; Q counts tasks, as seed
// 000's monitor does. Tasks outside this PID namespace (another container,
// or the hypervisor's steal time) are not seen.
#pragma once

#include <cstdint>

namespace selfsched::omp {

// Q_k of the calling thread (>= 1) at time `now` (now_ns()); 1 when
// SELFSCHED_RUNQUEUE=false or /proc cannot be read.
double run_queue_length(std::int64_t now);

// The first reading, taken when a technique that reads Q comes into force
// (read_what_loops_need, teams.hpp), so that its first loop does not wait for it; the next
// reading, whenever a claim finds one due, stands alone again (a loop that
// starts long after sees its own moment's Q, not the start's faded in).
void take_first_run_queue_reading();

// Start-up step (startup.cpp): the reading interval from the settings, or
// Q = 1 for good when SELFSCHED_RUNQUEUE=false.
void set_up_run_queues();

}  // namespace selfsched::omp

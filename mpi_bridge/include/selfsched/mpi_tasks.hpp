// selfsched::mpi::task_pool: a task pool (docs/tasks.md) shared by the ranks
// of a communicator, after seed 001 (Smith & Schnabel).
//
//   MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
//   selfsched::mpi::task_pool pool(MPI_COMM_WORLD, {.strategy = "central"});
//   if (rank == 0) pool.put(root);               // any rank may put before run
//   auto report = pool.run([&](const selfsched::task& t) {
//     for (const node& child : expand(t.as<node>())) pool.put(child, t.level() + 1);
//   });                                          // collective: returns on every rank
//                                                // when no task is left anywhere
//
// Tasks, levels, priorities, the asynchronicity limit, stop and bad input
// behave as in the threads-only selfsched::task_pool; within a rank the
// threads of an OpenMP parallel region share the rank's queue. Across ranks,
// the strategy (options::strategy, else SELFSCHED_POOL_STRATEGY):
//
//   central  rank 0 holds the global priority queue (seed 001 Fig. 1): every
//            task put anywhere goes to it, and ranks ask it for tasks. Its
//            thread 0 serves requests and runs no task when there are
//            other ranks (seed 001's dedicated master); its other threads
//            run tasks from the global queue.
//   mediation every rank keeps the tasks it puts (seed 001 Fig. 3); a rank
//            with no current task asks rank 0's thread 0, the mediator,
//            which hands on a task it holds or asks the most loaded rank to
//            give half its surplus, highest priority first.
//   receiver every rank keeps the tasks it puts (seed 001 Fig. 2); a rank
//            with no current task asks a random rank, which gives half its
//            current tasks or forwards the request; no rank is dedicated.
//   sender   every rank keeps the tasks it puts; a rank with more than two
//            current tasks per thread sends half its surplus to a random
//            rank, which keeps it or passes it on (Fig. 2).
//
// Only thread 0 of each rank (the thread that calls run, which must be the
// one that initialized MPI) calls MPI: MPI_THREAD_FUNNELED is enough.
//
// Stopped and slow ranks (SELFSCHED_MPI_RESILIENCE=duplicate, central only;
// docs/reliability.md): rank 0 hands a task again to an idle rank once it
// has been out longer than a timeout derived from the measured task times
// (rDLB: Mohammed, Cavelan, Ciorba 2019). The first run reported finished
// counts: only its puts become tasks and only its put_result values reach
// the program; a task may therefore run more than once, so a task's effect
// the program must see once goes through put_result.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>

#include "selfsched/task_pool.hpp"

namespace selfsched::mpi {
namespace detail {
class pool_engine;
}

struct task_pool_options {
  std::string strategy;         // central, mediation, hier-mediation, receiver, sender; "": SELFSCHED_POOL_STRATEGY, else central
  int threads = 0;              // per rank; 0: omp_get_max_threads()
  int async_levels = 0;         // global iterations in progress at most; 0: no limit
  std::size_t max_payload = 0;  // bytes per task; 0: 65536
  // Which tasks move between ranks (the mediations, receiver, sender): "priority"
  // (current ones, highest priority first; a rank asks when none is
  // current: seed 001's application-dependent policy) or "threshold" (any
  // task; a rank asks when it holds fewer than its threads: the
  // application-independent one). "": SELFSCHED_POOL_TRANSFER, else priority.
  std::string transfer;
};

struct task_pool_report {
  std::string strategy;
  int rank = 0, ranks = 1, threads = 1;
  std::int64_t tasks = 0;            // run on this rank
  std::int64_t tasks_everywhere = 0; // run on all ranks
  std::int64_t discarded = 0;        // everywhere (after a stop)
  int last_completed_level = -1;
  double seconds = 0;                // this rank's run, wall clock
  double work_seconds = 0;           // rank 0's run until it knew every task done (the rest: the ranks' last answers)
  double busy_seconds = 0;           // this rank's threads inside tasks
  double idle_seconds = 0;           // this rank's threads waiting for a task
  double utilization_min = 0, utilization_max = 0;  // busy / (threads x seconds), over the working ranks
  double server_utilization = 0;     // the share of its time rank 0's master or mediator spent serving (receiver, sender: 0)
  std::int64_t messages_sent = 0;    // by this rank
  // SELFSCHED_MPI_RESILIENCE=duplicate (central): tasks handed again after
  // their timeout, and runs whose finish came after another run's (their
  // puts and results dropped). tasks and tasks_everywhere count every run.
  std::int64_t copies = 0, copies_dropped = 0;
  std::int64_t results = 0;          // put_result values delivered on this rank
};

class task_pool {
 public:
  // Collective over comm. Bad options or an unknown strategy throw
  // selfsched::task_pool_error (every rank, with the same message).
  explicit task_pool(MPI_Comm comm, const task_pool_options& options = {});
  ~task_pool();
  task_pool(const task_pool&) = delete;
  task_pool& operator=(const task_pool&) = delete;

  template <typename T>
  void put(const T& value, int level = 0, double priority = 0) {
    static_assert(is_task_value<T>, "selfsched::mpi::task_pool::put: a trivially copyable value, not a pointer");
    put_bytes(&value, sizeof(T), level, priority);
  }
  // Before run (on any rank) or from a task; thread-safe.
  void put_bytes(const void* data, std::size_t size, int level = 0, double priority = 0);
  // From a task: no new task starts on any rank; queued ones are discarded.
  void stop();

  // From a task: a value of its result, handed to run's on_result on the
  // rank where the task ran, once per task even when a copy of it ran too.
  template <typename T>
  void put_result(const T& value) {
    static_assert(is_task_value<T>, "selfsched::mpi::task_pool::put_result: a trivially copyable value, not a pointer");
    put_result_bytes(&value, sizeof(T));
  }
  void put_result_bytes(const void* data, std::size_t size);

  // Collective: runs body on tasks until none is queued or running on any
  // rank, or until a stop. An exception from body stops the pool and is
  // rethrown on the rank where it happened.
  task_pool_report run(const std::function<void(const task&)>& body);
  // The same; then on_result is called, by the thread that called run, for
  // each value put_result gave on this rank by runs that counted (a
  // selfsched::task: its bytes, and the level of the task that gave it).
  task_pool_report run(const std::function<void(const task&)>& body,
                       const std::function<void(const task&)>& on_result);

 private:
  std::unique_ptr<detail::pool_engine> engine_;
};

}  // namespace selfsched::mpi

// selfsched::sim task pools: seed 001's dynamic scheduling strategies for
// algorithms that create work as they run (Smith & Schnabel, secs. 3-5),
// simulated on SimGrid with the same task order the runtime's pools use
// (core/task_queue.hpp).
//
// The work is a tree like seed 001's global optimization: level-0
// subregions, each sampled (a short task) and then split into two
// subregions of the next level until `levels`, each also starting some
// local minimizations (long tasks of random length) at its level. Subregions
// go before minimizations of their level, lower levels before higher ones.
//
// Processors compute tasks and handle messages between them (not during
// one: a request waits for the task in progress), each message costing the
// processor `message_seconds` of its time, on both ends, plus the link's
// latency. Strategies (seed 001 sec. 3, Figs. 1-3):
//   central    a master processor holds every task; a processor sends it the
//              tasks it created with its request for the next one.
//   mediation  local queues; after each task a processor with two or more
//              current tasks sends one to the mediator (one more
//              processor), and an idle one asks it; the mediator answers
//              from the tasks it holds, or says no (Fig. 3). Or, with
//              library_policies, as the library's pools do (pool_spec).
//   receiver   local queues; an idle processor asks a random one, which
//              gives half of its current tasks if it holds two or more,
//              highest priority first (application-dependent), else passes
//              the request on, at most processors - 1 times; a request no
//              one could serve is answered no, and the asker asks again
//              after a pause (Fig. 2).
//   receiver-threshold  the application-independent policy: a processor
//              asks when it holds fewer than two tasks of any kind and
//              gives any; it never knows which are current, so it is never
//              told no and never runs beyond the asynchronicity limit.
//   hier-mediation  a mediator per node of processors as above, passing a
//              request it cannot serve to a top mediator, which asks the
//              other nodes in turn for a task, and says no when none has
//              one (seed 001 sec. 5.4).
// Processors run current tasks only (within async_levels of the last
// completed iteration, which every processor learns when it completes;
// under library_policies, when told); beyond them only after a request was
// denied. Termination is not simulated (the run ends when the last task
// does).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace selfsched::sim {

enum class pool_strategy { central, mediation, receiver, receiver_threshold, hier_mediation };

struct task_tree_spec {
  int roots = 8;                       // level-0 subregions
  int levels = 4;                      // a subregion of level < levels - 1 splits in two
  double subregion_seconds = 0.05;     // sampling a subregion
  double minimization_seconds = 1.0;   // a local minimization's mean (exponential)
  double minimizations = 1.0;          // mean local minimizations a subregion starts
  std::uint64_t seed = 1;
};

struct pool_spec {
  pool_strategy strategy = pool_strategy::mediation;
  int processors = 8;                  // computing ones; masters and mediators come on top
  int nodes = 4;                       // hier-mediation: node mediators (processors split evenly)
  double message_seconds = 0.01;       // a processor's time per message, sending or taking in
  double latency = 1e-3;               // per link (each processor has one to the network)
  int async_levels = 1;                // the asynchronicity level (seed 001 sec. 3.2); 0: no limit
  // The library's policies (mpi_bridge/src/pools) instead of seed 001's,
  // for a rank of one thread:
  // - mediation: processors report their current tasks, whether they ask
  //   (none current) and their lowest outstanding level after their state
  //   changed, at most every status_seconds, at once when they start asking
  //   or tasks came or went; the mediator answers a request from what it
  //   holds, else asks the processor with the most current tasks to give
  //   half of all but one, else says no once and keeps the request; the top
  //   mediator tells the last completed level from the reports, through the
  //   node mediators (pool_mediation.cpp);
  // - receiver-threshold: a processor asks when it holds no task (one a
  //   thread) and runs any task it holds, current or not (it is never told
  //   no; pool_engine.cpp's next_task);
  // - receiver (both): a request is passed on at most 64 times, and a
  //   processor told no asks again after 100 us, doubling to 5 ms, running
  //   what it holds meanwhile; processors send processor 0 counts of their
  //   tasks and task messages, from which it tells the last completed level
  //   (pool_distributed.cpp);
  // - mediation and receivers: processors and mediators poll as the code's
  //   thread 0 does (pool_engine.cpp's work): between tasks, and idle every
  //   10 us after a poll that did something, doubling to 100 us, a probe
  //   each (message_seconds);
  // - central: a processor asks for one task ahead, and the master serves
  //   one a processor per pass from a rotating start (pool_central.cpp).
  bool library_policies = false;
  double status_seconds = 50e-6;
  task_tree_spec tree;
};

struct pool_result {
  double makespan = 0;                 // simulated seconds until the last task ended
  double work = 0;                     // seconds of all tasks together
  std::vector<double> utilization;     // per computing processor: share of the makespan computing
  double master_utilization = 0;       // central / mediation: the master's or mediator's busy share; hier: the busiest
  std::int64_t tasks = 0;              // tasks run (each exactly once)
  std::int64_t transfers = 0;          // tasks moved between computing processors (or via the master)
  std::int64_t messages = 0;
};

// One task of the tree; a tree is a vector of them, a task's number its
// index (task_tree.cpp). The same tree for the same spec, on any machine.
struct tree_task {
  int level = 0;
  bool subregion = true;
  double seconds = 0;         // its cost at speed 1
  std::vector<int> children;  // put when it ends, by the processor that ran it
};
std::vector<tree_task> task_tree(const task_tree_spec& tree);
// Subregions before minimizations of their level (seed 001 sec. 3.2).
inline double task_priority(const tree_task& t) { return t.subregion ? 1 : 0; }

// Tasks of the tree (for checks).
std::int64_t tree_tasks(const task_tree_spec& tree);

// Runs it in a child process; sim_error on bad input (names the value).
pool_result simulate_pool(const pool_spec& spec);

pool_strategy parse_pool_strategy(const std::string& name);  // sim_error naming the valid ones
const char* pool_strategy_name(pool_strategy s);

}  // namespace selfsched::sim

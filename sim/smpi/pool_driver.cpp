// selfsched-smpi-pool: the real task pools (selfsched::mpi::task_pool,
// mpi_bridge/src/pools, compiled unchanged with smpicxx) on the ranks
// SimGrid's SMPI simulates, one thread per rank, running the task tree of
// selfsched-sim's pool model (sim/src/task_tree.cpp: seed 001's global
// optimization), so that the model and the code run the same tasks. A
// task's cost is charged to its rank's simulated host; the tasks it creates
// are put when it ends, at their level and priority, as the model does.
//
// Serving ranks are the strategy's: central's master and mediation's
// mediator (rank 0), hier-mediation's node mediators (each node's first
// rank, SELFSCHED_MPI_NODE_SIZE); with one thread they run no task, as the
// model's masters. The others compute; the roots start on them in turn
// (central: on rank 0's global queue, where the model's master holds them).
//
// Run by smpirun (sim/smpi/run.py --pool writes the platform and the
// hostfile); rank 0 prints one line of key=value figures. Exit status 1
// when a task of the tree did not run exactly once.
#include <mpi.h>
#include <smpi/smpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "driver.hpp"
#include "rank_power.hpp"
#include "selfsched/mpi_tasks.hpp"
#include "selfsched/sim.hpp"
#include "selfsched/sim_pools.hpp"
#include "smpi_waits.hpp"

namespace {

namespace ss = selfsched::sim;
using selfsched::smpi::take_flag;

struct driver_options {
  std::string strategy = "central", transfer = "priority";
  ss::task_tree_spec tree;
  int async_levels = 1;
  double flops = 1e9;
};

bool number(const std::string& text, double& out) {
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0';
}

// Bad input: one line on rank 0's stderr, "" when all is well.
std::string parse_options(int argc, char** argv, driver_options& o) {
  std::string roots, levels, subregion, minimization, minimizations, seed, async, flops;
  for (int k = 1; k < argc; ++k) {
    if (take_flag("--strategy", k, argc, argv, o.strategy) || take_flag("--transfer", k, argc, argv, o.transfer) ||
        take_flag("--roots", k, argc, argv, roots) || take_flag("--levels", k, argc, argv, levels) ||
        take_flag("--subregion", k, argc, argv, subregion) ||
        take_flag("--minimization", k, argc, argv, minimization) ||
        take_flag("--minimizations", k, argc, argv, minimizations) || take_flag("--seed", k, argc, argv, seed) ||
        take_flag("--async", k, argc, argv, async) || take_flag("--flops", k, argc, argv, flops))
      continue;
    return std::string("unknown option or missing value: ") + argv[k];
  }
  const struct {
    const std::string& text;
    const char* name;
    double* out;
  } numbers[] = {{subregion, "--subregion", &o.tree.subregion_seconds},
                 {minimization, "--minimization", &o.tree.minimization_seconds},
                 {minimizations, "--minimizations", &o.tree.minimizations},
                 {flops, "--flops", &o.flops}};
  for (const auto& n : numbers)
    if (!n.text.empty() && !number(n.text, *n.out)) return std::string(n.name) + " '" + n.text + "' is not a number";
  double value = 0;
  if (!roots.empty() && !number(roots, value)) return "--roots '" + roots + "' is not a number";
  if (!roots.empty()) o.tree.roots = static_cast<int>(value);
  if (!levels.empty() && !number(levels, value)) return "--levels '" + levels + "' is not a number";
  if (!levels.empty()) o.tree.levels = static_cast<int>(value);
  if (!async.empty() && !number(async, value)) return "--async '" + async + "' is not a number";
  if (!async.empty()) o.async_levels = static_cast<int>(value);
  if (!seed.empty()) o.tree.seed = std::strtoull(seed.c_str(), nullptr, 10);
  if (o.tree.roots < 1 || o.tree.levels < 1 || o.tree.levels > 24)
    return "a tree needs --roots >= 1 and --levels in [1, 24]";
  if (!(o.tree.subregion_seconds > 0) || !(o.tree.minimization_seconds > 0) || !(o.tree.minimizations >= 0) ||
      o.tree.minimizations > 100 || !(o.flops > 0) || o.async_levels < 0)
    return "--subregion, --minimization and --flops must be > 0, --minimizations in [0, 100], --async >= 0";
  if (o.transfer != "priority" && o.transfer != "threshold")
    return "--transfer takes priority or threshold, not " + o.transfer;
  return "";  // the strategy is checked by the pool itself, on every rank
}

// Built once, before MPI_Init: the ranks share this process (a tree read
// from a file would be shared the same way).
const std::vector<ss::tree_task>& tree_of(const driver_options& o) {
  static const std::vector<ss::tree_task> tree = ss::task_tree(o.tree);
  return tree;
}

// How often each task ran, by every rank: a check only a simulation can
// make this simply (the ranks share this process's memory).
std::vector<int>& runs_of(std::size_t tasks) {
  static std::vector<int> runs(tasks, 0);
  return runs;
}

// The pool's own rule (pool_engine.cpp): rank 0 serves central and
// mediation; under hier-mediation every node's first rank serves its node.
bool serves(const driver_options& o, int rank) {
  if (o.strategy == "central" || o.strategy == "mediation") return rank == 0;
  if (o.strategy != "hier-mediation") return false;
  const char* size = std::getenv("SELFSCHED_MPI_NODE_SIZE");
  const long node = size != nullptr ? std::strtol(size, nullptr, 10) : 0;
  return node > 0 ? rank % node == 0 : rank == 0;
}

int run(const driver_options& o) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::vector<ss::tree_task>& tree = tree_of(o);
  std::vector<int>& runs = runs_of(tree.size());
  selfsched::smpi::block_in_waits(false);  // every rank answers messages while it waits
  std::vector<int> computing;
  for (int r = 0; r < ranks; ++r)
    if (!serves(o, r)) computing.push_back(r);
  selfsched::mpi::task_pool pool(MPI_COMM_WORLD, {.strategy = o.strategy,
                                                  .threads = 1,
                                                  .async_levels = o.async_levels,
                                                  .transfer = o.transfer});
  const auto put = [&](int id) {
    const ss::tree_task& t = tree[static_cast<std::size_t>(id)];
    pool.put(id, t.level, ss::task_priority(t));
  };
  const auto mine = std::find(computing.begin(), computing.end(), rank);
  for (int r = 0; r < o.tree.roots; ++r) {
    const bool here = o.strategy == "central" ? rank == 0
                      : computing.empty()     ? rank == 0
                                              : mine != computing.end() &&
                                                r % static_cast<int>(computing.size()) == mine - computing.begin();
    if (here) put(r);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  double last_end = 0, computed = 0;
  const selfsched::mpi::task_pool_report report = pool.run([&](const selfsched::task& task) {
    const int id = task.as<int>();
    const ss::tree_task& t = tree[static_cast<std::size_t>(id)];
    // The benched form stops SMPI's timer of this rank's own CPU time
    // first (loop_driver.cpp says why).
    smpi_execute_flops_benched(t.seconds * o.flops);
    ++runs[static_cast<std::size_t>(id)];
    computed += t.seconds;
    last_end = MPI_Wtime() - start;
    for (int child : t.children) put(child);
  });
  double maxima[2] = {last_end, report.server_utilization * report.seconds}, max[2] = {0, 0};
  double sums[3] = {computed, static_cast<double>(report.tasks), static_cast<double>(report.messages_sent)};
  double sum[3] = {0, 0, 0};
  MPI_Reduce(maxima, max, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(sums, sum, 3, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank != 0) return 0;
  const auto wrong = std::count_if(runs.begin(), runs.end(), [](int n) { return n != 1; });
  const double makespan = max[0], processors = static_cast<double>(computing.size());
  const selfsched::smpi::wait_counts waits = selfsched::smpi::waits();
  std::printf("smpi-pool: strategy=%s ranks=%d processors=%zu tasks=%.0f tree_tasks=%zu not_once=%lld makespan=%.6f "
              "work=%.6f efficiency=%.4f utilization_min=%.4f utilization_max=%.4f server_busy=%.4f messages=%.0f "
              "polls=%lld\n",
              report.strategy.c_str(), ranks, computing.size(), sum[1], tree.size(), static_cast<long long>(wrong),
              makespan, sum[0], makespan > 0 ? sum[0] / (processors * makespan) : 0.0, report.utilization_min,
              report.utilization_max, makespan > 0 ? max[1] / makespan : 0.0, sum[2],
              static_cast<long long>(waits.polls));
  if (wrong != 0)
    std::fprintf(stderr, "selfsched-smpi-pool: %lld tasks of %zu did not run exactly once\n",
                 static_cast<long long>(wrong), tree.size());
  return wrong != 0 ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  driver_options o;
  const std::string bad = parse_options(argc, argv, o);
  if (bad.empty()) tree_of(o);
  return selfsched::smpi::run_ranks("selfsched-smpi-pool", argc, argv, bad, o.flops, [&](int rank) {
    try {
      return run(o);
    } catch (const std::exception& e) {  // a bad strategy: the pool says so on every rank
      if (rank == 0) std::fprintf(stderr, "selfsched-smpi-pool: %s\n", e.what());
      return 2;
    }
  });
}

// global_opt across ranks: seed 001's adaptive, asynchronous global
// optimization (examples/tasks/global_opt.cpp says what it does) on a
// selfsched::mpi::task_pool, so subregion and local minimization tasks move
// between ranks by the pool's strategy (--strategy, else
// SELFSCHED_POOL_STRATEGY). Rank 0 puts the first subregions; each rank
// keeps the minimizers its tasks found, and the best of all ranks is checked
// against the function's known minimum. Rank 0 prints, as seed 001 reports,
// the time, the range of the ranks' utilization and the server's.
//
//   selfsched-mpirun -np 4 build/bin/mpi_global_opt --function shekel10 --strategy central
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../common.hpp"
#include "../tasks/global_opt.hpp"
#include "selfsched/mpi_tasks.hpp"

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::string function = "shekel5", strategy, slow_rank;
  std::int64_t levels = 6, regions = 4, density = 400, async_levels = 0, work = 0;
  example::command_line cli("mpi_global_opt",
                            "Seed 001's adaptive asynchronous global optimization on a task pool shared by\n"
                            "the ranks: subregion tasks sample and split, local minimization tasks descend.");
  cli.choice("function", function, global_opt::problem_names(), "test function with a known global minimum");
  cli.option("levels", levels, 1, "global iterations (levels of the task precedence tree)");
  cli.option("regions", regions, 1, "initial subregions (the domain cut along its first side)");
  cli.option("density", density, 1, "samples per unit of normalized volume at level 0");
  cli.option("async-levels", async_levels, 0, "global iterations in progress at once (0: no limit)");
  cli.option("work", work, 0, "extra arithmetic per evaluation of f (an expensive objective)");
  cli.option("strategy", strategy, "NAME", "how tasks move between ranks (default: SELFSCHED_POOL_STRATEGY)");
  cli.option("slow-rank", slow_rank, "R:F", "rank R evaluates f at F (0 < F <= 1) of the others' speed (needs --work)");
  cli.parse(argc, argv);
  // A slower rank, as a node shared with another job: its evaluations do 1/F the work.
  std::int64_t my_work = work;
  if (!slow_rank.empty()) {
    const std::size_t colon = slow_rank.find(':');
    char* end = nullptr;
    const long r = colon == std::string::npos ? -1 : std::strtol(slow_rank.c_str(), &end, 10);
    const double f = colon == std::string::npos ? 0 : std::strtod(slow_rank.c_str() + colon + 1, &end);
    if (r < 0 || !(f > 0) || f > 1 || *end != '\0') cli.fail("--slow-rank '" + slow_rank + "' is not R:F with 0 < F <= 1");
    if (work == 0) cli.fail("--slow-rank needs --work > 0 (the work it slows)");
    if (r == rank) my_work = static_cast<std::int64_t>(static_cast<double>(work) / f);
  }
  const global_opt::problem& p = *global_opt::find_problem(function);

  int status = 0;
  try {
    global_opt::search s(p, levels, my_work);
    selfsched::mpi::task_pool_options options;
    options.strategy = strategy;
    options.async_levels = static_cast<int>(async_levels);
    selfsched::mpi::task_pool pool(MPI_COMM_WORLD, options);
    if (rank == 0) global_opt::put_initial_regions(pool, p, regions, static_cast<double>(density));
    const auto report = pool.run([&](const selfsched::task& task) {
      const auto t = task.as<global_opt::task_payload>();
      if (t.what == global_opt::kind::subregion) s.subregion(pool, t, task.level());
      else s.minimize(t);
    });
    double best = global_opt::best_minimum(s), best_everywhere = 0;
    MPI_Allreduce(&best, &best_everywhere, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    std::int64_t counts[3] = {s.local_searches, s.subregion_tasks, static_cast<std::int64_t>(s.minimizers.size())};
    std::int64_t totals[3] = {0, 0, 0};
    MPI_Reduce(counts, totals, 3, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    const bool found = global_opt::is_known_minimum(p, best_everywhere);
    if (rank == 0) {
      if (!found)
        std::fprintf(stderr, "mpi_global_opt: self-check failed: best minimum %.10g, known %.10g\n", best_everywhere,
                     p.known_minimum);
      std::printf(
          "app=mpi_global_opt function=%s strategy=%s ranks=%d threads=%d best=%.10g known=%.10g "
          "local_searches=%lld subregion_tasks=%lld tasks=%lld levels_completed=%d time_s=%.4f "
          "utilization=%.2f..%.2f server_utilization=%.2f found=%d ok=%d\n",
          p.name, report.strategy.c_str(), report.ranks, report.threads, best_everywhere, p.known_minimum,
          static_cast<long long>(totals[0]), static_cast<long long>(totals[1]),
          static_cast<long long>(report.tasks_everywhere), report.last_completed_level + 1, report.seconds,
          report.utilization_min, report.utilization_max, report.server_utilization, found ? 1 : 0, found ? 1 : 0);
    }
    status = found ? 0 : 1;
  } catch (const selfsched::task_pool_error& e) {
    if (rank == 0) std::fprintf(stderr, "mpi_global_opt: %s\n", e.what());
    status = 2;
  }
  MPI_Finalize();
  return status;
}

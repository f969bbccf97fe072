// global_opt: seed 001's adaptive, asynchronous stochastic global
// optimization (Smith & Schnabel, sec. 3) on a selfsched task pool.
//
// The domain is split into subregions. A *subregion task* of level k samples
// its box, evaluates f there, selects start points (samples with no lower
// sample nearby, among the region's best) and puts one *local minimization
// task* per start point at the same level and a lower priority (seed 001:
// subregions of level k before local minimizations of level k, both before
// level k + 1). Then the adaptive heuristics: a region whose best sample is
// among the better ones found so far is split in two along its longest side
// (two subregions of level k + 1, the same density), a less productive one
// continues as one subregion of level k + 1 with half the density, and an
// unproductive one skips every other level (seed 001's delayed scheduling).
// A local minimization runs Nelder-Mead inside the domain and records the
// minimizer. The pool ends after --levels global iterations; with
// --async-levels a > 0 at most a iterations are in progress at once.
//
// Test functions with known global minima (Dixon & Szego's set, as in the
// global optimization literature): branin, goldstein-price, hartman3,
// hartman6, shekel5, shekel7, shekel10. The run checks the best minimizer
// found against the known minimum.
#include <omp.h>

#include <iostream>
#include <string>
#include <vector>

#include "../common.hpp"
#include "global_opt.hpp"
#include "selfsched/task_pool.hpp"

int main(int argc, char** argv) {
  std::string function = "shekel5";
  std::int64_t levels = 6, regions = 4, density = 400, async_levels = 0, work = 0;
  const std::vector<std::string> names = global_opt::problem_names();
  example::command_line cli("global_opt",
                            "Seed 001's adaptive asynchronous global optimization on a selfsched task pool:\n"
                            "subregion tasks sample and split, local minimization tasks descend.");
  cli.choice("function", function, names, "test function with a known global minimum");
  cli.option("levels", levels, 1, "global iterations (levels of the task precedence tree)");
  cli.option("regions", regions, 1, "initial subregions (the domain cut along its first side)");
  cli.option("density", density, 1, "samples per unit of normalized volume at level 0");
  cli.option("async-levels", async_levels, 0, "global iterations in progress at once (0: no limit)");
  cli.option("work", work, 0, "extra arithmetic per evaluation of f (an expensive objective)");
  cli.parse(argc, argv);
  const global_opt::problem& p = *global_opt::find_problem(function);

  global_opt::search s(p, levels, work);
  selfsched::task_pool pool({.async_levels = static_cast<int>(async_levels)});
  global_opt::put_initial_regions(pool, p, regions, static_cast<double>(density));
  const double started = example::now_seconds();
  const auto report = pool.run([&](const selfsched::task& task) {
    const auto t = task.as<global_opt::task_payload>();
    if (t.what == global_opt::kind::subregion) s.subregion(pool, t, task.level());
    else s.minimize(t);
  });
  const double seconds = example::now_seconds() - started;

  const double best = global_opt::best_minimum(s);
  const bool found = global_opt::is_known_minimum(p, best);
  if (!found)
    std::cerr << "global_opt: self-check failed: best minimum " << best << ", known " << p.known_minimum << "\n";
  std::cout << "app=global_opt function=" << p.name << " best=" << best << " known=" << p.known_minimum
            << " minimizers=" << s.minimizers.size() << " local_searches=" << s.local_searches
            << " subregion_tasks=" << s.subregion_tasks << " evaluations=" << s.evaluations
            << " tasks=" << report.tasks << " levels_completed=" << report.last_completed_level + 1
            << " threads=" << report.threads << " time_s=" << seconds << " idle_s=" << report.idle_seconds
            << " found=" << (found ? 1 : 0) << " ok=" << (found ? 1 : 0) << std::endl;
  return found ? 0 : 1;
}

// Seed 001's task-pool strategies in the simulator (sim_pools.hpp): its
// Tables 1-3 (small, medium and large numbers of tasks on 8, 16, 32 and 64
// processors: system time, the processors' utilization range, the master's
// or mediator's utilization), then mediation against hierarchical mediation
// from 256 to 8,192 processors, where one mediator saturates.
//
//   build/bin/sim_seed001 [--scale-only | --tables-only]
//
// Prints Markdown. The platform is 1990's: a message costs its sender and
// its receiver 20 ms of processor time each (--message), links 1 ms; tasks:
// a subregion 50 ms, a local minimization 1 s on average.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "selfsched/sim_pools.hpp"

namespace ss = selfsched::sim;

namespace {

struct workload {
  const char* name;
  int roots, levels;
};

std::string range(const std::vector<double>& u) {
  double lo = 1, hi = 0;
  for (double x : u) lo = std::min(lo, x), hi = std::max(hi, x);
  char text[32];
  std::snprintf(text, sizeof text, "%.0f%% - %.0f%%", 100 * lo, 100 * hi);
  return text;
}

ss::pool_result run(ss::pool_strategy s, int processors, int nodes, int roots, int levels, double message) {
  ss::pool_spec spec;
  spec.strategy = s;
  spec.processors = processors;
  spec.nodes = nodes;
  spec.message_seconds = message;
  spec.tree.roots = roots;
  spec.tree.levels = levels;
  return ss::simulate_pool(spec);
}

}  // namespace

int main(int argc, char** argv) {
  bool tables = true, scale = true;
  double message = 0.02;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--scale-only") tables = false;
    else if (arg == "--tables-only") scale = false;
    else if (arg == "--message" && a + 1 < argc) message = std::atof(argv[++a]);
    else {
      std::fprintf(stderr, "sim_seed001: unknown option '%s'; valid: --scale-only, --tables-only, --message SECONDS\n",
                   arg.c_str());
      return 2;
    }
  }
  const ss::pool_strategy seed_strategies[] = {ss::pool_strategy::central, ss::pool_strategy::mediation,
                                               ss::pool_strategy::receiver, ss::pool_strategy::receiver_threshold};
  if (tables) {
    for (const workload w : {workload{"small", 8, 5}, workload{"medium", 16, 7}, workload{"large", 32, 8}}) {
      ss::task_tree_spec tree;
      tree.roots = w.roots;
      tree.levels = w.levels;
      std::printf("\n%s numbers of tasks (%lld tasks)\n\n", w.name, static_cast<long long>(ss::tree_tasks(tree)));
      std::printf("| processors | strategy | system time (s) | processor utilization | master util |\n");
      std::printf("| ---: | --- | ---: | --- | ---: |\n");
      for (const int p : {8, 16, 32, 64})
        for (const ss::pool_strategy s : seed_strategies) {
          const ss::pool_result r = run(s, p, 4, w.roots, w.levels, message);
          const bool master = s == ss::pool_strategy::central || s == ss::pool_strategy::mediation;
          char util[16] = "-";
          if (master) std::snprintf(util, sizeof util, "%.0f%%", 100 * r.master_utilization);
          std::printf("| %d | %s | %.1f | %s | %s |\n", p, ss::pool_strategy_name(s), r.makespan,
                      range(r.utilization).c_str(), util);
          std::fflush(stdout);
        }
    }
  }
  if (scale) {
    std::printf("\nMediation on one level and on two (a mediator per 64 processors), a tree of 32 x P tasks\n\n");
    std::printf("| processors | tasks | mediation (s) | mediator util | hier-mediation (s) | busiest mediator | "
                "hier / one |\n");
    std::printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (const int p : {256, 1024, 4096, 8192}) {
      const int roots = p / 4, levels = 4;  // 30 subregions and minimizations per root
      ss::task_tree_spec tree;
      tree.roots = roots;
      tree.levels = levels;
      const ss::pool_result one = run(ss::pool_strategy::mediation, p, 1, roots, levels, message);
      const ss::pool_result two = run(ss::pool_strategy::hier_mediation, p, p / 64, roots, levels, message);
      std::printf("| %d | %lld | %.1f | %.0f%% | %.1f | %.0f%% | %.2f |\n", p,
                  static_cast<long long>(ss::tree_tasks(tree)), one.makespan, 100 * one.master_utilization,
                  two.makespan, 100 * two.master_utilization, two.makespan / one.makespan);
      std::fflush(stdout);
    }
  }
  return 0;
}

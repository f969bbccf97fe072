// The task tree of sim_pools.hpp, like seed 001's global optimization
// (Smith & Schnabel, sec. 4): level-0 subregions, each sampled and split in
// two down to the last level, each starting local minimizations of random
// length (exponential about their mean). Built breadth first from one seed,
// so the pool model (pools.cpp) and the real pools under SMPI
// (sim/smpi/pool_driver.cpp) run the same tasks.
#include <cmath>
#include <deque>
#include <random>
#include <vector>

#include "selfsched/sim_pools.hpp"

namespace selfsched::sim {

std::vector<tree_task> task_tree(const task_tree_spec& spec) {
  std::mt19937_64 random(spec.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<tree_task> tree;
  std::deque<int> subregions;
  for (int r = 0; r < spec.roots; ++r) {
    tree.push_back({0, true, spec.subregion_seconds, {}});
    subregions.push_back(static_cast<int>(tree.size()) - 1);
  }
  while (!subregions.empty()) {
    const int s = subregions.front();
    subregions.pop_front();
    const int level = tree[static_cast<std::size_t>(s)].level;
    const double whole = std::floor(spec.minimizations);
    const int starts = static_cast<int>(whole) + (unit(random) < spec.minimizations - whole ? 1 : 0);
    for (int k = 0; k < starts; ++k) {
      tree.push_back({level, false, -std::log(1 - unit(random)) * spec.minimization_seconds, {}});
      tree[static_cast<std::size_t>(s)].children.push_back(static_cast<int>(tree.size()) - 1);
    }
    if (level + 1 < spec.levels)
      for (int k = 0; k < 2; ++k) {
        tree.push_back({level + 1, true, spec.subregion_seconds, {}});
        const int child = static_cast<int>(tree.size()) - 1;
        tree[static_cast<std::size_t>(s)].children.push_back(child);
        subregions.push_back(child);
      }
  }
  return tree;
}

std::int64_t tree_tasks(const task_tree_spec& tree) { return static_cast<std::int64_t>(task_tree(tree).size()); }

}  // namespace selfsched::sim

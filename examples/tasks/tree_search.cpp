// tree_search: an unbalanced tree search (after UTS's binomial trees,
// Olivier et al., LCPC 2006) on a selfsched task pool. Each node is a task;
// visiting it may create its children as tasks. The root has --root-children
// children; every other node has --m children with probability --q, else
// none, so subtrees range from one node to thousands and nobody knows their
// size in advance: work a loop schedule cannot split, created as it runs.
//
// A node's randomness is a hash of its parent's and its index, so the tree
// is the same on any number of threads; the pool's count and checksum of the
// nodes are compared with a serial depth-first traversal.
#include <omp.h>

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "../common.hpp"
#include "selfsched/task_pool.hpp"

namespace {

struct node {
  std::uint64_t hash;
  std::int64_t depth;
};

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct tree {
  std::int64_t root_children, m, work;
  double q;

  std::int64_t children(const node& n) const {
    if (n.depth == 0) return root_children;
    return static_cast<double>(splitmix(n.hash ^ 0x5bd1e995) >> 11) * 0x1.0p-53 < q ? m : 0;
  }
  node child(const node& n, std::int64_t k) const { return {splitmix(n.hash + static_cast<std::uint64_t>(k) + 1), n.depth + 1}; }
  // The node's own work: --work rounds of a hash, kept from being optimized away.
  std::uint64_t visit(const node& n) const {
    std::uint64_t h = n.hash;
    for (std::int64_t k = 0; k < work; ++k) h = splitmix(h);
    return h;
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::int64_t root_children = 2000, m = 4, work = 2000, seed = 19, async_levels = 0;
  std::string q_text = "0.2";
  bool serial_check = true;
  example::command_line cli("tree_search",
                            "Unbalanced tree search on a selfsched task pool: each node a task that creates\n"
                            "its children; count and checksum compared with a serial traversal.");
  cli.option("root-children", root_children, 1, "children of the root");
  cli.option("m", m, 1, "children of a node that has any");
  cli.option("q", q_text, "Q", "probability that a node has children; m * q < 1 keeps the tree finite");
  cli.option("work", work, 0, "hash rounds per node (its cost)");
  cli.option("seed", seed, 0, "seed of the root");
  cli.option("async-levels", async_levels, 0, "tree levels in progress at once (0: no limit)");
  bool no_check = false;
  cli.flag("no-check", no_check, "skip the serial traversal");
  cli.parse(argc, argv);
  serial_check = !no_check;
  char* end = nullptr;
  const double q = std::strtod(q_text.c_str(), &end);
  if (end == q_text.c_str() || *end != '\0' || !(q >= 0) || !(q < 1))
    cli.fail("--q '" + q_text + "' is not a probability in [0, 1)");
  if (static_cast<double>(m) * q >= 1)
    cli.fail("--m " + std::to_string(m) + " times --q " + q_text + " is at least 1: the tree may be infinite");

  const tree t{root_children, m, work, q};
  const node root{splitmix(static_cast<std::uint64_t>(seed)), 0};

  // Deeper nodes first (priority = depth), all at level 0 unless levels are
  // limited: depth-first-like, so the queue stays small.
  struct alignas(64) tally {  // one cache line per thread
    std::uint64_t sum = 0;
    std::int64_t nodes = 0;
  };
  std::vector<tally> tallies(static_cast<std::size_t>(omp_get_max_threads()));
  selfsched::task_pool pool({.async_levels = static_cast<int>(async_levels)});
  const auto level_of = [&](const node& n) { return async_levels > 0 ? static_cast<int>(n.depth) : 0; };
  pool.put(root, 0, 0);
  const double started = example::now_seconds();
  const auto report = pool.run([&](const selfsched::task& task) {
    const node n = task.as<node>();
    const auto k = static_cast<std::size_t>(task.thread());
    tallies[k].sum += t.visit(n);
    ++tallies[k].nodes;
    for (std::int64_t c = 0, cs = t.children(n); c < cs; ++c) {
      const node child = t.child(n, c);
      pool.put(child, level_of(child), static_cast<double>(child.depth));
    }
  });
  const double seconds = example::now_seconds() - started;
  std::uint64_t sum = 0;
  std::int64_t nodes = 0;
  for (const tally& k : tallies) {
    sum += k.sum;
    nodes += k.nodes;
  }

  bool ok = report.tasks == nodes;
  std::string line = "app=tree_search nodes=" + std::to_string(nodes) + " tasks=" + std::to_string(report.tasks) +
                     " threads=" + std::to_string(report.threads) + " peak_queued=" +
                     std::to_string(report.peak_queued) + " time_s=" + std::to_string(seconds) +
                     " idle_s=" + std::to_string(report.idle_seconds);
  if (serial_check) {
    std::uint64_t serial_sum = 0;
    std::int64_t serial_nodes = 0;
    std::vector<node> stack{root};
    while (!stack.empty()) {
      const node n = stack.back();
      stack.pop_back();
      serial_sum += t.visit(n);
      ++serial_nodes;
      for (std::int64_t c = 0, cs = t.children(n); c < cs; ++c) stack.push_back(t.child(n, c));
    }
    const bool equal = serial_nodes == nodes && serial_sum == sum;
    if (!equal)
      std::cerr << "tree_search: self-check failed: " << nodes << " nodes (checksum " << sum << ") against "
                << serial_nodes << " serially (" << serial_sum << ")\n";
    ok = ok && equal;
    line += " serial_equal=" + std::to_string(equal ? 1 : 0);
  }
  std::cout << line << " ok=" << (ok ? 1 : 0) << std::endl;
  return ok ? 0 : 1;
}

// Seed 001's task pools in the simulator (sim_pools.hpp): every task of the
// tree runs exactly once under every strategy, processor count and
// asynchronicity level; the masters' and processors' shares stay in [0, 1];
// bad input is named.
#include <gtest/gtest.h>

#include <string>

#include "selfsched/sim.hpp"
#include "sim_error_of.hpp"
#include "selfsched/sim_pools.hpp"

namespace selfsched::sim {
namespace {

constexpr pool_strategy strategies[] = {pool_strategy::central, pool_strategy::mediation, pool_strategy::receiver,
                                        pool_strategy::receiver_threshold, pool_strategy::hier_mediation};

TEST(SimPools, EveryTaskRunsOnceUnderEveryStrategy) {
  for (const pool_strategy s : strategies)
    for (const bool library : {false, true})
      for (const int processors : {2, 5, 16})
        for (const int async_levels : {0, 1, 2}) {
          pool_spec spec;
          spec.strategy = s;
          spec.library_policies = library;
          spec.processors = processors;
          spec.nodes = 2;
          spec.async_levels = async_levels;
          spec.tree.roots = 3;
          spec.tree.levels = 5;
          spec.tree.minimizations = 1.5;
          const std::string what = std::string(pool_strategy_name(s)) + (library ? " (the library's policies)" : "") + " on " +
                                   std::to_string(processors) + " processors, asynchronicity " +
                                   std::to_string(async_levels);
          const pool_result r = simulate_pool(spec);
          EXPECT_EQ(r.tasks, tree_tasks(spec.tree)) << what;
          ASSERT_EQ(r.utilization.size(), static_cast<std::size_t>(processors)) << what;
          double busy = 0;
          for (const double u : r.utilization) {
            EXPECT_GE(u, 0) << what;
            EXPECT_LE(u, 1 + 1e-9) << what;
            busy += u * r.makespan;
          }
          // The processors' computing adds up to the tree's work.
          EXPECT_NEAR(busy, r.work, 1e-6 * r.work) << what;
          EXPECT_GE(r.makespan, r.work / processors) << what;
          EXPECT_LE(r.master_utilization, 1 + 1e-9) << what;
          if (s == pool_strategy::central) EXPECT_EQ(r.transfers, r.tasks) << "every task goes through the master";
        }
}

// Messages cheap beside tasks (an MPI cluster's, not seed 001's 1990s
// software): a processor whose request no node could serve must be told
// no, or it waits for ever holding tasks beyond the asynchronicity limit
// that its own iteration needs (before: 898 of 1,008 tasks never ran).
TEST(SimPools, HierMediationDeniesWhatNoNodeCanServe) {
  pool_spec spec;
  spec.strategy = pool_strategy::hier_mediation;
  spec.processors = 32;
  spec.nodes = 4;
  spec.message_seconds = 2e-6;
  spec.latency = 2e-6;
  spec.tree.roots = 8;
  spec.tree.levels = 6;
  spec.tree.subregion_seconds = 5e-5;
  spec.tree.minimization_seconds = 1e-3;
  const pool_result r = simulate_pool(spec);
  EXPECT_EQ(r.tasks, tree_tasks(spec.tree));
  EXPECT_EQ(r.tasks, 1008);
}

TEST(SimPools, TheTreeIsTheOneAsked) {
  task_tree_spec tree;
  tree.roots = 4;
  tree.levels = 3;
  tree.minimizations = 0;
  EXPECT_EQ(tree_tasks(tree), 4 * (1 + 2 + 4));  // subregions only: 7 per root
  tree.minimizations = 2;
  EXPECT_EQ(tree_tasks(tree), 3 * 4 * (1 + 2 + 4));  // and two minimizations each
}

TEST(SimPools, BadInputIsNamed) {
  const auto message = [](auto&& f) { return sim_error_of(f); };
  EXPECT_NE(message([] { parse_pool_strategy("central-ish"); })
                .find("unknown pool strategy 'central-ish'; valid: central, mediation, receiver"),
            std::string::npos);
  pool_spec one;
  one.processors = 1;
  EXPECT_NE(message([&] { simulate_pool(one); }).find("processors 1 must be in [2, 100000]"), std::string::npos);
  pool_spec nodes;
  nodes.strategy = pool_strategy::hier_mediation;
  nodes.processors = 4;
  nodes.nodes = 5;
  EXPECT_NE(message([&] { simulate_pool(nodes); }).find("nodes 5 must be in [2, processors = 4]"), std::string::npos);
  pool_spec no_tree;
  no_tree.tree.levels = 0;
  EXPECT_NE(message([&] { simulate_pool(no_tree); }).find("levels in [1, 24]"), std::string::npos);
  pool_spec free_tasks;
  free_tasks.tree.subregion_seconds = 0;
  EXPECT_NE(message([&] { simulate_pool(free_tasks); }).find("task times must be > 0"), std::string::npos);
  pool_spec no_status;
  no_status.status_seconds = -1;
  EXPECT_NE(message([&] { simulate_pool(no_status); }).find("status interval must be >= 0"), std::string::npos);
  EXPECT_EQ(parse_pool_strategy("hier-mediation"), pool_strategy::hier_mediation);
}

}  // namespace
}  // namespace selfsched::sim

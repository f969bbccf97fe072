// selfsched::sim threads (sim_threads.hpp): a node's team running auto
// through the runtime's own claims (omp_ext/team_auto) on simulated cores.
// Every iteration runs exactly once, auto balances a skewed loop that static
// cannot, weights from the run queue help on loaded cores, bad input is named.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "selfsched/sim_threads.hpp"
#include "sim_error_of.hpp"

namespace selfsched::sim {
namespace {

threads_spec team_of(int threads, const std::string& schedule, const std::string& costs = "mandelbrot") {
  threads_spec s;
  s.threads = threads;
  s.schedule = schedule;
  s.n = 20000;
  s.costs = cost_model::parse(costs, 5e-5);
  return s;
}

// Mandelbrot's columns: the middle ones cost most, so static's blocks are
// far apart. auto steals its way to balance, near libomp's best.
TEST(SimThreads, AutoBalancesASkewedLoopAt16Threads) {
  const threads_result a = simulate_threads(team_of(16, "auto"));
  const threads_result st = simulate_threads(team_of(16, "static"));
  const threads_result dyn = simulate_threads(team_of(16, "dynamic,1"));
  const threads_result gu = simulate_threads(team_of(16, "guided"));
  for (const threads_result* r : {&a, &st, &dyn, &gu}) EXPECT_TRUE(r->every_iteration_once);
  EXPECT_LT(a.makespan, 0.8 * st.makespan);
  EXPECT_GT(a.efficiency, 0.85);
  // Loose: the claims are real code on simulated time, not a tuned model.
  EXPECT_LT(a.makespan, 1.2 * std::min({st.makespan, dyn.makespan, gu.makespan}));
}

// In order (monotonic: one count, no shares), and carried over time steps.
TEST(SimThreads, AutoInOrderAndOverInstancesRunsEveryIterationOnce) {
  threads_spec s = team_of(32, "auto", "random");
  s.nonmonotonic = false;
  s.instances = 3;
  EXPECT_TRUE(simulate_threads(s).every_iteration_once);
  s.nonmonotonic = true;
  EXPECT_TRUE(simulate_threads(s).every_iteration_once);
}

// Half the cores shared with another process: W-TSS, told Q_k = 2 there,
// gives those threads smaller chunks than TSS does.
TEST(SimThreads, RunQueueWeightsHelpOnLoadedCores) {
  threads_spec tss = team_of(8, "tss", "uniform");
  for (int k = 1; k < 8; k += 2) tss.time_shares.push_back({k, 4e-3, 4e-3, 0, {}});
  threads_spec wtss = tss;
  wtss.schedule = "w-tss";
  const threads_result plain = simulate_threads(tss), weighted = simulate_threads(wtss);
  EXPECT_TRUE(plain.every_iteration_once);
  EXPECT_TRUE(weighted.every_iteration_once);
  EXPECT_LT(weighted.makespan, plain.makespan);
}

TEST(SimThreads, BadInputIsNamed) {
  EXPECT_NE(sim_error_of([] { simulate_threads(team_of(16, "fastest")); }).find("fastest"), std::string::npos);
  EXPECT_NE(sim_error_of([] { simulate_threads(team_of(16, "dynamic,0")); }).find("dynamic,0"), std::string::npos);
  EXPECT_NE(sim_error_of([] { simulate_threads(team_of(0, "auto")); }).find("threads 0"), std::string::npos);
  threads_spec s = team_of(4, "auto");
  s.time_shares.push_back({9, 1e-3, 1e-3, 0, {}});
  EXPECT_NE(sim_error_of([&] { simulate_threads(s); }).find("thread 9"), std::string::npos);
  s.time_shares = {{1, 0, 1e-3, 0, {}}};  // a slice of no time: the thread would never run
  EXPECT_NE(sim_error_of([&] { simulate_threads(s); }).find("ON must be > 0"), std::string::npos);
  s.time_shares = {{1, 1e-3, 1e-3, -2e-3, {}}};
  EXPECT_NE(sim_error_of([&] { simulate_threads(s); }).find("START must be in (-ON, OFF]"), std::string::npos);
}

}  // namespace
}  // namespace selfsched::sim

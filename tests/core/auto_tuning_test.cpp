// auto (auto_tuning.hpp): the chunk rule's three bounds, derived by hand, and
// a simulated team (workers of different speeds, a cost per claim) in which
// auto must stay near the ideal makespan where the first iterations are the
// costliest, where one worker is slow, and where iterations are tiny.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <vector>

#include "selfsched/core.hpp"
#include "selfsched/core/auto_tuning.hpp"

namespace selfsched {
namespace {

auto_estimate measured(double seconds_per_iteration, double claim_seconds, iter_t last_size) {
  auto_estimate e;
  e.record_chunk(1000, 1000 * seconds_per_iteration);
  e.record_claim(claim_seconds);
  e.last_size = last_size;
  return e;
}

TEST(AutoTuning, FirstChunkIsTheMinimum) {
  const auto_estimate nothing;
  EXPECT_EQ(auto_tuning::next_size(nothing, 1'000'000, 0, 1), 1);
  EXPECT_EQ(auto_tuning::next_size(nothing, 1'000'000, 1e9, 7), 7);
  EXPECT_EQ(auto_tuning::next_size(nothing, 1'000'000, 0, 0), 1);  // a minimum below 1 is 1
}

TEST(AutoTuning, GrowthDoublesAtMost) {
  // 10 us per iteration, 1 us claims, R = 1e6 at 2e5 it/s: the balance bound is
  // 1e6 / (4 * 2e5 * 1e-5) = 125,000 and the overhead bound 1e-6 / (0.01 * 1e-5) = 10;
  // doubling decides.
  EXPECT_EQ(auto_tuning::next_size(measured(1e-5, 1e-6, 8), 1'000'000, 2e5, 1), 16);
  EXPECT_EQ(auto_tuning::next_size(measured(1e-5, 1e-6, 64), 1'000'000, 2e5, 1), 128);
}

TEST(AutoTuning, TheRampJumpsToTheOverheadBound) {
  // 10 ns per iteration, claims of 1 us: 1e-6 / (0.01 * 1e-8) = 10,000 iterations, more than
  // twice the previous 1,000, within 16 times it, and under the balance bound of R = 100,000
  // at 2e8 it/s (100,000 / (4 * 2e8 * 1e-8) = 12,500).
  EXPECT_EQ(auto_tuning::next_size(measured(1e-8, 1e-6, 1'000), 100'000, 2e8, 1), 10'000);
  // A claim measured cheaper than the floor counts at the floor: 2e-7 / (0.01 * 1e-8) = 2,000
  // (balance bound of R = 32,000: 4,000).
  EXPECT_EQ(auto_tuning::next_size(measured(1e-8, 1e-9, 200), 32'000, 2e8, 1), 2'000);
}

TEST(AutoTuning, TheJumpIsSixteenTimesThePreviousChunkAtMost) {
  // The same 10,000-iteration overhead bound from a chunk of 10: 160 now, the rest later.
  EXPECT_EQ(auto_tuning::next_size(measured(1e-8, 1e-6, 10), 100'000, 2e8, 1), 160);
  // One cheap first iteration (1 us) and a contended claim (25 us, 64 threads claiming at
  // once): the overhead bound (2,500) and the balance bound (11,930 / (4 * 2.4e6 * 1e-6) =
  // 1,243) would hand out a whole share of costlier iterations; the jump stops at 16.
  auto_estimate first;
  first.record_chunk(1, 1e-6);
  first.record_claim(25e-6);
  first.record_size(1);
  EXPECT_EQ(auto_tuning::next_size(first, 11'930, 2.4e6, 1), 16);
}

TEST(AutoTuning, ChunksGrowToTheBalanceBound) {
  // Past the overhead bound (100) and with doubling no limit: 1e6 / (4 * 2e6 * 1e-6) = 125,000.
  EXPECT_EQ(auto_tuning::next_size(measured(1e-6, 1e-6, 1'000'000), 1'000'000, 2e6, 1), 125'000);
  // Costly iterations near the end: balance, 16 / (4 * 2e3 * 1e-3) = 2, though a claim
  // would want a larger chunk.
  EXPECT_EQ(auto_tuning::next_size(measured(1e-3, 1e-1, 1'000), 16, 2e3, 1), 2);
}

TEST(AutoTuning, BalanceBoundIsAQuarterOfTheWorkersShareOfWhatRemains) {
  // Team rate 2e6 it/s, this worker 1e6 it/s (1 us each): its share of R =
  // 1000 is 500, a quarter of it 125 (< the overhead bound of 1e5 for 1 ms claims).
  EXPECT_EQ(auto_tuning::next_size(measured(1e-6, 1e-3, 1'000'000), 1000, 2e6, 1), 125);
  // A worker at a quarter of the team's rate: 1000 / (4 * 1e6 * 4e-6) = 62.5, rounded up.
  EXPECT_EQ(auto_tuning::next_size(measured(4e-6, 1e-3, 1'000'000), 1000, 1e6, 1), 63);
  // Unknown team rate: the minimum.
  EXPECT_EQ(auto_tuning::next_size(measured(1e-6, 1e-3, 1'000'000), 1000, 0, 3), 3);
}

TEST(AutoTuning, TheNextInstanceRestartsBelowWhereItEnded) {
  auto_estimate e = measured(1e-6, 1e-6, 0);
  e.record_size(400);
  e.record_size(3);  // the tail of the loop
  const auto_estimate next = e.for_next_instance();
  EXPECT_EQ(next.last_size, 100);  // two doublings below the largest chunk, not the tail
  EXPECT_EQ(next.largest_size, 0);
  EXPECT_DOUBLE_EQ(next.seconds_per_iteration(), 1e-6);
}

TEST(AutoTuning, RatesFadeTowardsRecentChunks) {
  auto_estimate e;
  e.record_chunk(100, 100e-6);  // 1 us each
  e.record_chunk(100, 300e-6);  // then 3 us each (the core became loaded)
  // (0.5 * 100e-6 + 300e-6) / (0.5 * 100 + 100) = 2.33 us
  EXPECT_NEAR(e.seconds_per_iteration(), 350e-6 / 150, 1e-12);
  e.record_chunk(0, 1.0);         // nothing run: ignored
  e.record_chunk(10, -1.0);       // a clock going back: ignored
  e.record_chunk(10, std::nan(""));
  EXPECT_NEAR(e.seconds_per_iteration(), 350e-6 / 150, 1e-12);
}

// A team of workers with `speed` (1 = nominal) running a loop whose
// iteration i costs cost(i) seconds at nominal speed, each claim costing
// `claim` seconds: the makespan under `schedule`, and a check that every
// iteration ran exactly once.
double simulated_makespan(const std::string& schedule, iter_t n, const std::vector<double>& speed,
                          const std::function<double(iter_t)>& cost, double claim) {
  const int p = static_cast<int>(speed.size());
  loop_params lp;
  lp.n = n;
  lp.p = p;
  const parse_result parsed = parse_schedule(schedule);
  EXPECT_TRUE(parsed.ok()) << parsed.error;
  apply_chunk(parsed.spec, lp);
  scheduler s(parsed.spec, lp);
  std::vector<double> prefix(static_cast<std::size_t>(n) + 1, 0);
  for (iter_t i = 0; i < n; ++i) prefix[static_cast<std::size_t>(i) + 1] = prefix[static_cast<std::size_t>(i)] + cost(i);
  std::vector<double> free_at(static_cast<std::size_t>(p), 0);
  std::vector<bool> done(static_cast<std::size_t>(p), false);
  iter_t covered = 0, next_start = 0;
  double makespan = 0;
  while (std::find(done.begin(), done.end(), false) != done.end()) {
    int w = -1;
    for (int k = 0; k < p; ++k)
      if (!done[static_cast<std::size_t>(k)] && (w < 0 || free_at[static_cast<std::size_t>(k)] < free_at[static_cast<std::size_t>(w)])) w = k;
    const auto k = static_cast<std::size_t>(w);
    const chunk c = s.next(w);
    free_at[k] += claim;
    if (c.size == 0) {
      done[k] = true;
      makespan = std::max(makespan, free_at[k]);
      continue;
    }
    EXPECT_EQ(c.start, next_start);
    next_start += c.size;
    covered += c.size;
    const double busy = (prefix[static_cast<std::size_t>(c.start + c.size)] - prefix[static_cast<std::size_t>(c.start)]) / speed[k];
    free_at[k] += busy;
    s.record(w, c.size, busy);
  }
  EXPECT_EQ(covered, n);
  return makespan;
}

double ideal_makespan(iter_t n, const std::vector<double>& speed, const std::function<double(iter_t)>& cost) {
  double work = 0;
  for (iter_t i = 0; i < n; ++i) work += cost(i);
  return work / std::accumulate(speed.begin(), speed.end(), 0.0);
}

struct loop_shape {
  const char* name;
  iter_t n;
  std::function<double(iter_t)> cost;
};

// Decreasing cost (work sorted by size), a uniform loop of tiny iterations,
// and a random one; each on equal workers and with one worker at half speed.
TEST(AutoTuning, SimulatedTeamsStayNearTheIdealMakespan) {
  constexpr iter_t n = 20'000;
  const std::vector<loop_shape> shapes{
      {"decreasing", n, [](iter_t i) { return 1e-6 * static_cast<double>(2 * (n - i)) / static_cast<double>(n); }},
      {"tiny uniform", 200'000, [](iter_t) { return 5e-8; }},
      {"random", n, [](iter_t i) { return 1e-6 * static_cast<double>((i * 2654435761u) % 1000) / 500.0; }},
  };
  for (const loop_shape& shape : shapes) {
    for (const std::vector<double>& speed : {std::vector<double>{1, 1}, std::vector<double>{1, 0.5},
                                             std::vector<double>{1, 1, 1, 0.25}}) {
      const double ideal = ideal_makespan(shape.n, speed, shape.cost);
      const double got = simulated_makespan("auto", shape.n, speed, shape.cost, 2e-7);
      EXPECT_LT(got / ideal, 1.06) << shape.name << " on " << speed.size() << " workers, slowest at "
                                   << *std::min_element(speed.begin(), speed.end());
    }
  }
}

// Where static or a decreasing technique hands out a large first chunk to a
// slow worker, auto does not: the comparison that made the old auto lose.
TEST(AutoTuning, BeatsLargeFirstChunksWhenTheFirstIterationsAreCostliest) {
  constexpr iter_t n = 4'000;
  const auto cost = [](iter_t i) { return i < n / 10 ? 2e-5 : 1e-6; };
  const std::vector<double> speed{1, 0.5};
  const double tuned = simulated_makespan("auto", n, speed, cost, 2e-7);
  const double gss = simulated_makespan("gss", n, speed, cost, 2e-7);
  const double fixed_split = simulated_makespan("static", n, speed, cost, 2e-7);
  EXPECT_LT(tuned, 0.9 * gss);
  EXPECT_LT(tuned, 0.9 * fixed_split);
  EXPECT_LT(tuned / ideal_makespan(n, speed, cost), 1.06);
}

}  // namespace
}  // namespace selfsched

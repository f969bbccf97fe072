// selfsched::sim (sim.hpp): the simulated chunk sequence is the core
// scheduler's for the same request order (no second implementation), every
// iteration runs once under every transport, a 2-worker case matches its
// hand-computed makespan, and bad input is named.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "selfsched/core/scheduler.hpp"
#include "selfsched/core/spec.hpp"
#include "selfsched/sim.hpp"
#include "sim_error_of.hpp"

namespace selfsched::sim {
namespace {

platform_spec platform_of(int workers, std::vector<double> speeds = {}) {
  platform_spec p;
  p.workers = workers;
  p.speeds = std::move(speeds);
  return p;
}

run_spec run_of(const std::string& technique, iter_t n, const std::string& costs = "random") {
  run_spec r;
  r.technique = technique;
  r.n = n;
  r.costs = cost_model::parse(costs, 1e-4);
  r.record_chunks = true;
  return r;
}

// Claims that cost nothing and carry no bytes: makespans computable by hand.
run_spec with_free_claims(run_spec r) {
  r.claim_seconds = 0;
  r.request_bytes = 0;
  return r;
}

void expect_each_iteration_once(const result& r, iter_t n, const std::string& what) {
  std::vector<chunk_record> log = r.chunk_log;
  std::sort(log.begin(), log.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  iter_t next = 0;
  for (const chunk_record& c : log) {
    ASSERT_EQ(c.start, next) << what;
    ASSERT_GT(c.size, 0) << what;
    ASSERT_GE(c.ran_on, 0) << what << ": a chunk nobody ran";
    ASSERT_LE(c.begin, c.end) << what;
    next += c.size;
  }
  EXPECT_EQ(next, n) << what;
}

// A file of recorded time slices with `text`, in the test's temporary folder.
std::string slices_file(const std::string& text) {
  static int files = 0;
  const std::string path = ::testing::TempDir() + "slices-" + std::to_string(::getpid()) + "-" + std::to_string(files++);
  std::ofstream(path) << text;
  return path;
}

// Given the order in which the simulated workers asked, a fresh core
// scheduler hands out exactly the simulated chunks.
TEST(Sim, ChunksAreTheCoreSchedulersForTheSameRequestOrder) {
  for (const std::string technique : {"static", "ss", "css,7", "gss", "tss", "fss", "fac", "tfss", "fiss", "viss",
                                      "mfsc", "tap", "wf", "dtss", "w-gss", "fss-80"}) {
    for (const auto via : {transport::master, transport::rma, transport::hier}) {
      if (via == transport::rma && !is_fixed(parse_schedule(technique).spec)) continue;  // refused: BadInputIsNamed
      const platform_spec platform = platform_of(5, {1, 0.5, 0.8});
      run_spec run = run_of(technique, 3000);
      run.via = via;
      run.masters = 2;
      const result r = simulate(platform, run);
      const std::string what = technique + " over " + transport_name(via);
      expect_each_iteration_once(r, run.n, what);
      loop_params lp;
      lp.n = run.n;
      lp.p = platform.workers;
      const parse_result parsed = parse_schedule(technique);
      ASSERT_TRUE(parsed.ok());
      apply_chunk(parsed.spec, lp);
      for (int k = 0; k < platform.workers; ++k) lp.powers.push_back(platform.speeds[static_cast<std::size_t>(k) % 3]);
      scheduler reference(parsed.spec, lp);
      for (const chunk_record& c : r.chunk_log) {
        const chunk expected = reference.next(c.asked_for);
        ASSERT_EQ(expected.start, c.start) << what;
        ASSERT_EQ(expected.size, c.size) << what;
      }
      EXPECT_EQ(reference.next(0).size, 0) << what << ": the simulation stopped early";
    }
  }
}

TEST(Sim, AdaptiveTechniquesSeeTheSimulatedTimes) {
  for (const std::string technique : {"af", "awf-b", "awf-c", "bold", "auto"}) {  // bold: conservation only
    for (const auto via : {transport::master, transport::hier}) {
      run_spec run = run_of(technique, 5000, "mandelbrot");
      run.via = via;
      run.masters = 3;
      expect_each_iteration_once(simulate(platform_of(7, {1, 0.25}), run), run.n,
                                 technique + " over " + transport_name(via));
      if (via != transport::master || technique == "bold") continue;
      // Uniform iterations: a worker's rate is its speed, whatever it ran.
      run.costs = cost_model::parse("uniform", 1e-4);
      const result r = simulate(platform_of(7, {1, 0.25}), run);
      // The simulated times reach the technique: once a worker has run a
      // chunk, it sizes the chunks of the workers of speed 1 (even numbers)
      // larger than those of speed 0.25 handed out next to them (neighbours
      // in hand-out order, so that chunks shrinking over the loop do not
      // count). Geometric mean of fast / slow over such neighbours.
      std::vector<bool> seen(7, false);
      std::vector<const chunk_record*> informed;  // chunks for workers with a known rate
      for (const chunk_record& c : r.chunk_log) {
        if (seen[static_cast<std::size_t>(c.ran_on)]) informed.push_back(&c);
        seen[static_cast<std::size_t>(c.ran_on)] = true;
      }
      double log_ratio = 0;
      int pairs = 0;
      for (std::size_t i = 1; i < informed.size(); ++i) {
        const chunk_record &a = *informed[i - 1], &b = *informed[i];
        if (a.ran_on % 2 == b.ran_on % 2) continue;
        const chunk_record& fast = a.ran_on % 2 == 0 ? a : b;
        const chunk_record& slow = a.ran_on % 2 == 0 ? b : a;
        log_ratio += std::log(static_cast<double>(fast.size) / static_cast<double>(slow.size));
        ++pairs;
      }
      ASSERT_GT(pairs, 3) << technique;
      EXPECT_GT(std::exp(log_ratio / pairs), 1.5)
          << technique << ": a fast worker's chunk is " << std::exp(log_ratio / pairs)
          << "x its slow neighbour's, over " << pairs << " pairs";
    }
  }
}

// Two workers of speeds 1 and 0.5, static, uniform iterations of 100 us, free
// communication: worker 1 runs its 500 iterations in 0.1 s, the makespan.
TEST(Sim, TwoWorkersMatchTheHandComputedMakespan) {
  platform_spec platform = platform_of(2, {1, 0.5});
  platform.latency = 0;
  run_spec run = with_free_claims(run_of("static", 1000, "uniform"));
  const result r = simulate(platform, run);
  EXPECT_NEAR(r.makespan, 0.1, 1e-9);
  EXPECT_NEAR(r.ideal, 0.1 / 1.5, 1e-9);  // 1000 x 100 us over speed 1.5
  ASSERT_EQ(r.busy.size(), 2u);
  EXPECT_NEAR(r.busy[0], 0.05, 1e-9);
  EXPECT_NEAR(r.busy[1], 0.1, 1e-9);
  // With a 1 ms claim at the master, ss on 10 iterations: the second worker
  // waits for the first's claim, and every chunk costs a claim.
  platform_spec equal = platform_of(2);
  equal.latency = 0;
  run_spec ss = run_of("ss", 10, "uniform");
  ss.claim_seconds = 1e-3;
  ss.request_bytes = 0;
  ss.costs = cost_model::parse("uniform", 1e-3);
  const result s = simulate(equal, ss);
  // Requests at t = 0 from both; the master serves them one after another
  // (1 ms each), so the workers run in lockstep 1 ms apart; each of the 5
  // rounds costs the second worker 2 ms (its claim waits behind the
  // other's), and the final requests cost one more claim each.
  EXPECT_NEAR(s.makespan, 0.011, 1e-9);
  EXPECT_EQ(s.chunks, 10);
}

// Cluster mode's merge: two workers ran 500 iterations each, writing a page
// per iteration; each diffs its 500 pages (10 us each, 5 ms) and applies the
// other's 500 (5 ms) over a free network: 10 ms after the loop's 50 ms.
TEST(Sim, ClusterModesMergeMatchesTheHandComputedTime) {
  platform_spec platform = platform_of(2);
  platform.latency = 0;
  platform.bandwidth = 1e18;
  run_spec run = with_free_claims(run_of("static", 1000, "uniform"));
  run.merge_bytes = 4096;
  run.merge_page_seconds = 1e-5;
  const result r = simulate(platform, run);
  EXPECT_NEAR(r.merge_seconds, 0.010, 1e-6);
  EXPECT_NEAR(r.makespan, 0.060, 1e-6);
  expect_each_iteration_once(r, 1000, "static with a merge");
  // The pages travel: on real links the merge takes longer, more so with more bytes.
  platform_spec links = platform_of(4);
  run_spec few = run, many = run;
  few.technique = many.technique = "fss";
  many.merge_bytes = 4 * 4096;
  const result a = simulate(links, few), b = simulate(links, many);
  EXPECT_GT(a.merge_seconds, 0.0);
  EXPECT_GT(b.merge_seconds, 2 * a.merge_seconds);
  run.merge_bytes = -1;
  EXPECT_NE(sim_error_of([&] { simulate(platform, run); }).find("merge bytes"), std::string::npos);
}

// Worker 1 of 4 at a quarter of its speed from 10 to 80 ms: static's
// makespan grows by the work it lost (70 ms x 0.75 = 52.5 ms); a dynamic
// technique spreads that over the others.
TEST(Sim, ASlowdownOverTimeStretchesStaticAndNotFss) {
  platform_spec platform = platform_of(4);
  platform.latency = 0;
  platform.slowdowns.push_back(parse_slowdown("1:0.25:10ms:80ms"));
  run_spec fixed = with_free_claims(run_of("static", 4000, "uniform"));
  EXPECT_NEAR(simulate(platform, fixed).makespan, 0.1525, 1e-6);
  run_spec dynamic = fixed;
  dynamic.technique = "fss";
  const double perturbed_ideal = (0.4 + 0.0525) / 4;
  EXPECT_LT(simulate(platform, dynamic).makespan, 1.05 * perturbed_ideal);
}

// What the techniques are told of the speeds may be wrong (a calibration by
// CPU clock, seed 003): alpha = 100 splits the loop by the declared powers,
// and the hosts run at their real speeds.
TEST(Sim, DeclaredPowersSteerTheTechniqueAndTheHostsKeepTheirSpeeds) {
  platform_spec platform = platform_of(2, {1, 0.5});
  platform.latency = 0;
  run_spec run = with_free_claims(run_of("fss-100", 1000, "uniform"));
  const result told_truth = simulate(platform, run);
  EXPECT_NEAR(told_truth.makespan, 0.0667, 1e-4);  // 667 and 333 iterations: both busy 66.7 ms
  platform.powers = {1};  // told they are equal
  const result told_equal = simulate(platform, run);
  ASSERT_EQ(told_equal.busy.size(), 2u);
  EXPECT_NEAR(told_equal.busy[0], 0.05, 1e-9);  // 500 iterations at speed 1
  EXPECT_NEAR(told_equal.makespan, 0.1, 1e-9);  // 500 at speed 0.5
  EXPECT_NEAR(told_equal.ideal, told_truth.ideal, 1e-12);
}

// Who asks first decides who gets a decreasing technique's first chunk: a
// late worker 0 leaves chunk 0 to worker 1; its delay adds to static's
// makespan (the real runs' order varies; benchmarks/sim/validate.py
// simulates each run's own order).
TEST(Sim, ALateWorkerAsksSecond) {
  platform_spec platform = platform_of(2);
  platform.latency = 0;
  run_spec fss = with_free_claims(run_of("fss", 1000, "uniform"));
  const auto first_taker = [](const result& r) {
    for (const chunk_record& c : r.chunk_log)
      if (c.start == 0) return c.ran_on;
    return -1;
  };
  EXPECT_EQ(first_taker(simulate(platform, fss)), 0);
  platform.late_starts.push_back(parse_late_start("0:1us"));
  const result late = simulate(platform, fss);
  EXPECT_EQ(first_taker(late), 1);
  expect_each_iteration_once(late, fss.n, "fss with worker 0 late");
  platform.late_starts = {parse_late_start("1:10ms")};
  EXPECT_NEAR(simulate(platform, with_free_claims(run_of("static", 1000, "uniform"))).makespan, 0.06, 1e-9);
}

// Seed 003's alpha phase by work: on a decreasing loop the first shares
// are fewer (costlier) iterations than alpha % of the iterations would give.
TEST(Sim, AlphaByWorkSplitsTheSimulatedCosts) {
  platform_spec platform = platform_of(2);
  platform.latency = 0;
  run_spec run = with_free_claims(run_of("gss-80", 1000, "decreasing"));
  const auto first_two = [](const result& r) {
    return std::vector<iter_t>{r.chunk_log.at(0).size, r.chunk_log.at(1).size};
  };
  EXPECT_EQ(first_two(simulate(platform, run)), (std::vector<iter_t>{400, 400}));
  run.alpha_by_work = true;
  const result by_work = simulate(platform, run);
  const std::vector<iter_t> shares = first_two(by_work);
  EXPECT_LT(shares[0], shares[1]);  // the same work: the first share's iterations cost more
  EXPECT_LT(shares[0] + shares[1], 800);
  expect_each_iteration_once(by_work, run.n, "gss-80 by work");
}

// The same two workers from a SimGrid platform file: the same makespan.
TEST(Sim, APlatformFileGivesTheWorkersAndTheirSpeeds) {
  platform_spec platform;
  platform.xml = SELFSCHED_TEST_DATA "/sim-two-workers.xml";
  run_spec run = with_free_claims(run_of("static", 1000, "uniform"));
  const result r = simulate(platform, run);
  ASSERT_EQ(r.busy.size(), 2u);
  EXPECT_NEAR(r.makespan, 0.1, 1e-9);
  EXPECT_NEAR(r.busy[1], 0.1, 1e-9);
  run.via = transport::hier;  // the file has no supermaster
  try {
    simulate(platform, run);
    ADD_FAILURE() << "hier without a supermaster host ran";
  } catch (const sim_error& e) {
    EXPECT_NE(std::string(e.what()).find("no host named supermaster"), std::string::npos) << e.what();
  }
  run.via = transport::master;
  platform.memory_share = 0.5;  // the file has no memory host
  EXPECT_NE(sim_error_of([&] { simulate(platform, run); }).find("no host named memory-0"), std::string::npos);
}

// A time-shared worker (platform_spec::time_shares) computes only in its
// slices: 10 ms of work in slices of 1 ms every 3 ms, the first from 1 ms,
// ends with its tenth slice (28-29 ms), or at 30 ms when the loop begins
// half a slice in; it asks only once its first slice has
// begun, so the other worker takes the first chunk. A slice that ends
// mid-chunk leaves the rest for the next.
TEST(Sim, ATimeSharedWorkerComputesInItsSlices) {
  platform_spec platform = platform_of(1);
  platform.latency = 0;
  platform.time_shares.push_back(parse_time_share("0:1ms:2ms:1ms"));
  const run_spec run = with_free_claims(run_of("static", 100, "uniform"));
  EXPECT_NEAR(simulate(platform, run).makespan, 0.029, 1e-9);
  // Begun 0.5 ms into a slice: 0.5 ms of work by 0.5 ms, then 1 ms in each
  // slice from 2.5 ms every 3 ms; the last 0.5 ms in [29.5, 30) ms.
  platform.time_shares = {parse_time_share("0:1ms:2ms:-0.5ms")};
  EXPECT_NEAR(simulate(platform, run).makespan, 0.030, 1e-9);
  platform_spec two = platform_of(2);
  two.latency = 0;
  two.time_shares.push_back(parse_time_share("1:1ms:1ms:0.5ms"));
  const result r = simulate(two, with_free_claims(run_of("gss", 100, "uniform")));
  ASSERT_FALSE(r.chunk_log.empty());
  EXPECT_EQ(r.chunk_log.front().ran_on, 0);
  EXPECT_NEAR(r.chunk_log.front().begin, 0, 1e-12);
}

// Slices as recorded (parse_time_share's WORKER:FILE): 10 ms of work in
// slices [1, 2), [4, 6) and [9, 9.5) ms runs 3.5 ms there and the rest, 6.5
// ms, unshared after the last: it ends at 16 ms. A second worker's slice
// from 2 ms makes it ask second.
TEST(Sim, ATimeSharedWorkerComputesInTheSlicesAsRecorded) {
  platform_spec platform = platform_of(1);
  platform.latency = 0;
  platform.time_shares.push_back(parse_time_share("0:" + slices_file("# begin end\n1ms 2ms\n0.004 0.006  # s\n9ms 9.5ms\n")));
  const run_spec run = with_free_claims(run_of("static", 100, "uniform"));
  EXPECT_NEAR(simulate(platform, run).makespan, 0.016, 1e-9);
  platform_spec two = platform_of(2);
  two.latency = 0;
  two.time_shares.push_back(parse_time_share("1:" + slices_file("2ms 3ms\n")));
  const result r = simulate(two, with_free_claims(run_of("gss", 100, "uniform")));
  ASSERT_FALSE(r.chunk_log.empty());
  EXPECT_EQ(r.chunk_log.front().ran_on, 0);
  const auto second = std::find_if(r.chunk_log.begin(), r.chunk_log.end(), [](const auto& c) { return c.ran_on == 1; });
  ASSERT_NE(second, r.chunk_log.end());
  EXPECT_NEAR(second->begin, 0.002, 1e-12);
  expect_each_iteration_once(r, 100, "gss beside recorded slices");
}

// Memory-bound iterations (platform_spec::memory_share): static gives two
// speed-1 workers 500 iterations of 100 us, 50 ms each. With a share of
// 0.75 each moves 37.5 ms' worth of its node's full bandwidth; on one node
// both stream at once and take 75 ms, on nodes of their own 50 ms; with a
// share of 0.4 two of them do not saturate the node (2 x 0.4 < 1). Threads
// of one worker share its node alike.
TEST(Sim, MemoryBoundWorkersOfANodeShareItsBandwidth) {
  platform_spec platform = platform_of(2);
  platform.latency = 0;
  platform.memory_share = 0.75;
  platform.workers_per_node = 2;
  const run_spec run = with_free_claims(run_of("static", 1000, "uniform"));
  const result shared = simulate(platform, run);
  EXPECT_NEAR(shared.makespan, 0.075, 1e-9);
  EXPECT_NEAR(shared.busy[0], 0.075, 1e-9);
  platform.workers_per_node = 1;
  EXPECT_NEAR(simulate(platform, run).makespan, 0.05, 1e-9);
  platform.workers_per_node = 2;
  platform.memory_share = 0.4;
  EXPECT_NEAR(simulate(platform, run).makespan, 0.05, 1e-9);
  // A worker at a quarter of the speed streams at most at a quarter of the
  // bandwidth: worker 0 has the other three quarters, enough for its 37.5
  // ms' worth in 50 ms; worker 1 computes until 200 ms.
  platform.memory_share = 0.75;
  platform.speeds = {1, 0.25};
  const result uneven = simulate(platform, run);
  EXPECT_NEAR(uneven.busy[0], 0.05, 1e-9);
  EXPECT_NEAR(uneven.makespan, 0.2, 1e-9);
  // One worker of two threads on two cores: its threads share its node.
  platform_spec rank = platform_of(1);
  rank.latency = 0;
  rank.memory_share = 0.75;
  run_spec team = run;
  team.threads = 2;
  team.inner_technique = "static";
  team.inner_claim_seconds = 0;
  EXPECT_NEAR(simulate(rank, team).makespan, 0.075, 1e-9);
}

// Worker 1 of 4 lost at 20 ms under static: the workers that finish their
// own quarter (at 0.1 s) each take a copy of worker 1's (0.1 s more; rDLB
// gives every idle worker one, the first to finish counts). Every
// iteration is covered; the loop ends at 0.2 s.
TEST(Sim, ALostWorkersChunkIsRunAgain) {
  platform_spec platform = platform_of(4);
  platform.latency = 0;
  platform.losses.push_back(parse_loss("1:20ms"));
  run_spec run = with_free_claims(run_of("static", 4000, "uniform"));
  const result r = simulate(platform, run);
  EXPECT_NEAR(r.makespan, 0.2, 1e-6);
  EXPECT_GE(r.reexecuted, 1);
  EXPECT_LE(r.reexecuted, 3);
  expect_each_iteration_once(r, run.n, "static with a loss");
  // fss loses a smaller chunk and spreads the rest: under static's doubling.
  run.technique = "fss";
  const result f = simulate(platform, run);
  EXPECT_GE(f.reexecuted, 1);
  EXPECT_LT(f.makespan, 0.9 * r.makespan);
  expect_each_iteration_once(f, run.n, "fss with a loss");
}

// hier: rDLB within each node. 8 workers in 2 nodes, static chunks of 500
// iterations (50 ms); worker 1 (node 0) lost at 20 ms, worker 6 (node 1) at
// 10 ms. When each node's pool and the supermaster run dry (50 ms), its
// live workers run copies of the oldest chunks not reported finished (the
// lost one, and one whose worker asks a moment later): done between 100
// and 150 ms (copies are not cancelled in the model), against 50 ms
// without losses.
// Ranks of two threads: a team tells its master which outer chunks it ran
// whole (it asks for the next one before the current one ends), so a lost
// rank's chunks, and only those not finished, are run again.
TEST(Sim, LostRanksOfSeveralThreadsHaveTheirChunksRunAgain) {
  for (const transport via : {transport::master, transport::hier}) {
    const std::string what = via == transport::master ? "master" : "hier";
    platform_spec platform = platform_of(4);
    platform.latency = 0;
    platform.losses.push_back(parse_loss("1:20ms"));
    run_spec run = with_free_claims(run_of("static", 4000, "uniform"));
    run.threads = 2;
    run.via = via;
    run.masters = 2;
    // Each rank's 1000 iterations take 50 ms on its two threads; rank 1's
    // are run again by a rank that finished its own (by 100 ms). Copies
    // of chunks finished elsewhere are dropped at their next inner claim:
    // at most one inner chunk (fss's first: 250 iterations, 12.5 ms) more.
    const result r = simulate(platform, run);
    EXPECT_GE(r.makespan, 0.1 - 1e-6) << what;
    EXPECT_LE(r.makespan, 0.1 + 0.0125 + 1e-4) << what;  // and 100 ns inner claims
    EXPECT_GE(r.reexecuted, 1) << what;
    expect_each_iteration_once(r, run.n, "static, two threads, a loss under " + what);
    for (const chunk_record& c : r.chunk_log) EXPECT_NE(c.ran_on, 1) << what << ": chunk " << c.start;
    run.technique = "fss";
    const result f = simulate(platform, run);
    EXPECT_GE(f.reexecuted, 1) << what;
    expect_each_iteration_once(f, run.n, "fss, two threads, a loss under " + what);
    for (const chunk_record& c : f.chunk_log) EXPECT_NE(c.ran_on, 1) << what << ": chunk " << c.start;
  }
}

TEST(Sim, UnderHierANodeRunsItsLostChunksAgain) {
  platform_spec platform = platform_of(8);
  platform.latency = 0;
  platform.losses = {parse_loss("1:20ms"), parse_loss("6:10ms")};
  run_spec run = with_free_claims(run_of("static", 4000, "uniform"));
  run.via = transport::hier;
  run.masters = 2;
  const result r = simulate(platform, run);
  EXPECT_GE(r.makespan, 0.1 - 1e-6);
  EXPECT_LE(r.makespan, 0.15 + 1e-5);
  EXPECT_GE(r.reexecuted, 2);
  expect_each_iteration_once(r, run.n, "hier with losses");
  for (const chunk_record& c : r.chunk_log) {
    EXPECT_NE(c.ran_on, 1) << "chunk " << c.start << " counted on a lost worker";
    EXPECT_NE(c.ran_on, 6) << "chunk " << c.start << " counted on a lost worker";
  }
  // Every worker of a node lost: nobody there can run its chunks again.
  platform.losses = {parse_loss("0:1ms"), parse_loss("1:1ms"), parse_loss("2:1ms"), parse_loss("3:1ms")};
  EXPECT_THROW(simulate(platform, run), sim_error);
}

// rma: one worker, ss over 10 uniform iterations of 100 us, links free: ten
// claims of 1 us at the window before ten iterations, and the eleventh claim
// (no more) after the last one ends the loop at 10 x (1 + 100) us.
TEST(Sim, RmaClaimsCostTheAtomicAtTheWindow) {
  platform_spec platform = platform_of(1);
  platform.latency = 0;
  platform.bandwidth = 1e18;
  run_spec run = run_of("ss", 10, "uniform");
  run.via = transport::rma;
  run.atomic_seconds = 1e-6;
  run.claim_seconds = 1;  // a master's: not rma's
  const result r = simulate(platform, run);
  EXPECT_NEAR(r.makespan, 10 * 101e-6, 1e-9);
  EXPECT_EQ(r.chunks, 10);
  EXPECT_EQ(r.messages, 22);  // 11 fetch-and-adds and their answers
}

// Many workers claiming one iteration each: a master that works 1 us per
// request saturates where an atomic of 0.2 us does not (the reason rma
// exists), and both hand out every iteration once.
TEST(Sim, RmaOutlastsASaturatedMaster) {
  platform_spec platform = platform_of(64);
  platform.latency = 0;  // the claims' service, not the links, decides here
  run_spec run = run_of("ss", 6400, "uniform");
  run.costs = cost_model::parse("uniform", 10e-6);
  const result master = simulate(platform, run);
  run.via = transport::rma;
  const result rma = simulate(platform, run);
  expect_each_iteration_once(master, run.n, "ss over master");
  expect_each_iteration_once(rma, run.n, "ss over rma");
  for (std::size_t k = 0; k < rma.busy.size(); ++k) EXPECT_GT(rma.busy[k], 0) << "rma: worker " << k << " got nothing";
  EXPECT_GT(master.makespan, 2 * rma.makespan) << "master " << master.makespan << " s, rma " << rma.makespan << " s";
}

// Two levels: each worker a rank of 3 threads splitting its outer chunks.
// Every outer chunk is run, and the threads compute each iteration once:
// their busy time adds up to the loop's work (speeds 1).
TEST(Sim, TwoLevelsRunEveryIterationOnce) {
  for (const auto via : {transport::master, transport::rma, transport::hier}) {
    for (const std::string outer : {"fss", "gss", "static"}) {
      for (const std::string inner : {"ss", "fss", "gss"}) {
        run_spec run = run_of(outer, 4000, "random");  // 50-150 us: one iteration more or less shows
        run.via = via;
        run.masters = 2;
        run.threads = 3;
        run.inner_technique = inner;
        const result r = simulate(platform_of(4), run);
        const std::string what = outer + " over " + transport_name(via) + ", " + inner + " inside";
        expect_each_iteration_once(r, run.n, what);
        const std::vector<double> costs = run.costs.costs(run.n);
        double work = 0, busy = 0;
        for (double c : costs) work += c;
        for (double b : r.busy) busy += b;
        EXPECT_NEAR(busy, work, 1e-7 * work) << what;  // SimGrid's clock rounds; an iteration is >= 1.2e-4 of it
        EXPECT_NEAR(r.ideal, work / 12, 1e-12) << what << ": 4 workers of 3 threads";
      }
    }
  }
}

// One worker of 2 threads, static outside and inside, 1000 uniform
// iterations of 100 us, nothing else costs: each thread runs 500, 0.05 s.
TEST(Sim, TwoThreadsMatchTheHandComputedMakespan) {
  platform_spec platform = platform_of(1);
  platform.latency = 0;
  run_spec run = with_free_claims(run_of("static", 1000, "uniform"));
  run.threads = 2;
  run.inner_technique = "static";
  run.inner_claim_seconds = 0;
  const result r = simulate(platform, run);
  EXPECT_NEAR(r.makespan, 0.05, 1e-9);
  EXPECT_NEAR(r.ideal, 0.05, 1e-9);
  ASSERT_EQ(r.busy.size(), 1u);
  EXPECT_NEAR(r.busy[0], 0.1, 1e-9);  // both threads' busy time
}

// Mechanism S: 4 columns of 1 s each (all rows), 2 rows, #SP 2 (an
// interval is one row), static chunks [0, 2) and [2, 4). Chunk 0 runs its
// intervals at 0-1 and 1-2 s; chunk 1's first interval waits for chunk 0's
// (1-2 s), its second for chunk 0's second (2-3 s): 3 s, against 2 s with
// no dependence.
// A rank of threads asks for its next outer chunk early as the runtime's
// ranks do: not during its first chunk (its rate is unknown), then once 15%
// is left and the chunk is expected to end within two round trips. One rank
// of 2 threads, 100 us iterations, 5 ms a link (a round trip of 20 ms).
TEST(Sim, RanksPrefetchOnlyOnceTheyKnowTheirRate) {
  platform_spec platform = platform_of(1);
  platform.latency = 5e-3;
  run_spec run = with_free_claims(run_of("css,500", 1000, "uniform"));
  run.threads = 2;
  const result two = simulate(platform, run);
  ASSERT_EQ(two.chunk_log.size(), 2u);
  // The second chunk was asked for when the first ran dry: a whole round trip.
  EXPECT_NEAR(two.chunk_log[1].begin - two.chunk_log[0].end, 0.020, 1e-4);
  run.technique = "css,250";
  const result four = simulate(platform, run);
  ASSERT_EQ(four.chunk_log.size(), 4u);
  EXPECT_NEAR(four.chunk_log[1].begin - four.chunk_log[0].end, 0.020, 1e-4);
  // The third was asked for while the second ran (12.5 ms of work; asked at
  // the first inner claim with 15% left, about 3 ms before its end): it came
  // that much sooner than a request at the end would have.
  EXPECT_LT(four.chunk_log[2].begin, four.chunk_log[1].end + 0.020 - 0.002);
}

TEST(Sim, ADependenceLoopMatchesTheHandComputedMakespan) {
  platform_spec platform = platform_of(2);
  platform.latency = 0;
  run_spec run = with_free_claims(run_of("s-static", 4, "uniform"));
  run.costs = cost_model::parse("uniform", 1.0);
  run.rows = 2;
  run.sync_points = 2;
  const result r = simulate(platform, run);
  EXPECT_NEAR(r.makespan, 3.0, 1e-6);
  ASSERT_EQ(r.chunk_log.size(), 2u);
  EXPECT_NEAR(r.chunk_log[1].end, 3.0, 1e-6);
  // Busy time leaves the waits out: 2 s each.
  EXPECT_NEAR(r.busy[0], 2.0, 1e-6);
  EXPECT_NEAR(r.busy[1], 2.0, 1e-6);
  // Boundaries cost their bytes: 5e5 bytes a row at 1e6 bytes/s (the
  // route's narrowest link) arrive 0.5 s after they are sent, at 1.5 and
  // 2.5 s: chunk 1 runs 1.5-2.5 and 2.5-3.5 s.
  platform.bandwidth = 1e6;
  run.boundary_bytes = 5e5;
  EXPECT_NEAR(simulate(platform, run).makespan, 3.5, 1e-6);
}

// Every column once, under every S and SW technique of seed 000, on
// workers of unequal speeds; SW gives the slower ones less.
TEST(Sim, DependenceLoopsRunEveryColumnOnce) {
  for (const char* technique : {"s-css", "s-gss", "s-fss", "s-tss", "sw-css", "sw-gss", "sw-fss", "sw-tss"}) {
    run_spec run = run_of(technique, 2000, "uniform");
    run.rows = 300;
    const result r = simulate(platform_of(4, {1, 0.4}), run);
    expect_each_iteration_once(r, 2000, technique);
    double busy = 0;
    for (double b : r.busy) busy += b;
    double work = 0;
    for (double c : run.costs.costs(2000)) work += c;
    // Each worker's busy time is its columns' work at its speed.
    EXPECT_GT(busy, work * 0.99) << technique;
  }
}

// The same under every transport (rma: fixed techniques; hier: node
// masters of 2 and 3 workers hand out their pools oldest first, so every
// worker's chunks come in order and chunk k's boundary always has a sender),
// and with ranks of 3 threads that split each chunk (inner chunk i after
// i - 1, the first after the previous chunk's boundary): every column once,
// the workers' computing adds up to the work, and no chunk ends before the
// one before it.
TEST(Sim, DependenceLoopsRunUnderEveryTransport) {
  for (const transport via : {transport::master, transport::rma, transport::hier}) {
    for (const int threads : {1, 3}) {
      for (const char* technique : {"s-css", "s-gss", "s-fss", "s-tss", "sw-fss"}) {
        if (via == transport::rma && std::string(technique) == "sw-fss") continue;  // rma: fixed techniques
        const std::string what = std::string(technique) + " over " + transport_name(via) + ", " +
                                 std::to_string(threads) + " threads";
        run_spec run = run_of(technique, 2000, "uniform");
        run.rows = 300;
        run.via = via;
        run.masters = 2;
        run.threads = threads;
        const result r = simulate(platform_of(5, {1, 0.4}), run);
        expect_each_iteration_once(r, 2000, what);
        double busy = 0, work = 0;
        for (double b : r.busy) busy += b;
        for (double c : run.costs.costs(2000)) work += c;
        EXPECT_GT(busy, work * 0.99) << what;
        std::vector<chunk_record> by_start = r.chunk_log;
        std::sort(by_start.begin(), by_start.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
        for (std::size_t k = 1; k < by_start.size(); ++k)
          EXPECT_GE(by_start[k].end, by_start[k - 1].end - 1e-9) << what << ", chunk at " << by_start[k].start;
      }
    }
  }
}

TEST(Sim, BadInputIsNamed) {
  const auto message = [](auto&& f) { return sim_error_of(f); };
  EXPECT_NE(message([] { simulate(platform_of(0), run_of("fss", 10)); }).find("workers 0"), std::string::npos);
  EXPECT_NE(message([] { simulate(platform_of(2), run_of("fsss", 10)); }).find("unknown technique 'fsss'"),
            std::string::npos);
  EXPECT_NE(message([] { parse_speeds("1:x"); }).find("'x' is not a positive number"), std::string::npos);
  EXPECT_NE(message([] { parse_speeds("1:0"); }).find("'0' is not a positive number"), std::string::npos);
  EXPECT_NE(message([] { parse_speeds("1:-2", "powers"); }).find("powers '1:-2': '-2' is not a positive number"),
            std::string::npos);
  EXPECT_NE(message([] { parse_seconds("-1us", "--latency"); }).find("--latency '-1us'"), std::string::npos);
  EXPECT_NE(message([] { cost_model::parse("sawtooth"); }).find("unknown cost model 'sawtooth'; valid: uniform"),
            std::string::npos);
  EXPECT_NE(message([] { parse_transport("mesh"); }).find("valid: master, rma, hier"), std::string::npos);
  run_spec no_threads = run_of("fss", 10);
  no_threads.threads = 0;
  EXPECT_NE(message([&] { simulate(platform_of(2), no_threads); }).find("threads 0 must be in [1, 1024]"),
            std::string::npos);
  run_spec bad_inner = run_of("fss", 10);
  bad_inner.threads = 2;
  bad_inner.inner_technique = "fastest";
  EXPECT_NE(message([&] { simulate(platform_of(2), bad_inner); }).find("inner technique: unknown technique 'fastest'"),
            std::string::npos);
  run_spec adaptive_rma = run_of("awf-b", 10);
  adaptive_rma.via = transport::rma;
  EXPECT_NE(message([&] { simulate(platform_of(2), adaptive_rma); }).find("rma needs a fixed technique"),
            std::string::npos);
  run_spec hier = run_of("fss", 10);
  hier.via = transport::hier;
  hier.masters = 3;
  EXPECT_NE(message([&] { simulate(platform_of(2), hier); }).find("masters 3 must be in [1, workers = 2]"),
            std::string::npos);
  EXPECT_NE(message([] { parse_slowdown("1:0.5:2"); }).find("expected WORKER:FACTOR:FROM:UNTIL"), std::string::npos);
  EXPECT_NE(message([] { parse_slowdown("1:0:0:1"); }).find("'0' is not a factor in (0, 1]"), std::string::npos);
  platform_spec slowed = platform_of(2);
  slowed.slowdowns.push_back(parse_slowdown("5:0.5:0:1"));
  EXPECT_NE(message([&] { simulate(slowed, run_of("fss", 10)); }).find("slowdown of worker 5: workers are 0 .. 1"),
            std::string::npos);
  EXPECT_NE(message([] { parse_loss("1"); }).find("expected WORKER:TIME"), std::string::npos);
  EXPECT_NE(message([] { parse_late_start("0:-1ms"); }).find("not a duration"), std::string::npos);
  platform_spec late = platform_of(2);
  late.late_starts.push_back(parse_late_start("2:1ms"));
  EXPECT_NE(message([&] { simulate(late, run_of("fss", 10)); }).find("late start of worker 2: workers are 0 .. 1"),
            std::string::npos);
  platform_spec lossy = platform_of(2);
  lossy.losses.push_back(parse_loss("1:1ms"));
  run_spec over_rma = run_of("fss", 10);
  over_rma.via = transport::rma;
  EXPECT_NE(message([&] { simulate(lossy, over_rma); }).find("needs the master or hier transport"), std::string::npos);
  lossy.losses.push_back(parse_loss("0:1ms"));
  EXPECT_NE(message([&] { simulate(lossy, run_of("fss", 10)); }).find("every worker is lost"), std::string::npos);
  run_spec unsynchronized = run_of("fss", 10);
  unsynchronized.rows = 5;
  EXPECT_NE(message([&] { simulate(platform_of(2), unsynchronized); }).find("needs mechanism S: an s-* or sw-* technique, not 'fss'"),
            std::string::npos);
  run_spec negative_rows = run_of("s-fss", 10);
  negative_rows.rows = -1;
  EXPECT_NE(message([&] { simulate(platform_of(2), negative_rows); }).find("rows -1 must be in [0, 1e8]"), std::string::npos);
  for (const double share : {-0.1, 1.5, std::nan("")}) {
    platform_spec memory = platform_of(2);
    memory.memory_share = share;
    EXPECT_NE(message([&] { simulate(memory, run_of("fss", 10)); }).find("must be in [0, 1]"), std::string::npos) << share;
  }
  EXPECT_NE(message([] { parse_time_share("1"); }).find("expected WORKER:ON:OFF[:START]"), std::string::npos);
  EXPECT_NE(message([] { parse_time_share("1:4ms"); }).find("cannot read '4ms'"), std::string::npos);
  for (const auto& [text, named] : std::vector<std::pair<std::string, std::string>>{
           {"# nothing\n", "lists no slice"},
           {"0.001 0.002\n0.003\n", ":2: expected BEGIN END"},
           {"0.001 0.002 0.003\n", ":1: expected BEGIN END"},
           {"0.001 soon\n", "END 'soon' is not a duration"}}) {
    const std::string path = slices_file(text);
    EXPECT_NE(message([&] { parse_time_share("1:" + path); }).find(named), std::string::npos) << text;
  }
  for (const std::string& text : {"0.002 0.003\n0.0025 0.004\n", "0.002 0.002\n"}) {
    platform_spec recorded = platform_of(2);
    recorded.time_shares.push_back(parse_time_share("1:" + slices_file(text)));
    EXPECT_NE(message([&] { simulate(recorded, run_of("fss", 10)); }).find("must begin at or after"), std::string::npos)
        << text;
  }
  platform_spec sliced = platform_of(2);
  sliced.time_shares.push_back(parse_time_share("1:4ms:4ms:5ms"));
  EXPECT_NE(message([&] { simulate(sliced, run_of("fss", 10)); }).find("START must be in (-ON, OFF]"), std::string::npos);
  sliced.time_shares = {parse_time_share("1:4ms:4ms:-4ms")};
  EXPECT_NE(message([&] { simulate(sliced, run_of("fss", 10)); }).find("START must be in (-ON, OFF]"), std::string::npos);
  sliced.time_shares = {parse_time_share("1:4ms:4ms")};
  sliced.slowdowns.push_back(parse_slowdown("1:0.5:0:1"));
  EXPECT_NE(message([&] { simulate(sliced, run_of("fss", 10)); }).find("one time share and no slowdown"),
            std::string::npos);
  platform_spec no_nodes = platform_of(2);
  no_nodes.workers_per_node = 0;
  EXPECT_NE(message([&] { simulate(no_nodes, run_of("fss", 10)); }).find("workers per node 0 must be >= 1"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(parse_seconds("2us", "x"), 2e-6);
  EXPECT_DOUBLE_EQ(parse_seconds("1.5ms", "x"), 1.5e-3);
  EXPECT_DOUBLE_EQ(parse_seconds("0.25", "x"), 0.25);
}

}  // namespace
}  // namespace selfsched::sim

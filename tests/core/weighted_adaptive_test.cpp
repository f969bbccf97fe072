// The weighted techniques (wf, dtss, dfss, dgss) and the adaptive ones (awf,
// awf-b..e, af). Expected values are derived by hand in the comments from
// the papers' formulas, not taken from the code's output.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "selfsched/core.hpp"

namespace selfsched {
namespace {

technique_ptr make(std::string_view name, const loop_params& lp) {
  const technique_info* t = find_technique(name);
  if (t == nullptr) ADD_FAILURE() << "no technique " << name;
  return t ? t->make(lp) : nullptr;
}

loop_params loop(iter_t n, int p, std::vector<double> powers = {}) {
  loop_params lp;
  lp.n = n;
  lp.p = p;
  lp.powers = std::move(powers);
  return lp;
}

// The chunk sizes a sequential scheduler hands out, requests coming from
// the workers of `order` in turn (default 0, 1, ..., p-1), worker k's run
// queue being queue[k] (default 1).
std::vector<iter_t> drain(scheduler& s, int p, std::vector<int> order, const std::vector<double>& queue) {
  if (order.empty())
    for (int w = 0; w < p; ++w) order.push_back(w);
  std::vector<iter_t> out;
  for (std::size_t i = 0;; ++i) {
    const int w = order[i % order.size()];
    const chunk c = s.next(w, queue.empty() ? 1.0 : queue[static_cast<std::size_t>(w)]);
    if (c.size == 0) return out;
    out.push_back(c.size);
  }
}

// ... of the technique `name` alone,
std::vector<iter_t> sizes(std::string_view name, const loop_params& lp, std::vector<int> order = {},
                          const std::vector<double>& queue = {}) {
  scheduler s(make(name, lp), lp);
  return drain(s, lp.p, std::move(order), queue);
}

// ... and of a schedule with mechanisms ("w-tss,10").
std::vector<iter_t> schedule_sizes(std::string_view schedule, loop_params lp) {
  const auto parsed = parse_schedule(schedule);
  EXPECT_TRUE(parsed.error.empty()) << parsed.error;
  apply_chunk(parsed.spec, lp);
  scheduler s(parsed.spec, lp);
  return drain(s, lp.p, {}, {});
}

// What a fresh technique asks for at its first request.
iter_t first_size(std::string_view name, const loop_params& lp, int worker, double queue = 1.0) {
  const request r{lp.n, 0, worker, relative_power(lp, worker), queue};
  return make(name, lp)->next_size(r);
}

request ask(iter_t remaining, iter_t step, int worker) { return request{remaining, step, worker, 1.0, 1.0}; }

const std::vector<std::string_view> weighted_names = {"wf", "dtss", "dfss", "dgss"};

// ---------------------------------------------------------------------------
// Weighted techniques

// With all powers equal and every Q_k = 1, A_k = 1 and A = p: DTSS is TSS
// (seed 000 sec. 2: "when all slaves have the same speed ... the tasks
// assigned in DTSS are the same as in TSS"), DFSS is FSS and DGSS is GSS
// (seed 004 Alg. 2, 3 with V_j = 1, V = p), WF is FSS (all weights 1). The
// adaptive techniques with nothing measured start from equal weights: awf,
// awf-b and awf-d are then wf, i.e. fss.
TEST(WeightedAdaptive, EqualPowersGiveTheUnweightedTechnique) {
  const std::vector<std::pair<std::string_view, std::string_view>> pairs = {
      {"dtss", "tss"}, {"dfss", "fss"}, {"dgss", "gss"}, {"wf", "fss"},
      {"awf", "fss"},  {"awf-b", "fss"}, {"awf-d", "fss"}};
  for (const auto& [weighted, plain] : pairs) {
    for (const iter_t n : {1, 7, 1000, 2048, 123'457, 10'000'000}) {
      for (const int p : {1, 2, 5, 64}) {
        for (const iter_t min_chunk : {1, 3}) {
          for (const bool with_powers : {false, true}) {
            loop_params lp = loop(n, p);
            lp.min_chunk = min_chunk;
            if (with_powers) lp.powers.assign(static_cast<std::size_t>(p), 2.5);  // equal, not normalised
            EXPECT_EQ(sizes(weighted, lp), sizes(plain, lp))
                << weighted << " vs " << plain << " n=" << n << " p=" << p << " min=" << min_chunk;
          }
        }
      }
    }
  }
}

// n = 1000, p = 2, VP = {1, 0.5}, requests alternate 0, 1, 0, 1, ...
// A = 1.5; A_0 = 1, A_1 = 0.5.
TEST(WeightedAdaptive, DtssHandComputed) {
  // Seed 000 sec. 2 / seed 004 Alg. 1: F = floor(1000 / 3) = 333, L = 1,
  // N = ceil(2000 / 334) = 6, D = floor(332 / 5) = 66; the smallest unit is
  // 333 - floor(332 / 66) * 66 = 3. C = A_k * (F - D * (S + (A_k - 1) / 2)):
  //   P0, S = 0:   333 - 0                        = 333
  //   P1, S = 1:   0.5 * (333 - 66 * 0.75)  = 141.75 -> 141
  //   P0, S = 1.5: 333 - 66 * 1.5                 = 234
  //   P1, S = 2.5: 0.5 * (333 - 66 * 2.25)  =  92.25 -> 92
  //   P0, S = 3:   333 - 198                      = 135
  //   P1, S = 4:   0.5 * (333 - 66 * 3.75)  =  42.75 -> 42
  //   P0, S = 4.5: 333 - 297 = 36, but only 1000 - 977 = 23 are left.
  //
  // Seed 000 Table 2's W-TSS row applies this rule to TSS's trapezoid
  // (F = n / 2m), not DTSS's (n / 2A): seed_tables_test.cpp checks it.
  EXPECT_EQ(sizes("dtss", loop(1000, 2, {1, 0.5})), (std::vector<iter_t>{333, 141, 234, 92, 135, 42, 23}));
}

TEST(WeightedAdaptive, WeightedTrapezoidTakesUnitsAndLeavesNoTail) {
  // W over TSS takes A_k units of TSS's trapezoid (seed 000 Table 1: W-TSS is
  // DTSS's rule; tss.cpp). n = 11998, p = 2, VP = {1, 0.5}, L = 10:
  // F = floor(11998 / 4) = 2999, N = ceil(23996 / 3009) = 8,
  // D = floor(2989 / 7) = 427; C = A (F - D (S + (A - 1) / 2)):
  //   P0, S = 0:   2999                               P1, S = 1:   0.5 (2999 - 427 * 0.75) = 1339
  //   P0, S = 1.5: 2999 - 640.5 = 2358                P1, S = 2.5: 0.5 (2999 - 427 * 2.25) = 1019
  //   P0, S = 3:   1718                               P1, S = 4:   0.5 (2999 - 427 * 3.75) = 698
  //   P0, S = 4.5: 1077                               P1, S = 5.5: 0.5 (2999 - 427 * 5.25) = 378
  //   P0, S = 6:   437, but only 412 are left.
  // Scaling each TSS step by A instead (eq. 2 alone) handed out 7 chunks,
  // then 561 of L = 10: what W withheld, left for the end.
  EXPECT_EQ(schedule_sizes("w-tss,10", loop(11998, 2, {1, 0.5})),
            (std::vector<iter_t>{2999, 1339, 2358, 1019, 1718, 698, 1077, 378, 412}));
}

TEST(WeightedAdaptive, UpperThresholdBoundsTheChunkBeforeWeighting) {
  // w-gss, n = 1000, VP = {1, 0.5}, max chunk 100: the threshold bounds GSS's
  // chunk, then W halves it for P1 (seed 000 sec. 6 bounds the technique's
  // chunks). Bounded after W, both would get 100 while GSS asks for more.
  //   R = 1000 .. 250, five rounds: P0 min(ceil(R/2), 100) = 100, P1 50
  //   R = 250: P0 100    R = 150: P1 floor(75 / 2) = 37
  //   R = 113: P0 57     R = 56:  P1 14     R = 42: P0 21    R = 21: P1 5
  //   R = 16:  P0 8      R = 8:   P1 2      R = 6:  P0 3     R = 3:  P1 1
  //   R = 2:   P0 1      R = 1:   P1 1
  loop_params lp = loop(1000, 2, {1, 0.5});
  lp.max_chunk = 100;
  EXPECT_EQ(schedule_sizes("w-gss", lp), (std::vector<iter_t>{100, 50, 100, 50, 100, 50, 100, 50, 100, 50, 100,
                                                              37, 57, 14, 21, 5, 8, 2, 3, 1, 1, 1}));
}

TEST(WeightedAdaptive, DfssHandComputed) {
  // Seed 004 Alg. 2, alpha = 2: a stage's unit is ceil(R / 3); P0 gets the
  // unit, P1 half of it (rounded down); the stage ends once 1 + 0.5 = A of
  // power has been served.
  //   R = 1000: unit 334 -> 334, 167      R = 499: unit 167 -> 167, 83
  //   R = 249:  unit 83  -> 83, 41        R = 125: unit 42  -> 42, 21
  //   R = 62:   unit 21  -> 21, 10        R = 31:  unit 11  -> 11, 5
  //   R = 15:   unit 5   -> 5, 2          R = 8:   unit 3   -> 3, 1
  //   R = 4:    unit 2   -> 2, 1          R = 1:   unit 1   -> 1
  EXPECT_EQ(sizes("dfss", loop(1000, 2, {1, 0.5})),
            (std::vector<iter_t>{334, 167, 167, 83, 83, 41, 42, 21, 21, 10, 11, 5, 5, 2, 3, 1, 2, 1, 1}));
}

TEST(WeightedAdaptive, DgssHandComputed) {
  // Seed 004 Alg. 3: C = ceil(R / 1.5) * A_k, rounded down.
  //   P0 R=1000: ceil(666.7) = 667        P1 R=333: ceil(222) * 0.5 = 111
  //   P0 R=222:  ceil(148)   = 148        P1 R=74:  ceil(49.3) = 50 -> 25
  //   P0 R=49:   ceil(32.7)  = 33         P1 R=16:  ceil(10.7) = 11 -> 5
  //   P0 R=11:   ceil(7.3)   = 8          P1 R=3:   ceil(2) = 2 -> 1
  //   P0 R=2:    ceil(1.3)   = 2
  EXPECT_EQ(sizes("dgss", loop(1000, 2, {1, 0.5})), (std::vector<iter_t>{667, 111, 148, 25, 33, 5, 8, 1, 2}));
}

TEST(WeightedAdaptive, WfHandComputed) {
  // Hummel et al. 1996: weights normalised to sum p = 2 are 4/3 and 2/3;
  // batches of 2 chunks, base = ceil(R / 4), chunk = ceil(w * base).
  //   R = 1000: base 250 -> 334, 167      R = 499: base 125 -> 167, 84
  //   R = 248:  base 62  -> 83, 42        R = 123: base 31  -> 42, 21
  //   R = 60:   base 15  -> 20, 10        R = 30:  base 8   -> 11, 6
  //   R = 13:   base 4   -> 6, 3          R = 4:   base 1   -> 2, 1
  //   R = 1:    1
  EXPECT_EQ(sizes("wf", loop(1000, 2, {1, 0.5})),
            (std::vector<iter_t>{334, 167, 167, 84, 83, 42, 42, 21, 20, 10, 11, 6, 6, 3, 2, 1, 1}));
}

// 64 workers, powers alternating 1 and 0.5 (A = 48): the first chunk of a
// power-1 worker is about twice that of a power-0.5 worker. wf, dfss, dgss
// scale one common base by A_k, so the ratio is 2 up to rounding (the
// chunks are ~10^4). dtss centres a request on its share of the trapezoid,
// S + (A_k - 1) / 2: the half unit of a slow worker lies a quarter unit
// higher, so its chunk is 0.5 * (F + D/4) and the ratio is
// 2 / (1 + D / 4F) with D / F ~ 1 / (N - 1) ~ 1 / 4A: within 0.3% of 2.
TEST(WeightedAdaptive, FasterWorkerGetsTwiceTheChunk) {
  std::vector<double> powers;
  for (int k = 0; k < 64; ++k) powers.push_back(k % 2 ? 0.5 : 1.0);
  const loop_params lp = loop(1'000'000, 64, powers);
  for (const auto name : weighted_names) {
    const double fast = static_cast<double>(first_size(name, lp, 0));
    const double slow = static_cast<double>(first_size(name, lp, 1));
    EXPECT_NEAR(fast / slow, 2.0, 0.01) << name << ": " << fast << " vs " << slow;
  }
}

// Q_k = 2 halves a worker's available power A_k = VP_k / Q_k (seed 000
// sec. 2), so its chunk halves; same tolerance as above.
TEST(WeightedAdaptive, RunQueueOfTwoHalvesTheShare) {
  const loop_params lp = loop(1'000'000, 64);
  for (const auto name : weighted_names) {
    const double alone = static_cast<double>(first_size(name, lp, 3, 1.0));
    const double shared = static_cast<double>(first_size(name, lp, 3, 2.0));
    EXPECT_NEAR(alone / shared, 2.0, 0.01) << name << ": " << alone << " vs " << shared;
  }
  // And in a whole loop: with worker 1 loaded, dgss gives it half of what
  // it gives unloaded: R = 1000, p = 2 (A = 2): P0 ceil(1000/2) = 500,
  // P1 ceil(500/2) * 0.5 = 125, P0 ceil(375/2) = 188, P1 ceil(187/2) * 0.5 = 47.
  const std::vector<iter_t> loaded = sizes("dgss", loop(1000, 2), {}, {1, 2});
  ASSERT_GE(loaded.size(), 4u);
  EXPECT_EQ(std::vector<iter_t>(loaded.begin(), loaded.begin() + 4), (std::vector<iter_t>{500, 125, 188, 47}));
}

// ---------------------------------------------------------------------------
// Adaptive techniques

const std::vector<std::string_view> learning_names = {"awf-b", "awf-c", "awf-d", "awf-e", "af"};

// Worker 1 twice as slow (2 us against 1 us per iteration), each chunk time
// off by a seeded random factor in [0.8, 1.2]; 50 chunks each of 1000
// iterations. Asked with the same R, worker 0 must get about twice as much.
// The learned rates are averages of 50 factors of standard deviation
// 0.4 / sqrt(12) = 0.115: about 2% each (awf's chunk-index weighting leaves
// ~37 effective samples), so the ratio of two is within ~3% (1 sigma);
// 10% is over 3 sigma.
TEST(WeightedAdaptive, LearnedChunksFollowMeasuredSpeed) {
  for (const auto name : learning_names) {
    const loop_params lp = loop(1'000'000'000, 2);
    const technique_ptr t = make(name, lp);
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> jitter(0.8, 1.2);
    for (int c = 0; c < 50; ++c) {
      t->record(0, 1000, 1000 * 1e-6 * jitter(rng));
      t->record(1, 1000, 1000 * 2e-6 * jitter(rng));
    }
    // Steps 0 and 1 share a batch (and its base) in awf-b and awf-d.
    const double fast = static_cast<double>(t->next_size(ask(1'000'000, 0, 0)));
    const double slow = static_cast<double>(t->next_size(ask(1'000'000, 1, 1)));
    EXPECT_NEAR(fast / slow, 2.0, 0.2) << name << ": " << fast << " vs " << slow;
  }
}

// The same through the scheduler with a simulated clock, as
// `selfsched-chunks --times 1,2` runs it: once both workers have measured
// chunks, every chunk of the slow worker is smaller than the fast worker's
// chunk just before it, although R only shrank in between.
TEST(WeightedAdaptive, SlowerWorkerGetsSmallerChunksInARun) {
  for (const auto name : learning_names) {
    const loop_params lp = loop(100'000, 2);
    scheduler s(make(name, lp), lp);
    double idle[2] = {0, 0};
    const double per_iteration[2] = {1e-6, 2e-6};
    int chunks_seen[2] = {0, 0};
    iter_t last_fast = 0;
    int compared = 0;
    while (true) {
      const int w = idle[1] < idle[0] ? 1 : 0;
      const chunk c = s.next(w);
      if (c.size == 0) break;
      const double seconds = static_cast<double>(c.size) * per_iteration[w];
      s.record(w, c.size, seconds);
      idle[w] += seconds;
      ++chunks_seen[w];
      if (w == 0) last_fast = c.size;
      // Compare while chunks are large enough for rounding not to decide.
      if (w == 1 && chunks_seen[0] > 2 && chunks_seen[1] > 2 && last_fast >= 20) {
        EXPECT_LT(c.size, last_fast) << name << " at " << c.start;
        ++compared;
      }
    }
    EXPECT_GT(compared, 2) << name;
  }
}

// awf-c's rate is the chunk-index weighted average of Carino & Banicescu:
// pi = sum_c c*t_c / sum_c c*n_c. Worker 0: (100 it, 100 s) -> pi = 1.
// Worker 1: (100 it, 100 s), then (100 it, 400 s): pi = (100 + 2*400) /
// (100 + 2*100) = 3 (the plain average would be 2.5). Speeds 1 and 1/3, sum
// 4/3, weights 2 * 1 / (4/3) = 1.5 and 2 * (1/3) / (4/3) = 0.5. With
// R = 4000, p = 2: base = ceil(4000 / 4) = 1000, chunks 1500 and 500.
TEST(WeightedAdaptive, AwfcWeightsByChunkIndex) {
  const technique_ptr t = make("awf-c", loop(4000, 2));
  t->record(0, 100, 100.0);
  t->record(1, 100, 100.0);
  t->record(1, 100, 400.0);
  t->record(1, 100, 0.0);  // a timer that read 0: ignored
  EXPECT_EQ(t->next_size(ask(4000, 0, 0)), 1500);
  EXPECT_EQ(t->next_size(ask(4000, 1, 1)), 500);
}

// awf-b (and awf-d) learn once per batch, awf-c (and awf-e) at every chunk.
// p = 2, R = 4000. Batch 1 (steps 0, 1): nothing measured, base 1000, both
// get 1000. Then worker 0 measures pi = 1, worker 1 pi = 2 (speeds 1, 0.5).
// Batch 2 starts at step 2, R = 2000, base 500: awf-b's weights are
// 2 * 1 / 1.5 = 4/3 -> ceil(666.7) = 667. Worker 0 then measures a slow
// chunk (100 it, 250 s): its pi becomes (100 + 2*250) / (100 + 2*100) = 2.
// At step 3 (same batch) awf-b still uses the weights of the batch start:
// 667 again; awf-c uses the new speeds 1/2 and 1/2: weight 1, base
// ceil(2000 / 4) = 500 -> 500. At step 4 (batch 3, R = 2000 again for the
// test, base 500) awf-b takes the new speeds in too: 500.
TEST(WeightedAdaptive, AwfbLearnsPerBatchAwfcPerChunk) {
  for (const auto name : {"awf-b", "awf-c", "awf-d", "awf-e"}) {
    const bool per_batch = std::string_view(name) == "awf-b" || std::string_view(name) == "awf-d";
    const technique_ptr t = make(name, loop(4000, 2));
    EXPECT_EQ(t->next_size(ask(4000, 0, 0)), 1000) << name;
    if (per_batch) EXPECT_EQ(t->next_size(ask(3000, 1, 1)), 1000) << name;  // base of the batch
    t->record(0, 100, 100.0);
    t->record(1, 100, 200.0);
    EXPECT_EQ(t->next_size(ask(2000, 2, 0)), 667) << name;
    t->record(0, 100, 250.0);
    EXPECT_EQ(t->next_size(ask(2000, 3, 0)), per_batch ? 667 : 500) << name;
    EXPECT_EQ(t->next_size(ask(2000, 4, 0)), 500) << name;
  }
}

// awf-d / awf-e add the scheduling overhead h to every chunk time. Both
// workers run at 1 us per iteration, worker 0 in chunks of 1000, worker 1
// in chunks of 10. h = 100 (in units of the mean iteration time, mu = 1)
// is 100 us per chunk: worker 0's rate is (1000 + 100) / 1000 = 1.1 us per
// iteration, worker 1's (10 + 100) / 10 = 11 us: weights 2 * (1/1.1) /
// (1/1.1 + 1/11) = 20/11 and 2/11. With R = 11000: base 2750, chunks
// ceil(2750 * 20/11) = 5000 and 500. awf-b / awf-c ignore h: equal weights.
TEST(WeightedAdaptive, AwfdeIncludeTheOverhead) {
  for (const auto name : {"awf-b", "awf-c", "awf-d", "awf-e"}) {
    const bool with_overhead = std::string_view(name) == "awf-d" || std::string_view(name) == "awf-e";
    loop_params lp = loop(11'000, 2);
    lp.overhead = 100;
    const technique_ptr t = make(name, lp);
    for (int c = 0; c < 3; ++c) {
      t->record(0, 1000, 1000e-6);
      t->record(1, 10, 10e-6);
    }
    const iter_t fast = t->next_size(ask(11'000, 0, 0));
    const iter_t slow = t->next_size(ask(11'000, 1, 1));
    // The floating-point weights may land a hair above the exact value.
    EXPECT_NEAR(static_cast<double>(fast), with_overhead ? 5000 : 2750, 1) << name;
    EXPECT_NEAR(static_cast<double>(slow), with_overhead ? 500 : 2750, 1) << name;
  }
}

// AF (Banicescu & Liu 2000), p = 2. Worker 0: chunks (100 it, 100 s) twice:
// mu = 1, sigma = 0. Worker 1: (100 it, 300 s) and (100 it, 100 s):
// mu = 400 / 200 = 2; chunk means 3 and 1, sigma^2 = (100 * 1 + 100 * 1) /
// (2 - 1) = 200. D = 0 / 1 + 200 / 2 = 100, E = 1 / (1 + 1/2) = 2/3. With
// R = 300, E R = 200, sqrt(D^2 + 4 D E R) = sqrt(10000 + 80000) = 300:
//   worker 0: (100 + 400 - 300) / (2 * 1) = 100
//   worker 1: (100 + 400 - 300) / (2 * 2) = 50.
// Before a worker has two chunks, AF falls back to ceil(R / 2p) (weights 1).
TEST(WeightedAdaptive, AfHandComputed) {
  const technique_ptr t = make("af", loop(100'000, 2));
  EXPECT_EQ(t->next_size(ask(300, 0, 0)), 75);  // ceil(300 / 4)
  t->record(0, 100, 100.0);
  t->record(0, 100, 100.0);
  t->record(1, 100, 300.0);
  EXPECT_EQ(t->next_size(ask(300, 1, 1)), 75);  // one chunk: no estimate yet
  t->record(1, 100, 100.0);
  // Computed in floating point, then rounded up: allow the exact value + 1.
  EXPECT_NEAR(static_cast<double>(t->next_size(ask(300, 2, 0))), 100, 1);
  EXPECT_NEAR(static_cast<double>(t->next_size(ask(300, 3, 1))), 50, 1);
}

// ---------------------------------------------------------------------------
// History across loop instances

// AWF's time-step weighting (Banicescu et al. 2003): pi_k = sum_j j*T_kj /
// sum_j j*N_kj over instances j. Instance 1: worker 0 runs 1000 it in
// 1000 s, worker 1 in 2000 s. Instance 2: both in 1000 s. Then
// pi_0 = (1000 + 2*1000) / (1000 + 2*1000) = 1,
// pi_1 = (2000 + 2*1000) / (1000 + 2*1000) = 4/3: speeds 1 and 3/4, weights
// 2 / 1.75 = 8/7 and 1.5 / 1.75 = 6/7. Instance 3 with n = 7000, p = 2:
// base ceil(7000 / 4) = 1750, chunks 1750 * 8/7 = 2000 and 1750 * 6/7 = 1500.
TEST(WeightedAdaptive, AwfLearnsAcrossInstancesWithTimeStepWeights) {
  adaptive_history history;
  loop_params lp = loop(7000, 2);
  lp.history = &history;
  {
    const technique_ptr first = make("awf", lp);
    EXPECT_EQ(first->next_size(ask(7000, 0, 0)), 1750);  // nothing learned yet
    EXPECT_EQ(first->next_size(ask(7000, 1, 1)), 1750);
    first->record(0, 1000, 1000.0);
    first->record(1, 1000, 2000.0);
    // Within an instance awf's weights do not move.
    EXPECT_EQ(first->next_size(ask(7000, 2, 1)), 1750);
  }
  {
    const technique_ptr second = make("awf", lp);
    second->record(0, 1000, 1000.0);
    second->record(1, 1000, 1000.0);
  }
  const technique_ptr third = make("awf", lp);
  EXPECT_EQ(history.instances, 3);
  EXPECT_NEAR(static_cast<double>(third->next_size(ask(7000, 0, 0))), 2000, 1);
  EXPECT_NEAR(static_cast<double>(third->next_size(ask(7000, 1, 1))), 1500, 1);
}

// Every adaptive technique starts its second instance from what the first
// learned: with worker 1 twice as slow in instance 1, instance 2's first
// chunks already favour worker 0 (about 2:1), where instance 1 started
// equal. Without a history, nothing carries over.
TEST(WeightedAdaptive, HistoryChangesTheNextInstancesFirstChunks) {
  for (const auto name : {"awf", "awf-b", "awf-c", "awf-d", "awf-e", "af"}) {
    adaptive_history history;
    loop_params lp = loop(1'000'000, 2);
    lp.history = &history;
    const auto first_two = [&](technique& t) {
      return std::pair{t.next_size(ask(1'000'000, 0, 0)), t.next_size(ask(1'000'000, 1, 1))};
    };
    const technique_ptr first = make(name, lp);
    const auto [a0, a1] = first_two(*first);
    EXPECT_EQ(a0, a1) << name;
    for (int c = 0; c < 3; ++c) {
      first->record(0, 1000, 1e-3);
      first->record(1, 1000, 2e-3);
    }
    const technique_ptr second = make(name, lp);
    const auto [b0, b1] = first_two(*second);
    EXPECT_NEAR(static_cast<double>(b0) / static_cast<double>(b1), 2.0, 0.01) << name << ": " << b0 << " vs " << b1;

    loop_params forgetful = lp;
    forgetful.history = nullptr;
    const technique_ptr fresh = make(name, forgetful);
    const auto [c0, c1] = first_two(*fresh);
    EXPECT_EQ(c0, c1) << name;
  }
}

// A history kept for another team size starts afresh.
TEST(WeightedAdaptive, HistoryForAnotherWorkerCountStartsAfresh) {
  adaptive_history history;
  loop_params lp = loop(1000, 2);
  lp.history = &history;
  {
    const technique_ptr t = make("awf", lp);
    t->record(1, 100, 1.0);
  }
  EXPECT_EQ(history.instances, 1);
  EXPECT_GT(history.workers[1].weighted_iterations, 0);
  lp.p = 3;
  const technique_ptr t = make("awf", lp);
  EXPECT_EQ(history.instances, 1);
  ASSERT_EQ(history.workers.size(), 3u);
  EXPECT_EQ(history.workers[1].weighted_iterations, 0);
}

// Initial weights come from the powers when there is no history: awf with
// powers is wf.
TEST(WeightedAdaptive, AdaptiveStartsFromThePowers) {
  const loop_params lp = loop(1000, 2, {1, 0.5});
  for (const auto name : {"awf", "awf-b", "awf-d"}) EXPECT_EQ(sizes(name, lp), sizes("wf", lp)) << name;
}

}  // namespace
}  // namespace selfsched

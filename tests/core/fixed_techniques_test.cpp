// fac, tfss, fiss, viss, mfsc, fsc, tap, rnd, pls (fixed) and bold
// (adaptive): short sequences worked out by hand from each paper's formula,
// the shape each technique promises, and its response to its parameters.
// Tiling, plans and huge loops for the whole catalog are in
// catalog_property_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "selfsched/core.hpp"

namespace selfsched {
namespace {

using sizes_t = std::vector<iter_t>;

// Iterations of equal cost (sigma = 0) unless a test says otherwise: the
// hand-computed sequences below start from the no-variance case.
loop_params loop(iter_t n, int p) {
  loop_params lp;
  lp.n = n;
  lp.p = p;
  lp.sigma = 0;
  return lp;
}

// The chunk sizes `name` hands out, workers asking in turn 0, 1, ..., p-1.
// With `seconds_per_iter` (one per worker), each worker reports its previous
// chunk through record() before asking again, as a binding does.
sizes_t sizes(const std::string& name, const loop_params& lp, const std::vector<double>& seconds_per_iter = {}) {
  const parse_result parsed = parse_schedule(name);
  EXPECT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(validate(lp), "");
  scheduler s(parsed.spec, lp);
  std::vector<iter_t> outstanding(static_cast<std::size_t>(lp.p), 0);
  sizes_t out;
  for (iter_t step = 0;; ++step) {
    const int worker = static_cast<int>(step % lp.p);
    iter_t& previous = outstanding[static_cast<std::size_t>(worker)];
    if (!seconds_per_iter.empty() && previous > 0)
      s.record(worker, previous, static_cast<double>(previous) * seconds_per_iter[static_cast<std::size_t>(worker)]);
    const chunk c = s.next(worker);
    if (c.size == 0) break;
    previous = c.size;
    out.push_back(c.size);
  }
  EXPECT_EQ(std::accumulate(out.begin(), out.end(), iter_t{0}), lp.n) << name;
  return out;
}

sizes_t prefix(const sizes_t& v, std::size_t count) { return {v.begin(), v.begin() + std::min(count, v.size())}; }
sizes_t repeated(iter_t size, int times) { return sizes_t(static_cast<std::size_t>(times), size); }
sizes_t concat(std::initializer_list<sizes_t> parts) {
  sizes_t out;
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

// Chunks come in batches of p equal chunks (the loop's last chunk may be cut).
void expect_batches_of_p(const sizes_t& v, int p, const std::string& what) {
  for (std::size_t i = 0; i + 2 < v.size(); ++i)
    if ((i + 1) % static_cast<std::size_t>(p) != 0) {
      EXPECT_EQ(v[i], v[i + 1]) << what << " at chunk " << i;
    }
}
void expect_non_increasing(const sizes_t& v, const std::string& what) {
  for (std::size_t i = 0; i + 1 < v.size(); ++i) EXPECT_GE(v[i], v[i + 1]) << what << " at chunk " << i;
}
// All but the last chunk, which takes what is left.
void expect_non_decreasing_but_last(const sizes_t& v, const std::string& what) {
  for (std::size_t i = 0; i + 2 < v.size(); ++i) EXPECT_LE(v[i], v[i + 1]) << what << " at chunk " << i;
}

// ---------------------------------------------------------------------------
// fac: Hummel, Schonberg & Flynn 1992, b_j = p sigma / (2 mu sqrt(R_j)),
// x_0 = 1 + b^2 + b sqrt(b^2 + 2), x_j = 2 + b^2 + b sqrt(b^2 + 4), F_j = ceil(R_j / (x_j p)).

TEST(Fac, HandCheckedBatches) {
  loop_params lp = loop(1000, 4);
  lp.sigma = 5;  // mu = 1
  // j = 0: b = 20 / (2 sqrt(1000)) = 0.316228, x = 1.1 + 0.316228 * 1.449138 = 1.558258,
  //        F = ceil(1000 / 6.233032) = ceil(160.44) = 161; R_1 = 1000 - 644 = 356.
  // j = 1: b = 20 / (2 sqrt(356)) = 0.529999, x = 2.280899 + 0.529999 * 2.068789 = 3.377484,
  //        F = ceil(356 / 13.509936) = ceil(26.35) = 27; R_2 = 356 - 108 = 248.
  // j = 2: b = 20 / (2 sqrt(248)) = 0.635001, x = 2.403226 + 0.635001 * 2.098386 = 3.735703,
  //        F = ceil(248 / 14.942812) = ceil(16.60) = 17; R_3 = 180.
  // j = 3: b = 0.745356, x = 4.146425, F = ceil(180 / 16.5857) = ceil(10.85) = 11.
  EXPECT_EQ(prefix(sizes("fac", lp), 16), concat({repeated(161, 4), repeated(27, 4), repeated(17, 4), repeated(11, 4)}));
}

TEST(Fac, SigmaZeroIsAStaticSplit) {
  // b = 0: x_0 = 1, so the first batch is ceil(R/p) each and covers the loop.
  EXPECT_EQ(sizes("fac", loop(1000, 4)), repeated(250, 4));
  EXPECT_EQ(sizes("fac", loop(1003, 4)), (sizes_t{251, 251, 251, 250}));
}

TEST(Fac, LargerSigmaGivesSmallerFirstChunksAndMoreOfThem) {
  iter_t previous_first = 0;
  std::size_t previous_count = 0;
  for (const double sigma : {0.0, 0.5, 2.0, 8.0, 32.0}) {
    loop_params lp = loop(100'000, 8);
    lp.sigma = sigma;
    const sizes_t v = sizes("fac", lp);
    if (previous_count > 0) {
      EXPECT_LT(v.front(), previous_first) << "sigma " << sigma;
      EXPECT_GE(v.size(), previous_count) << "sigma " << sigma;
    }
    previous_first = v.front();
    previous_count = v.size();
  }
  EXPECT_GT(previous_count, 8u);
}

TEST(Fac, BatchesOfPThatOnlyShrink) {
  loop_params lp = loop(1'000'000, 7);
  lp.mu = 2;
  lp.sigma = 3;
  const sizes_t v = sizes("fac", lp);
  expect_batches_of_p(v, 7, "fac");
  expect_non_increasing(v, "fac");
  // mu and sigma enter only as sigma / mu.
  loop_params same_ratio = lp;
  same_ratio.mu = 4;
  same_ratio.sigma = 6;
  EXPECT_EQ(sizes("fac", same_ratio), v);
}

// ---------------------------------------------------------------------------
// tfss: Chronopoulos et al. 2001, batch j = ceil(mean of TSS chunks jp .. jp+p-1).

TEST(Tss, AMaximumChunkIsTheTrapezoidsFirstChunk) {
  // n = 1000, p = 2, max chunk 100: F = min(250, 100) = 100, L = 1,
  // N = ceil(2000 / 101) = 20, D = floor(99 / 19) = 5: 100, 95, ..., and the
  // 16th chunk, 25, takes the 25 left. Capping a trapezoid planned from
  // F = 250 instead (250, 215, ... -> 100 x 5, 75, 40, 5) would leave 480
  // iterations to 96 chunks of 5.
  loop_params lp = loop(1000, 2);
  lp.max_chunk = 100;
  sizes_t expected;
  for (iter_t c = 100; c >= 25; c -= 5) expected.push_back(c);
  EXPECT_EQ(sizes("tss", lp), expected);
}

TEST(Tfss, HandCheckedBatches) {
  // TSS for N = 1000, p = 4: F = 125, L = 1, N = ceil(2000/126) = 16, D = floor(124/15) = 8:
  // 125 117 109 101 | 93 85 77 69 | 61 53 45 37 | 29 21 13 5 | 5 ...
  // means 113, 81, 49, 17; after 3 batches 972 are out, 28 left: 17 and 11.
  EXPECT_EQ(sizes("tfss", loop(1000, 4)),
            concat({repeated(113, 4), repeated(81, 4), repeated(49, 4), sizes_t{17, 11}}));
}

TEST(Tfss, RoundsTheMeanUp) {
  // p = 2: F = 250, N = ceil(2000/251) = 8, D = floor(249/7) = 35:
  // 250 215 | 180 145 | 110 75 | 40 5 -> means 232.5, 162.5, 92.5, 22.5 -> 233, 163, 93;
  // 978 are out after three batches, and the last chunk takes the 22 left.
  EXPECT_EQ(sizes("tfss", loop(1000, 2)), (sizes_t{233, 233, 163, 163, 93, 93, 22}));
}

TEST(Tfss, BatchesOfPThatOnlyShrink) {
  for (const int p : {1, 3, 8}) {
    loop_params lp = loop(123'457, p);
    lp.min_chunk = 3;
    const sizes_t v = sizes("tfss", lp);
    expect_batches_of_p(v, p, "tfss p=" + std::to_string(p));
    expect_non_increasing(v, "tfss p=" + std::to_string(p));
    // No more batches than TSS has chunks.
    EXPECT_LE((v.size() + p - 1) / p, sizes("tss", lp).size()) << p;
  }
}

// ---------------------------------------------------------------------------
// fiss: Philip & Das 1997, B = max(2, ceil(log2(n/p))) stages, X = B + 2,
// K_i = K_0 + i A = floor(n (B(B-1) + 4i) / (X p B (B-1))).

TEST(Fiss, HandCheckedStages) {
  // p = 4: B = ceil(log2 250) = 8, X = 10, K_0 = 1000/40 = 25,
  // A = 2000 (1 - 8/10) / (4*8*7) = 1.7857: 25, 26.79, 28.57, 30.36, 32.14, 33.93, 35.71, 37.5;
  // 4 * 246 = 984 in eight stages, the 16 left at the end.
  EXPECT_EQ(sizes("fiss", loop(1000, 4)),
            concat({repeated(25, 4), repeated(26, 4), repeated(28, 4), repeated(30, 4), repeated(32, 4),
                    repeated(33, 4), repeated(35, 4), repeated(37, 4), sizes_t{16}}));
  // p = 2: B = ceil(log2 50) = 6, X = 8, K_0 = 6.25, A = 200 (1 - 6/8) / (2*6*5) = 0.833:
  // 6.25, 7.08, 7.92, 8.75, 9.58, 10.42; 94 in six stages, 6 left. (Flooring K_0 and
  // A separately would give A = 0 and no increase at all.)
  EXPECT_EQ(sizes("fiss", loop(100, 2)), (sizes_t{6, 6, 7, 7, 7, 7, 8, 8, 9, 9, 10, 10, 6}));
}

TEST(Fiss, StagesGrowAndBStagesNearlyCoverTheLoop) {
  for (const int p : {1, 5, 16, 64}) {
    const iter_t n = 1'000'003;
    const sizes_t v = sizes("fiss", loop(n, p));
    expect_batches_of_p(v, p, "fiss");
    expect_non_decreasing_but_last(v, "fiss");
    EXPECT_GT(v[v.size() - 2], v.front()) << p;  // it does increase
    // The floors lose less than one iteration per chunk of the B stages.
    const auto stages = static_cast<std::size_t>(std::ceil(std::log2(static_cast<double>(n) / p)));
    const iter_t covered = std::accumulate(v.begin(), v.begin() + std::min(v.size(), stages * p), iter_t{0});
    EXPECT_GT(covered, n - static_cast<iter_t>(stages * p)) << p;
    EXPECT_LE(covered, n) << p;
  }
}

// fiss and viss only grow: once a chunk reaches the maximum chunk, the rest
// of the loop is one run, however long.
TEST(Fiss, AMaximumChunkEndsTheGrowth) {
  for (const char* name : {"fiss", "viss"}) {
    loop_params lp = loop(1'000'000'000'000, 3);
    lp.max_chunk = 1000;  // K_0 is far above it
    const technique_ptr t = make_schedule(parse_schedule(name).spec, lp);
    const std::optional<chunk_plan> plan = chunk_plan::build(*t, lp);
    ASSERT_TRUE(plan.has_value()) << name;
    EXPECT_EQ(plan->segment_count(), 2u) << name;  // one run and the end marker
    EXPECT_EQ(plan->chunk_count(), 1'000'000'000) << name;
  }
}

// ---------------------------------------------------------------------------
// viss: Philip & Das 1997, X = p, K_0 = ceil(n / p^2), K_i = ceil(K_0 (2 - 2^-i)).

TEST(Viss, HandCheckedStages) {
  // K_0 = ceil(1000/16) = 63; K_1 = ceil(94.5) = 95; K_2 = ceil(110.25) = 111.
  // 252 + 380 = 632 after two stages; three 111s reach 965, and 35 are left.
  EXPECT_EQ(sizes("viss", loop(1000, 4)), concat({repeated(63, 4), repeated(95, 4), repeated(111, 3), sizes_t{35}}));
}

TEST(Viss, IncrementsHalveUpToTwiceTheFirstChunk) {
  // p = 64, n = 32768: K_0 = 8, then ceil(12), ceil(14), ceil(15), ceil(15.5) = 16, and 16 for good.
  const sizes_t v = sizes("viss", loop(32768, 64));
  expect_batches_of_p(v, 64, "viss");
  sizes_t stage_sizes;
  for (std::size_t i = 0; i < v.size(); i += 64) stage_sizes.push_back(v[i]);
  ASSERT_GE(stage_sizes.size(), 7u);
  EXPECT_EQ(prefix(stage_sizes, 7), (sizes_t{8, 12, 14, 15, 16, 16, 16}));
  expect_non_decreasing_but_last(v, "viss");
  EXPECT_LE(*std::max_element(v.begin(), v.end()), 16);
}

// ---------------------------------------------------------------------------
// mfsc: T = ceil(n/p), K = floor(0.55 + T ln 2 / ln T).

TEST(Mfsc, HandCheckedChunk) {
  // T = 250: 250 * 0.693147 / 5.521461 = 31.384, + 0.55 -> 31; 32 chunks of 31 = 992, then 8.
  EXPECT_EQ(sizes("mfsc", loop(1000, 4)), concat({repeated(31, 32), sizes_t{8}}));
  // T = 3: 3 * 0.693147 / 1.098612 = 1.893, + 0.55 -> 2.
  EXPECT_EQ(sizes("mfsc", loop(7, 3)), (sizes_t{2, 2, 2, 1}));
  EXPECT_EQ(sizes("mfsc", loop(1, 3)), (sizes_t{1}));
}

TEST(Mfsc, AboutAsManyChunksAsFactoring) {
  // T / K = log2 T chunks per worker, as fac2's batches halve R each time.
  for (const int p : {2, 8, 64}) {
    const loop_params lp = loop(10'000'000, p);
    const double ratio = static_cast<double>(sizes("mfsc", lp).size()) / static_cast<double>(sizes("fss", lp).size());
    EXPECT_GT(ratio, 0.7) << p;
    EXPECT_LT(ratio, 1.4) << p;
  }
}

// ---------------------------------------------------------------------------
// fsc: Kruskal & Weiss 1985, K = ceil((sqrt(2) n h / (sigma p sqrt(ln p)))^(2/3)), at most ceil(n/p).

TEST(Fsc, HandCheckedChunk) {
  loop_params lp = loop(1000, 4);
  lp.sigma = 1;
  lp.overhead = 1;
  // sqrt(2) * 1000 / (4 * sqrt(ln 4)) = 1414.214 / 4.709640 = 300.28; ^(2/3) = 44.84 -> 45.
  EXPECT_EQ(sizes("fsc", lp), concat({repeated(45, 22), sizes_t{10}}));
  // n x 8 multiplies K by 8^(2/3) = 4: 179.37 -> 180.
  lp.n = 8000;
  EXPECT_EQ(sizes("fsc", lp).front(), 180);
}

TEST(Fsc, ParametersAndDefaults) {
  const auto first = [](double mu, double sigma, double overhead, int p = 4) {
    loop_params lp = loop(1'000'000, p);
    lp.mu = mu;
    lp.sigma = sigma;
    lp.overhead = overhead;
    return sizes("fsc", lp).front();
  };
  EXPECT_LT(first(1, 1, 1), first(1, 1, 10));   // dearer chunks: larger ones
  EXPECT_GT(first(1, 1, 1), first(1, 4, 1));    // more variance: smaller ones
  EXPECT_EQ(first(1, 1, 0), first(1, 1, 1));    // overhead not given: one mean iteration
  EXPECT_EQ(first(3, 1, 0), first(3, 1, 1));
  EXPECT_LT(first(1, 1, 1), first(3, 1, 1));    // h = overhead * mu
  EXPECT_EQ(first(1, 0, 1), 250'000);           // no variance: a static split
  EXPECT_EQ(first(1, 0, 0), 250'000);           // the defaults
  EXPECT_EQ(first(1, 1, 1, 1), 1'000'000);      // one worker: one chunk
}

// ---------------------------------------------------------------------------
// tap: Lucco 1992, v = sigma / mu, K = ceil(T + v^2/2 - v sqrt(2T + v^2/4)), T = R/p.

TEST(Tap, HandCheckedChunks) {
  loop_params lp = loop(1000, 4);
  lp.sigma = 1;
  // T = 250:    250.5 - sqrt(500.25) = 250.5 - 22.366 = 228.13 -> 229; R = 771.
  // T = 192.75: 193.25 - sqrt(385.75) = 193.25 - 19.641 = 173.61 -> 174; R = 597.
  // T = 149.25: 149.75 - sqrt(298.75) = 149.75 - 17.284 = 132.47 -> 133.
  EXPECT_EQ(prefix(sizes("tap", lp), 3), (sizes_t{229, 174, 133}));
}

TEST(Tap, SigmaZeroIsGssAndMoreSigmaTapersMore) {
  const loop_params lp = loop(100'000, 6);
  EXPECT_EQ(sizes("tap", lp), sizes("gss", lp));
  iter_t previous_first = lp.n;
  for (const double sigma : {0.5, 2.0, 8.0}) {
    loop_params tapered = lp;
    tapered.sigma = sigma;
    const sizes_t v = sizes("tap", tapered);
    expect_non_increasing(v, "tap");
    EXPECT_LT(v.front(), previous_first) << sigma;
    previous_first = v.front();
  }
}

// ---------------------------------------------------------------------------
// rnd: chunk i = lower + floor(splitmix64_i(seed) * span / 2^64).

TEST(Rnd, HandCheckedDraws) {
  loop_params lp = loop(1000, 4);  // lower 1, upper ceil(1000/8) = 125: span 125
  lp.seed = 0;
  // SplitMix64 from seed 0 starts 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4 (its
  // published test vector): 0.88331 * 125 = 110.4 -> 111; 0.43153 * 125 = 53.9 -> 54.
  EXPECT_EQ(prefix(sizes("rnd", lp), 2), (sizes_t{111, 54}));
}

TEST(Rnd, SameParametersSameSequenceAndThePlanAgrees) {
  loop_params lp = loop(1'000'000, 5);
  lp.seed = 42;
  const sizes_t v = sizes("rnd", lp);
  EXPECT_EQ(sizes("rnd", lp), v);
  const technique_ptr t = make_schedule(parse_schedule("rnd").spec, lp);
  const std::optional<chunk_plan> plan = chunk_plan::build(*t, lp);
  ASSERT_TRUE(plan.has_value());
  ASSERT_EQ(plan->chunk_count(), static_cast<iter_t>(v.size()));
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(plan->at(static_cast<iter_t>(i)).size, v[i]) << i;

  loop_params other = lp;
  other.seed = 43;
  EXPECT_NE(sizes("rnd", other), v);
}

TEST(Rnd, DrawsStayWithinTheBounds) {
  loop_params lp = loop(1'000'000, 4);
  lp.min_chunk = 100;
  const sizes_t v = sizes("rnd", lp);  // upper ceil(10^6 / 8) = 125000
  for (std::size_t i = 0; i + 1 < v.size(); ++i) {
    EXPECT_GE(v[i], 100);
    EXPECT_LE(v[i], 125'000);
  }
  EXPECT_GT(*std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end() - 1), 10'000);
  lp.max_chunk = 200;  // a maximum chunk is the upper bound
  const sizes_t capped = sizes("rnd", lp);
  for (std::size_t i = 0; i + 1 < capped.size(); ++i) {
    EXPECT_GE(capped[i], 100);
    EXPECT_LE(capped[i], 200);
  }
}

// ---------------------------------------------------------------------------
// pls: p chunks of ceil(SWR n / p), SWR = 0.5, then gss.

TEST(Pls, HandCheckedStaticPartThenGss) {
  // ceil(0.5 * 1000 / 4) = 125 x4; then GSS of 500: 125, ceil(375/4) = 94,
  // ceil(281/4) = 71, ceil(210/4) = 53, ceil(157/4) = 40.
  EXPECT_EQ(prefix(sizes("pls", loop(1000, 4)), 9), concat({repeated(125, 4), sizes_t{125, 94, 71, 53, 40}}));
  // ceil(3.5 / 3) = 2 x3, then the 1 left.
  EXPECT_EQ(sizes("pls", loop(7, 3)), (sizes_t{2, 2, 2, 1}));
}

TEST(Pls, TheDynamicPartIsGssOfWhatIsLeft) {
  const int p = 6;
  const sizes_t v = sizes("pls", loop(1'000'001, p));
  ASSERT_GT(v.size(), static_cast<std::size_t>(p));
  const iter_t static_part = std::accumulate(v.begin(), v.begin() + p, iter_t{0});
  EXPECT_EQ(sizes_t(v.begin() + p, v.end()), sizes("gss", loop(1'000'001 - static_part, p)));
}

// ---------------------------------------------------------------------------
// bold: Hagerup 1997 (see bold.cpp for the formula).

TEST(Bold, HandCheckedFirstChunks) {
  loop_params lp = loop(1000, 4);
  lp.sigma = 1;
  lp.overhead = 1;  // mu = 1
  // a = 2, b = 16 ln 16 = 44.3614, c1 = 1/ln 2 = 1.442695, c2 = sqrt(2 pi) c1 = 3.616300, c3 = 1.285451.
  // Request 1: R = N = M = 1000, q = t = 250, ln q = 5.521461, v = 250/294.3614 = 0.849296,
  //   d = 1000 / (1 + 0.181111 - 0.849296) = 3013.72, s = 2 (8.010932 - 1.285451) 1.25 = 16.8137,
  //   w = ln(0.849296 * 5.521461) + ln b = 1.545295 + 3.792370 = 5.337665,
  //   K = 250 + 8.40685 - sqrt(16.8137 * 254.2034) + 1.442695 * 5.337665
  //     = 258.40685 - 65.37660 + 7.70062 = 200.73 -> 201.
  // Request 2 (worker 1, nothing finished yet): R = 799, N = M = 1000, so t = 250 still;
  //   q = 199.75, v = 0.818274, d = 2156.49, s = 15.9770, w = 5.258965, K = 201.87 -> 202.
  EXPECT_EQ(prefix(sizes("bold", lp), 2), (sizes_t{201, 202}));
}

TEST(Bold, SigmaZeroIsAStaticSplitAndOverheadDefaultsToOne) {
  // a = 0: nothing to hedge against, K = max(R, N) / p with N = n until someone finishes.
  EXPECT_EQ(sizes("bold", loop(1003, 4)), (sizes_t{251, 251, 251, 250}));
  loop_params lp = loop(100'000, 4);
  lp.mu = 2;
  lp.sigma = 1;
  loop_params explicit_h = lp;
  explicit_h.overhead = 1;  // one mean iteration, h = 2
  EXPECT_EQ(sizes("bold", lp), sizes("bold", explicit_h));
}

TEST(Bold, LearnsFromMeasuredChunkTimes) {
  loop_params lp = loop(100'000, 4);
  lp.sigma = 1;
  lp.overhead = 1;
  const sizes_t expected_times = sizes("bold", lp);
  // One second per iteration keeps every sum exact.
  const sizes_t uniform_times = sizes("bold", lp, {1, 1, 1, 1});
  const sizes_t one_slow = sizes("bold", lp, {1, 1, 1, 10});
  // Measured times equal to the expected ones change nothing; a slow worker does.
  EXPECT_EQ(uniform_times, expected_times);
  EXPECT_NE(one_slow, expected_times);
  // Zero and nonsense reports are ignored, not fatal.
  scheduler s(parse_schedule("bold").spec, lp);
  s.record(0, 10, 0.0);
  s.record(7, 10, 1.0);
  s.record(1, 10, std::nan(""));
  EXPECT_GT(s.next(0).size, 0);
}

// ---------------------------------------------------------------------------
// All of them: the catalog kinds, and small plans at 10^12 iterations.

TEST(FixedTechniques, KindsInTheCatalog) {
  for (const char* name : {"fac", "tfss", "fiss", "viss", "mfsc", "fsc", "tap", "rnd", "pls"}) {
    const technique_info* t = find_technique(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->kind, technique_kind::fixed) << name;
  }
  ASSERT_NE(find_technique("bold"), nullptr);
  EXPECT_EQ(find_technique("bold")->kind, technique_kind::adaptive);
}

TEST(FixedTechniques, PlansAtATrillionIterationsAreSmall) {
  const iter_t n = 1'000'000'000'000;
  for (const char* name : {"fac", "tfss", "fiss", "viss", "mfsc", "fsc", "tap", "rnd", "pls"}) {
    for (const int p : {1, 3, 64}) {
      for (const double sigma : {0.0, 1.0}) {
        loop_params lp = loop(n, p);
        lp.sigma = sigma;
        const technique_ptr t = make_schedule(parse_schedule(name).spec, lp);
        const std::optional<chunk_plan> plan = chunk_plan::build(*t, lp);
        ASSERT_TRUE(plan.has_value()) << name << " p=" << p;
        EXPECT_LE(static_cast<double>(plan->segment_count()), 4.0 * p * std::log2(static_cast<double>(n)) + 8)
            << name << " p=" << p << " sigma=" << sigma;
        const chunk last = plan->at(plan->chunk_count() - 1);
        EXPECT_EQ(last.start + last.size, n) << name << " p=" << p;
      }
    }
  }
}

}  // namespace
}  // namespace selfsched

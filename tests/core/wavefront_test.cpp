// Mechanism S, the pure part: legality of dependence vectors, the choice of
// u_s and u_c, the skew, the tiling, and the transaction accounting.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "selfsched/core.hpp"
#include "selfsched/core/wavefront.hpp"

namespace selfsched {
namespace {

wavefront_problem problem2(iter_t u0, iter_t u1, std::vector<wavefront_index> deps) {
  wavefront_problem p;
  p.rank = 2;
  p.extents = {u0, u1, 0};
  p.dependences = std::move(deps);
  return p;
}

// Every dependence source lies in an earlier (chunk, interval) tile or
// earlier in the same tile's order: what the threads and ranks rely on.
void expect_wavefront_honours_dependences(const wavefront_problem& p, const wavefront_plan& plan,
                                          const std::vector<chunk>& chunks) {
  const int r = plan.rank;
  auto chunk_of = [&](iter_t cprime) {
    for (std::size_t k = 0; k < chunks.size(); ++k)
      if (cprime >= chunks[k].start && cprime < chunks[k].start + chunks[k].size) return static_cast<iter_t>(k);
    return iter_t{-1};
  };
  std::vector<int> inner{plan.sync_dim};
  for (int d = 0; d < r; ++d)
    if (d != plan.sync_dim) inner.push_back(d);
  const iter_t u2 = r == 3 ? p.extents[2] : 1;
  for (iter_t a = 0; a < p.extents[0]; ++a)
    for (iter_t b = 0; b < p.extents[1]; ++b)
      for (iter_t e = 0; e < u2; ++e) {
        const wavefront_index x{a, b, e};
        for (const auto& d : p.dependences) {
          wavefront_index y{};
          bool inside = true;
          for (int k = 0; k < r; ++k) {
            y[k] = x[k] - d[k];
            inside = inside && y[k] >= 0 && y[k] < p.extents[k];
          }
          if (!inside) continue;
          const iter_t kx = chunk_of(x[plan.chunk_dim] + plan.skew * x[plan.sync_dim]);
          const iter_t ky = chunk_of(y[plan.chunk_dim] + plan.skew * y[plan.sync_dim]);
          const iter_t tx = x[plan.sync_dim] / plan.interval, ty = y[plan.sync_dim] / plan.interval;
          ASSERT_GE(kx, 0);
          ASSERT_GE(ky, 0);
          ASSERT_LE(ky, kx);
          ASSERT_LE(ty, tx);
          if (kx == ky && tx == ty) {
            bool before = false;
            for (int k : inner)
              if (y[k] != x[k]) {
                before = y[k] < x[k];
                break;
              }
            ASSERT_TRUE(before);
          }
        }
      }
}

TEST(Wavefront, SyncIntervalIsEquationOne) {
  EXPECT_EQ(sync_interval(10000, 12), 834);  // ceil(10000 / 12)
  EXPECT_EQ(sync_interval(10, 4), 3);
  EXPECT_EQ(sync_interval(5, 10), 1);
  EXPECT_EQ(sync_interval(0, 3), 1);
  EXPECT_EQ(sync_interval(INT64_MAX, 1), INT64_MAX);
}

TEST(Wavefront, FloydSteinbergIsSkewedByTwo) {
  // Flow (0,1) (1,-1) (1,0) (1,1) plus the output dependences of the four
  // += on one pixel: (0,2) and (1,-2). Height > width: the longest dimension
  // (j) cannot be u_s, so i is.
  auto r = plan_wavefront(problem2(20, 30, {{0, 1}, {0, 2}, {1, -2}, {1, -1}, {1, 0}, {1, 1}}), 12);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.plan.sync_dim, 0);
  EXPECT_EQ(r.plan.chunk_dim, 1);
  EXPECT_EQ(r.plan.skew, 2);
  EXPECT_EQ(r.plan.halo, 3);  // (1,1): 1 + 2
  EXPECT_EQ(r.plan.reach, 1);
  EXPECT_EQ(r.plan.chunk_extent, 30 + 2 * 19);
  EXPECT_EQ(r.plan.interval, 2);  // ceil(20 / 12)
  EXPECT_EQ(r.plan.tiles, 10);
  EXPECT_EQ(r.plan.run_dim, 1);
}

TEST(Wavefront, HydroIsSkewedByOneAlongK) {
  wavefront_problem p;
  p.rank = 3;
  p.extents = {50, 4, 40};  // l, j, k
  p.dependences = {{1, -1, 0}, {0, 1, 0}, {1, 0, -1}, {0, 0, 1}};
  auto r = plan_wavefront(p, 6);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.plan.sync_dim, 0);
  EXPECT_EQ(r.plan.chunk_dim, 2);
  EXPECT_EQ(r.plan.other_dim, 1);
  EXPECT_EQ(r.plan.skew, 1);
  EXPECT_EQ(r.plan.run_dim, 2);
  EXPECT_EQ(r.plan.chunk_extent, 40 + 49);
}

TEST(Wavefront, DefaultsFollowSeedZeroAndFallBack) {
  // No dependence forces anything: u_s the longest, u_c the next.
  auto r = plan_wavefront(problem2(10, 30, {{1, 0}, {0, 1}}), 3);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.plan.sync_dim, 1);
  EXPECT_EQ(r.plan.chunk_dim, 0);
  EXPECT_EQ(r.plan.skew, 0);
  // Ties: the outermost is u_s.
  r = plan_wavefront(problem2(30, 30, {{1, 0}, {0, 1}}), 3);
  EXPECT_EQ(r.plan.sync_dim, 0);
  // 3-D: (0, 1, -1) forbids u_s = 2 and u_c = 2 with u_s = 0.
  wavefront_problem p;
  p.rank = 3;
  p.extents = {10, 5, 20};
  p.dependences = {{0, 1, -1}};
  r = plan_wavefront(p, 3);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.plan.sync_dim, 0);
  EXPECT_EQ(r.plan.chunk_dim, 1);
}

TEST(Wavefront, IllegalVectorsGetOneClearMessage) {
  auto error = [](wavefront_problem p) { return plan_wavefront(p, 3).error; };
  EXPECT_EQ(error(problem2(5, 5, {{0, 0}})), "dependence (0, 0) is zero: an iteration cannot wait for itself");
  EXPECT_NE(error(problem2(5, 5, {{-1, 1}})).find("dependence (-1, 1) is not lexicographically positive"),
            std::string::npos);
  EXPECT_NE(error(problem2(5, 5, {{0, -1}})).find("(0, -1) is not lexicographically positive"), std::string::npos);
  auto forced = problem2(5, 5, {{1, -1}});
  forced.sync_dim = 1;
  EXPECT_NE(error(forced).find("dependence (1, -1) with u_s = dimension 1, u_c = dimension 0 steps back along u_s "
                               "(component -1)"),
            std::string::npos)
      << error(forced);
  wavefront_problem p;
  p.rank = 3;
  p.extents = {4, 4, 4};
  p.dependences = {{0, 1, -1}};
  p.sync_dim = 0;
  p.chunk_dim = 2;
  EXPECT_NE(error(p).find("steps back along u_c (component -1) within one u_s row"), std::string::npos) << error(p);
  // u_s = 0, u_c = 1 (the written order) is always legal; forcing u_c = 0
  // leaves u_s = 1 or 2, and each is stepped back along by one vector.
  p.dependences = {{1, -1, 0}, {1, 0, -1}};
  p.sync_dim = -1;
  p.chunk_dim = 0;
  EXPECT_NE(error(p).find("no other choice of u_s and u_c is legal either"), std::string::npos) << error(p);
  p.chunk_dim = -1;
  EXPECT_TRUE(plan_wavefront(p, 3).ok());

  EXPECT_EQ(error(wavefront_problem{4, {1, 1, 1}, {}, -1, -1}), "rank 4 is not supported; valid: 2, 3");
  EXPECT_EQ(error(problem2(5, -1, {})), "extent of dimension 1 is -1; extents must be >= 0");
  auto same = problem2(5, 5, {});
  same.chunk_dim = same.sync_dim = 1;
  EXPECT_EQ(error(same), "u_c and u_s are both dimension 1; they must differ");
  auto out = problem2(5, 5, {});
  out.chunk_dim = 2;
  EXPECT_EQ(error(out), "u_c (chunk_dim) 2 is not a dimension; valid: -1 (choose), 0..1");
  EXPECT_EQ(plan_wavefront(problem2(5, 5, {}), 0).error, "#SP 0 must be >= 1");
}

TEST(Wavefront, RowSpansPartitionTheSpace) {
  auto r = plan_wavefront(problem2(7, 9, {{1, -2}, {0, 1}}), 3);
  ASSERT_TRUE(r.ok()) << r.error;
  const wavefront_plan& plan = r.plan;
  ASSERT_EQ(plan.skew, 2);
  std::set<std::pair<iter_t, iter_t>> seen;
  iter_t total = 0;
  for (iter_t start = 0; start < plan.chunk_extent; start += 4) {
    const chunk c{start, std::min<iter_t>(4, plan.chunk_extent - start)};
    total += plan.iterations(c);
    for (iter_t t = 0; t < plan.tiles; ++t) {
      const auto [s0, s1] = plan.tile_rows(t);
      for (iter_t s = s0; s < s1; ++s) {
        const auto [c0, c1] = plan.row_span(c, s);
        for (iter_t j = c0; j < c1; ++j) EXPECT_TRUE(seen.insert({s, j}).second);
      }
    }
  }
  EXPECT_EQ(seen.size(), 63u);
  EXPECT_EQ(total, 63);
}

TEST(Wavefront, TransactionAccountingNamesNeighbours) {
  auto r = plan_wavefront(problem2(10, 100, {{1, 0}, {0, 1}}), 3);
  ASSERT_TRUE(r.ok());
  loop_params lp;
  lp.p = 3;
  synchronized_schedule s(r.plan, parse_schedule("s-css").spec, lp);
  EXPECT_EQ(s.params().n, r.plan.chunk_extent);
  auto a0 = s.next(2);
  auto a1 = s.next(0);
  EXPECT_EQ(a0.sequence, 0);
  EXPECT_EQ(a0.receive_from, -1);
  EXPECT_EQ(a1.receive_from, 2);
  EXPECT_EQ(s.send_to(0), 0);
  EXPECT_EQ(s.send_to(1), -1);  // chunk 2 not handed out yet
  EXPECT_EQ(a1.span.start, a0.span.start + a0.span.size);
  iter_t covered = a0.span.size + a1.span.size;
  for (auto a = s.next(1); a.span.size > 0; a = s.next(1)) covered += a.span.size;
  EXPECT_EQ(covered, r.plan.chunk_extent);
}

TEST(Wavefront, WeightedChunksFollowThePowers) {
  auto p = problem2(10, 1000, {{1, 0}, {0, 1}});
  p.sync_dim = 0;  // not the longest: u_c has 1000 columns
  auto r = plan_wavefront(p, 3);
  ASSERT_TRUE(r.ok()) << r.error;
  loop_params lp;
  lp.p = 2;
  lp.powers = {1.0, 0.5};
  synchronized_schedule plain(r.plan, parse_schedule("s-css").spec, lp);
  synchronized_schedule weighted(r.plan, parse_schedule("sw-css").spec, lp);
  EXPECT_EQ(plain.next(1).span.size, 250);     // css: ceil(1000 / 2p)
  EXPECT_EQ(weighted.next(1).span.size, 125);  // x VP_1 = 0.5 (seed 000, eq. 2)
}

// Random uniform dependences in 2-D and 3-D: whenever the plan accepts them,
// the tiles it produces honour every one, for any chunk sequence.
TEST(Wavefront, RandomLegalPlansHonourEveryDependence) {
  std::mt19937_64 rng(8);
  int accepted = 0;
  for (int trial = 0; trial < 400; ++trial) {
    wavefront_problem p;
    p.rank = 2 + static_cast<int>(rng() % 2);
    for (int d = 0; d < p.rank; ++d) p.extents[d] = 1 + static_cast<iter_t>(rng() % 9);
    const int count = 1 + static_cast<int>(rng() % 4);
    for (int v = 0; v < count; ++v) {
      wavefront_index d{};
      for (int k = 0; k < p.rank; ++k) d[k] = static_cast<iter_t>(rng() % 7) - 3;
      p.dependences.push_back(d);
    }
    auto r = plan_wavefront(p, 1 + static_cast<iter_t>(rng() % 6));
    if (!r.ok()) continue;
    ++accepted;
    std::vector<chunk> chunks;
    for (iter_t start = 0; start < r.plan.chunk_extent;) {
      const iter_t size = std::min<iter_t>(1 + static_cast<iter_t>(rng() % 4), r.plan.chunk_extent - start);
      chunks.push_back({start, size});
      start += size;
    }
    expect_wavefront_honours_dependences(p, r.plan, chunks);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(accepted, 40);
}

}  // namespace
}  // namespace selfsched

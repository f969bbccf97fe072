// The static split over the cluster-wide team: every iteration to exactly
// one thread, contiguous blocks in thread order, libomp's balanced split
// with equal weights, weights honoured, one last thread.
#include "static_split.hpp"

#include <gtest/gtest.h>

#include <random>

using namespace selfsched::cluster;

namespace {

// Which thread each iteration went to; -1: none.
std::vector<int> owners(const cluster_team& team, std::uint64_t trip, std::uint64_t chunk) {
  std::vector<int> owner(trip, -1);
  int lasts = 0;
  for (int g = 0; g < team.size(); ++g) {
    const static_share s = chunk == 0 ? static_block(team, trip, g) : static_chunks(team, trip, chunk, g);
    lasts += s.last;
    if (chunk == 0) {
      for (std::uint64_t i = s.first; i < s.first + s.count; ++i) {
        EXPECT_EQ(owner[i], -1) << "iteration " << i << " twice";
        owner[i] = g;
      }
      if (s.last) EXPECT_EQ(s.first + s.count, trip);
    } else {
      for (std::uint64_t start = s.first; start < trip; start += s.stride)
        for (std::uint64_t i = start; i < std::min(trip, start + chunk); ++i) {
          EXPECT_EQ(owner[i], -1) << "iteration " << i << " twice";
          owner[i] = g;
        }
    }
  }
  EXPECT_EQ(lasts, trip > 0 ? 1 : 0);
  for (std::uint64_t i = 0; i < trip; ++i) EXPECT_GE(owner[i], 0) << "iteration " << i << " never";
  return owner;
}

}  // namespace

TEST(StaticSplit, EqualWeightsAreLibompsBalancedSplit) {
  const cluster_team team({2, 2}, {});
  EXPECT_TRUE(team.equal_weights());
  EXPECT_EQ(team.size(), 4);
  EXPECT_EQ(team.number(1, 0), 2);
  // 7 iterations over 4 threads: 2, 2, 2, 1.
  const auto owner = owners(team, 7, 0);
  EXPECT_EQ(owner, (std::vector<int>{0, 0, 1, 1, 2, 2, 3}));
  // Fewer iterations than threads: the first threads get one each.
  EXPECT_EQ(owners(team, 2, 0), (std::vector<int>{0, 1}));
  owners(team, 0, 0);
}

TEST(StaticSplit, BlocksAreContiguousInThreadOrder) {
  std::mt19937 rng(3);
  for (int round = 0; round < 300; ++round) {
    const int ranks = 1 + static_cast<int>(rng() % 5);
    std::vector<int> threads;
    std::vector<double> weights;
    for (int r = 0; r < ranks; ++r) {
      threads.push_back(1 + static_cast<int>(rng() % 4));
      weights.push_back(0.25 + (rng() % 100) / 10.0);
    }
    const cluster_team team(threads, round % 3 == 0 ? std::vector<double>{} : weights);
    const std::uint64_t trip = rng() % 2000;
    const auto owner = owners(team, trip, 0);
    for (std::uint64_t i = 1; i < trip; ++i) EXPECT_LE(owner[i - 1], owner[i]);
  }
}

TEST(StaticSplit, WeightsShareIterationsInProportion) {
  // Rank 1 three times as powerful as rank 0, one thread each.
  const cluster_team team({1, 1}, {1.0, 3.0});
  EXPECT_FALSE(team.equal_weights());
  const auto owner = owners(team, 1000, 0);
  const auto on0 = std::count(owner.begin(), owner.end(), 0);
  EXPECT_EQ(on0, 250);
  // Two threads on rank 1 share its part.
  const cluster_team two({1, 2}, {1.0, 3.0});
  const auto o2 = owners(two, 1000, 0);
  EXPECT_EQ(std::count(o2.begin(), o2.end(), 1), 375);
  EXPECT_EQ(std::count(o2.begin(), o2.end(), 2), 375);
}

TEST(StaticSplit, ChunksGoRoundTheTeam) {
  const cluster_team team({1, 2}, {5.0, 1.0});  // weights do not change a chunked schedule
  const auto owner = owners(team, 10, 2);
  EXPECT_EQ(owner, (std::vector<int>{0, 0, 1, 1, 2, 2, 0, 0, 1, 1}));
  std::mt19937 rng(5);
  for (int round = 0; round < 200; ++round) {
    const cluster_team t({1 + static_cast<int>(rng() % 3), 1 + static_cast<int>(rng() % 3)}, {});
    owners(t, rng() % 500, 1 + rng() % 17);
  }
}

// balance_of: the imbalance numbers a profile reports, computed by hand.
#include <gtest/gtest.h>

#include <vector>

#include "selfsched/core/balance.hpp"

namespace selfsched {
namespace {

TEST(Balance, EqualThreadsArePerfectlyBalanced) {
  const std::vector<double> busy{2, 2, 2};
  const balance_stats b = balance_of(busy);
  EXPECT_DOUBLE_EQ(b.mean, 2);
  EXPECT_DOUBLE_EQ(b.max, 2);
  EXPECT_DOUBLE_EQ(b.max_over_mean, 1);
  EXPECT_DOUBLE_EQ(b.cov, 0);
  EXPECT_DOUBLE_EQ(b.percent_imbalance, 0);
}

// Busy 1 and 3: mean 2, max 3, standard deviation 1.
TEST(Balance, TwoThreadsMatchTheHandComputedNumbers) {
  const std::vector<double> busy{1, 3};
  const balance_stats b = balance_of(busy);
  EXPECT_DOUBLE_EQ(b.mean, 2);
  EXPECT_DOUBLE_EQ(b.max, 3);
  EXPECT_DOUBLE_EQ(b.max_over_mean, 1.5);
  EXPECT_DOUBLE_EQ(b.cov, 0.5);
  EXPECT_NEAR(b.percent_imbalance, 100.0 / 3, 1e-12);
}

TEST(Balance, NoThreadOrNoWorkGivesTheNeutralValues) {
  for (const std::vector<double>& busy : {std::vector<double>{}, std::vector<double>{0, 0}}) {
    const balance_stats b = balance_of(busy);
    EXPECT_DOUBLE_EQ(b.max_over_mean, 1);
    EXPECT_DOUBLE_EQ(b.cov, 0);
    EXPECT_DOUBLE_EQ(b.percent_imbalance, 0);
  }
}

}  // namespace
}  // namespace selfsched

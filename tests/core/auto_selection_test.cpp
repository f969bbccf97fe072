// auto: explore every candidate once, exploit the fastest, re-explore the
// stalest one every explore_every instances.
#include <gtest/gtest.h>

#include "selfsched/core.hpp"
#include "selfsched/core/auto_selection.hpp"

namespace selfsched {
namespace {

TEST(AutoSelection, ExploresEachCandidateOnceInOrder) {
  auto_selection s;
  ASSERT_GE(s.candidate_count(), 4);
  for (int i = 0; i < s.candidate_count(); ++i) {
    EXPECT_EQ(s.best(), -1);
    const int c = s.choose();
    EXPECT_EQ(c, i);
    s.record(c, 1.0 + i);
  }
  EXPECT_EQ(s.best(), 0);  // candidate 0 ran in 1 s, the others slower
}

TEST(AutoSelection, ExploitsTheFastestAndFollowsChanges) {
  auto_selection s;
  const int fast = 3;
  for (int i = 0; i < s.candidate_count(); ++i) s.record(s.choose(), i == fast ? 0.5 : 2.0);
  int exploited = 0, explored = 0;
  for (int k = 0; k < 4 * static_cast<int>(auto_selection::explore_every); ++k) {
    const int c = s.choose();
    (c == fast ? exploited : explored)++;
    s.record(c, c == fast ? 0.5 : 2.0);
  }
  EXPECT_EQ(explored, 4);  // one re-exploration per explore_every instances
  EXPECT_EQ(exploited, 4 * static_cast<int>(auto_selection::explore_every) - 4);
  // The fast one gets slow (load moved): after a few runs another wins.
  for (int k = 0; k < 8; ++k) s.record(fast, 5.0);
  EXPECT_NE(s.best(), fast);
}

TEST(AutoSelection, EveryCandidateIsACatalogTechniqueAndIgnoresBadReports) {
  auto_selection s;
  for (int i = 0; i < s.candidate_count(); ++i) EXPECT_NE(find_technique(s.candidate(i)), nullptr) << s.candidate(i);
  s.record(-1, 1.0);
  s.record(s.candidate_count(), 1.0);
  s.record(0, -1.0);
  s.record(0, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(s.choose(), 0);  // nothing above counted as a run
}

TEST(AutoSelection, IsInTheCatalogAsAutoAndBest) {
  EXPECT_EQ(find_technique("auto"), find_technique("best"));
  ASSERT_NE(find_technique("auto"), nullptr);
  EXPECT_TRUE(find_technique("auto")->selects_technique);
}

}  // namespace
}  // namespace selfsched

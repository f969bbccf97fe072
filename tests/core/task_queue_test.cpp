// The task pool's queue (task_queue.hpp): order by level then priority then
// arrival, levels completing, the asynchronicity limit, and a random
// precedence tree run to the end with every task taken exactly once.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "selfsched/core/task_queue.hpp"

namespace selfsched {
namespace {

std::string pop_payload(task_queue& q) {
  auto t = q.pop_current();
  EXPECT_TRUE(t.has_value());
  if (!t) return "";
  q.finish(t->level);
  return t->payload;
}

TEST(TaskQueue, LevelThenPriorityThenArrival) {
  task_queue q;
  q.push("b1", 1, 5);
  q.push("a-low", 0, 1);
  q.push("a-high", 0, 9);
  q.push("a-low-later", 0, 1);
  q.push("b2", 1, 7);
  EXPECT_EQ(pop_payload(q), "a-high");
  EXPECT_EQ(pop_payload(q), "a-low");
  EXPECT_EQ(pop_payload(q), "a-low-later");
  EXPECT_EQ(pop_payload(q), "b2");
  EXPECT_EQ(pop_payload(q), "b1");
  EXPECT_TRUE(q.done());
  EXPECT_FALSE(q.pop_current().has_value());
}

TEST(TaskQueue, ALevelCompletesWhenNothingAtOrBelowItIsOutstanding) {
  task_queue q;
  EXPECT_EQ(q.last_completed_level(), -1);
  q.push("root", 0, 0);
  auto root = q.pop_current();
  ASSERT_TRUE(root);
  EXPECT_EQ(q.last_completed_level(), -1);  // running: level 0 not complete
  q.push("child", 1, 0);                    // spawned by the root
  q.finish(root->level);
  EXPECT_EQ(q.last_completed_level(), 0);
  EXPECT_EQ(q.outstanding(), 1);
  auto child = q.pop_current();
  ASSERT_TRUE(child);
  q.finish(child->level);
  EXPECT_EQ(q.last_completed_level(), 1);
  EXPECT_TRUE(q.done());
  // A task arriving below the last completed level lowers it (seed 001 sec. 3.2).
  q.push("late", 0, 0);
  EXPECT_EQ(q.last_completed_level(), -1);
}

TEST(TaskQueue, AsynchronicityLimitHoldsDeeperTasksBack) {
  task_queue q(1);  // one global iteration in progress at a time
  q.push("a", 0, 0);
  q.push("b", 0, 0);
  auto a = q.pop_current();
  ASSERT_TRUE(a);
  q.push("a's child", 1, 0);
  q.finish(a->level);
  // Level 0 still has "b": level 1 is not current yet.
  auto b = q.pop_current();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->payload, "b");
  EXPECT_FALSE(q.pop_current().has_value());  // b is running, a's child waits
  EXPECT_FALSE(q.is_current(1));
  // A processor whose request was denied may run beyond the limit.
  task_queue beyond(1);
  beyond.push("x", 0, 0);
  auto x = beyond.pop_current();
  ASSERT_TRUE(x);
  beyond.push("y", 1, 0);
  EXPECT_FALSE(beyond.pop_current().has_value());
  auto y = beyond.pop_any();
  ASSERT_TRUE(y);
  EXPECT_EQ(y->payload, "y");
  q.finish(b->level);
  EXPECT_TRUE(q.is_current(1));
  EXPECT_EQ(pop_payload(q), "a's child");
  EXPECT_TRUE(q.done());
}

// One queue of several (a rank's under mediation): the last completed level
// comes from elsewhere, and the queue says what it holds of each kind.
TEST(TaskQueue, ALastCompletedLevelFromElsewhere) {
  task_queue q(1);
  EXPECT_EQ(q.lowest_outstanding_level(), std::numeric_limits<int>::max());
  q.push("a", 2, 0);
  q.push("b", 3, 0);
  q.push("c", 3, 1);
  EXPECT_EQ(q.lowest_outstanding_level(), 2);
  // Locally level 1 is complete, so level 2 is current; globally only level 0 is.
  EXPECT_EQ(q.queued_current(q.last_completed_level()), 1u);
  EXPECT_EQ(q.queued_current(0), 0u);
  EXPECT_FALSE(q.pop_current(0).has_value());
  EXPECT_EQ(q.queued_current(2), 3u);
  auto first = q.pop_current(2);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->payload, "a");
  EXPECT_EQ(q.lowest_outstanding_level(), 2);  // running
  q.finish(first->level);
  EXPECT_EQ(q.lowest_outstanding_level(), 3);
  task_queue unlimited;  // no limit: every queued task is current
  unlimited.push("x", 9, 0);
  EXPECT_EQ(unlimited.queued_current(-1), 1u);
}

TEST(TaskQueue, DiscardDropsQueuedTasksButNotRunningOnes) {
  task_queue q;
  q.push("run", 0, 0);
  q.push("x", 0, 0);
  q.push("y", 2, 0);
  auto run = q.pop_current();
  ASSERT_TRUE(run);
  EXPECT_EQ(q.discard_queued(), 2u);
  EXPECT_EQ(q.queued(), 0u);
  EXPECT_EQ(q.outstanding(), 1);
  q.finish(run->level);
  EXPECT_TRUE(q.done());
}

TEST(TaskQueue, BadLevelsAndPrioritiesAreHarmless) {
  task_queue q(-3);  // a negative limit is no limit
  EXPECT_EQ(q.async_levels(), 0);
  q.push("nan", 0, std::nan(""));
  q.push("negative level", -5, 1);
  q.push("ok", 0, 0.5);
  EXPECT_EQ(pop_payload(q), "negative level");  // level 0, priority 1
  EXPECT_EQ(pop_payload(q), "ok");
  EXPECT_EQ(pop_payload(q), "nan");             // counted as priority 0
  q.finish(7);                                  // never pushed: ignored
  EXPECT_TRUE(q.done());
}

// A random precedence tree (each task spawns 0-3 children one level down,
// up to a depth), run by simulated workers that take tasks in turn: every
// task is taken exactly once, levels complete in order, and with an
// asynchronicity limit no task runs more than that many levels past the
// last completed one.
TEST(TaskQueue, RandomTreesRunEveryTaskOnceAndLevelsCompleteInOrder) {
  for (int limit : {0, 1, 2}) {
    for (unsigned seed = 1; seed <= 20; ++seed) {
      std::mt19937 random(seed);
      task_queue q(limit);
      std::vector<int> taken;
      int created = 0;
      const auto spawn = [&](int level) {
        q.push(std::to_string(created), level, static_cast<double>(random() % 4));
        taken.push_back(0);
        ++created;
      };
      for (int r = 0; r < 3; ++r) spawn(0);
      std::vector<std::optional<queued_task>> running(4);
      int last_completed = -1;
      while (!q.done()) {
        for (auto& slot : running) {
          if (slot) {  // finish it, spawning its children first
            const int children = slot->level < 6 ? static_cast<int>(random() % 4) : 0;
            for (int c = 0; c < children && created < 5000; ++c) spawn(slot->level + 1);
            q.finish(slot->level);
            slot.reset();
            EXPECT_GE(q.last_completed_level(), last_completed);
            last_completed = q.last_completed_level();
          } else if ((slot = q.pop_current())) {
            ++taken[static_cast<std::size_t>(std::stoi(slot->payload))];
            if (limit > 0) EXPECT_LE(slot->level, q.last_completed_level() + limit);
          }
        }
      }
      for (int i = 0; i < created; ++i) EXPECT_EQ(taken[static_cast<std::size_t>(i)], 1) << "task " << i;
      EXPECT_EQ(q.queued(), 0u);
    }
  }
}

}  // namespace
}  // namespace selfsched

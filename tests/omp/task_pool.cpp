// Task pools on real threads (selfsched/task_pool.hpp, selfsched_tasks.h):
// random task trees of every shape run each task exactly once at 1-4
// threads, with and without an asynchronicity limit (checked against the
// test's own count of unfinished tasks per level); the pool ends when
// nothing is left, including when it starts empty; order on one thread;
// stop, exceptions and bad input.
#include <gtest/gtest.h>
#include <omp.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "selfsched/task_pool.hpp"
#include "selfsched_tasks.h"

namespace {

struct node {
  std::int64_t id;
  std::uint64_t seed;
};

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 31;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 29);
}

constexpr int max_depth = 7;
constexpr std::int64_t max_tasks = 60'000;

// A tree whose shape depends on the seed: 0-4 children per node, some
// subtrees much deeper than others, a little work per task.
struct tree_run {
  std::vector<std::atomic<int>> runs = std::vector<std::atomic<int>>(max_tasks);
  std::vector<std::atomic<int>> level_of = std::vector<std::atomic<int>>(max_tasks);
  std::atomic<std::int64_t> created{0};
  std::array<std::atomic<std::int64_t>, max_depth + 2> unfinished{};  // per level
  std::atomic<int> order_violations{0};
  int async_levels = 0;

  void put(selfsched::task_pool& pool, int level, std::uint64_t seed) {
    const std::int64_t id = created.fetch_add(1);
    if (id >= max_tasks) return;
    level_of[static_cast<std::size_t>(id)] = level;
    unfinished[static_cast<std::size_t>(level)].fetch_add(1);
    pool.put(node{id, seed}, level, static_cast<double>(seed % 5));
  }

  void visit(selfsched::task_pool& pool, const selfsched::task& t) {
    const node n = t.as<node>();
    runs[static_cast<std::size_t>(n.id)].fetch_add(1);
    if (async_levels > 0)
      for (int l = 0; l <= t.level() - async_levels; ++l)
        if (unfinished[static_cast<std::size_t>(l)].load() != 0) order_violations.fetch_add(1);
    volatile double sink = 0;
    for (std::uint64_t k = 0; k < n.seed % 2000; ++k) sink = sink + std::sqrt(static_cast<double>(k));
    const int children = t.level() < max_depth ? static_cast<int>(mix(n.seed) % 5) : 0;
    for (int c = 0; c < children; ++c) put(pool, t.level() + 1, mix(n.seed + 1 + static_cast<std::uint64_t>(c)));
    unfinished[static_cast<std::size_t>(t.level())].fetch_sub(1);
  }
};

TEST(TaskPool, RandomTreesRunEveryTaskExactlyOnce) {
  for (int threads = 1; threads <= 4; ++threads) {
    for (int async_levels : {0, 1, 2}) {
      for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        SCOPED_TRACE("threads " + std::to_string(threads) + ", async " + std::to_string(async_levels) + ", seed " +
                     std::to_string(seed));
        selfsched::task_pool pool({.threads = threads, .async_levels = async_levels});
        auto run = std::make_unique<tree_run>();
        run->async_levels = async_levels;
        for (int r = 0; r < 1 + static_cast<int>(seed % 3); ++r) run->put(pool, 0, mix(seed * 1000 + r));
        const auto report = pool.run([&](const selfsched::task& t) { run->visit(pool, t); });
        const std::int64_t created = std::min(run->created.load(), max_tasks);
        ASSERT_LT(run->created.load(), max_tasks) << "tree too large for the test's table";
        int deepest = 0;
        for (std::int64_t i = 0; i < created; ++i) {
          ASSERT_EQ(run->runs[static_cast<std::size_t>(i)].load(), 1) << "task " << i;
          deepest = std::max(deepest, run->level_of[static_cast<std::size_t>(i)].load());
        }
        EXPECT_EQ(report.tasks, created);
        EXPECT_EQ(report.discarded, 0);
        EXPECT_EQ(report.threads, threads);
        EXPECT_EQ(report.last_completed_level, deepest);
        EXPECT_EQ(run->order_violations.load(), 0);
        EXPECT_GE(report.seconds, 0);
      }
    }
  }
}

TEST(TaskPool, AnEmptyPoolEndsAtOnce) {
  selfsched::task_pool pool({.threads = 3});
  int calls = 0;
  const auto report = pool.run([&](const selfsched::task&) { ++calls; });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(report.tasks, 0);
  EXPECT_EQ(report.last_completed_level, -1);
}

// One task holds all the work at the start: the others wait for it, then
// share what it puts, and the pool ends when the last child is done.
TEST(TaskPool, OneTaskCreatesAllTheWork) {
  selfsched::task_pool pool({.threads = 4});
  std::atomic<int> children{0};
  std::vector<std::atomic<int>> ran(5000);
  pool.put(-1);
  const auto report = pool.run([&](const selfsched::task& t) {
    const int id = t.as<int>();
    if (id < 0) {
      for (int i = 0; i < 5000; ++i) pool.put(i, 1);
      return;
    }
    ran[static_cast<std::size_t>(id)].fetch_add(1);
    children.fetch_add(1);
  });
  EXPECT_EQ(children.load(), 5000);
  for (const auto& r : ran) ASSERT_EQ(r.load(), 1);
  EXPECT_EQ(report.tasks, 5001);
  EXPECT_GT(report.peak_queued, 1);  // the others took some while the root put
  EXPECT_LE(report.peak_queued, 5000);
}

TEST(TaskPool, OneThreadRunsByLevelThenPriorityThenArrival) {
  selfsched::task_pool pool({.threads = 1});
  std::vector<int> order;
  pool.put(10, 1, 0.0);
  pool.put(1, 0, 1.0);
  pool.put(0, 0, 5.0);
  pool.put(2, 0, 1.0);
  pool.put(11, 1, 3.0);
  pool.run([&](const selfsched::task& t) {
    order.push_back(t.as<int>());
    if (t.as<int>() == 0) pool.put(3, 0, 0.5);  // same level, lower priority: still before level 1
  });
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 11, 10}));
}

TEST(TaskPool, StopDiscardsWhatIsQueuedAndWhatComesAfter) {
  selfsched::task_pool pool({.threads = 2});
  for (int i = 0; i < 1000; ++i) pool.put(i);
  std::atomic<int> ran{0};
  const auto report = pool.run([&](const selfsched::task& t) {
    ran.fetch_add(1);
    if (t.as<int>() == 10) {
      pool.stop();
      pool.put(5000);  // after the stop: discarded
    }
  });
  EXPECT_EQ(report.tasks, ran.load());
  EXPECT_EQ(report.tasks + report.discarded, 1001);
  EXPECT_LT(report.tasks, 1000);
  // The pool runs again afterwards, with what is put then.
  pool.put(7);
  EXPECT_EQ(pool.run([](const selfsched::task&) {}).tasks, 1);
}

TEST(TaskPool, AnExceptionStopsThePoolAndReachesTheCaller) {
  selfsched::task_pool pool({.threads = 3});
  for (int i = 0; i < 200; ++i) pool.put(i);
  std::atomic<int> after{0};
  EXPECT_THROW(pool.run([&](const selfsched::task& t) {
                 if (t.as<int>() == 3) throw std::runtime_error("task 3 failed");
                 after.fetch_add(1);
               }),
               std::runtime_error);
  EXPECT_LT(after.load(), 200);
}

TEST(TaskPool, BadInputIsRefusedWithAClearMessage) {
  const auto message = [](auto&& f) {
    try {
      f();
    } catch (const selfsched::task_pool_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message([] { selfsched::task_pool p({.threads = -2}); }).find("threads -2 is negative"), std::string::npos);
  EXPECT_NE(message([] { selfsched::task_pool p({.async_levels = -1}); }).find("async_levels -1"), std::string::npos);
  selfsched::task_pool pool({.threads = 2, .max_payload = 16});
  EXPECT_NE(message([&] { pool.put(1, -1); }).find("level -1 is negative"), std::string::npos);
  EXPECT_NE(message([&] { pool.put(1, 0, std::nan("")); }).find("priority is NaN"), std::string::npos);
  const std::array<char, 17> big{};
  EXPECT_NE(message([&] { pool.put(big); }).find("17 bytes is larger than max_payload (16 bytes)"), std::string::npos);
  EXPECT_NE(message([&] { pool.put_bytes(nullptr, 4); }).find("data is NULL"), std::string::npos);
  // A payload read as another type; a run inside a run.
  pool.put(std::int64_t{5});
  EXPECT_THROW(pool.run([](const selfsched::task& t) { (void)t.as<int>(); }), selfsched::task_pool_error);
  pool.put(1);
  EXPECT_NE(message([&] { pool.run([&](const selfsched::task&) { pool.run([](const selfsched::task&) {}); }); })
                .find("already running"),
            std::string::npos);
  // The C API: NULL pool and function.
  EXPECT_EQ(selfsched_task_pool_put(nullptr, "x", 1, 0, 0), -1);
  EXPECT_NE(std::string(selfsched_task_pool_error()).find("NULL"), std::string::npos);
  EXPECT_EQ(selfsched_task_pool_run(pool.native(), nullptr, nullptr, nullptr), -1);
  EXPECT_NE(std::string(selfsched_task_pool_error()).find("task function is NULL"), std::string::npos);
  // An empty payload is a task like any other.
  pool.put_bytes(nullptr, 0);
  EXPECT_EQ(pool.run([](const selfsched::task& t) { EXPECT_EQ(t.size(), 0u); }).tasks, 1);
}

}  // namespace

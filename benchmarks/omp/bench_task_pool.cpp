// What a task costs in a selfsched task pool (docs/tasks.md), beside
// OpenMP's own tasks doing the same, in one run: N empty tasks put before
// the run and taken by 1 or 2 threads, and a tree where every task puts two
// children (puts from inside tasks, the pool's usual case). Time per task;
// compare ratios, not absolute times (the machine is shared).
//
//   make bench-tasks   (or build/bin/bench_task_pool --benchmark_filter=...)
#include <benchmark/benchmark.h>
#include <omp.h>

#include <atomic>
#include <cstdint>

#include "selfsched/task_pool.hpp"

namespace {

constexpr std::int64_t flat_tasks = 100'000;
constexpr int tree_depth = 16;  // 2^16 - 1 tasks

// Seconds per task (printed with an SI prefix: 850n is 850 ns).
void per_task(benchmark::State& state, double tasks_per_iteration) {
  state.counters["per_task"] = benchmark::Counter(tasks_per_iteration * static_cast<double>(state.iterations()),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_PoolFlat(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    selfsched::task_pool pool({.threads = threads});
    for (std::int64_t i = 0; i < flat_tasks; ++i) pool.put(i);
    std::atomic<std::int64_t> sum{0};
    pool.run([&](const selfsched::task& t) { sum.fetch_add(t.as<std::int64_t>(), std::memory_order_relaxed); });
    benchmark::DoNotOptimize(sum.load());
  }
  per_task(state, static_cast<double>(flat_tasks));
}

void BM_OmpTasksFlat(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    std::atomic<std::int64_t> sum{0};
#pragma omp parallel num_threads(threads)
#pragma omp single
    for (std::int64_t i = 0; i < flat_tasks; ++i) {
#pragma omp task firstprivate(i) shared(sum)
      sum.fetch_add(i, std::memory_order_relaxed);
    }
    benchmark::DoNotOptimize(sum.load());
  }
  per_task(state, static_cast<double>(flat_tasks));
}

struct node {
  int depth;
};

void BM_PoolTree(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    selfsched::task_pool pool({.threads = threads});
    pool.put(node{0});
    pool.run([&](const selfsched::task& t) {
      const node n = t.as<node>();
      if (n.depth + 1 < tree_depth) {
        pool.put(node{n.depth + 1}, 0, n.depth + 1);
        pool.put(node{n.depth + 1}, 0, n.depth + 1);
      }
    });
  }
  per_task(state, static_cast<double>((std::int64_t{1} << tree_depth) - 1));
}

void omp_tree(int depth) {
  if (depth + 1 < tree_depth) {
#pragma omp task
    omp_tree(depth + 1);
#pragma omp task
    omp_tree(depth + 1);
  }
}

void BM_OmpTasksTree(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
#pragma omp parallel num_threads(threads)
#pragma omp single
    omp_tree(0);
  }
  per_task(state, static_cast<double>((std::int64_t{1} << tree_depth) - 1));
}

BENCHMARK(BM_PoolFlat)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OmpTasksFlat)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PoolTree)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OmpTasksTree)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

// bench_dispatch: what one chunk and one loop instance cost under selfsched
// and under libomp's own schedules, side by side in one process.
//
//   bench_dispatch [--threads=2[,4,...]] [--sizes=65536,4096,64] [--total=65536]
//                  [Google Benchmark flags]
//
// Every benchmark times one parallel region running `loops` instances of an
// n-iteration loop (loops = total / n), so n = 65536 gives the cost per chunk
// of a long loop and n = 64 the cost per loop instance of the short loops
// real codes run millions of. Counters (seconds, shown as "12.3n"):
// per_chunk, per_iter, per_loop; chunks is the chunk count of one loop.
//
// Built twice from this file: bench_dispatch (linked with libselfsched, all
// cases) and bench_dispatch_plain (libomp only, the standard cases), which
// compare_forwarding.sh times with and without libselfsched loaded.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "loops.hpp"
#ifdef BENCH_WITH_SELFSCHED
#include "selfsched.h"
#endif

namespace {

using bench::clause;

// libomp 19 kmp.h: kmp_sched_trapezoidal = 101, an extension omp_set_schedule
// accepts (omp.h lists only the standard kinds).
constexpr int libomp_trapezoidal = 101;

struct bench_case {
  const char* name;
  clause form;
  const char* technique = nullptr;  // selfsched technique serving a runtime loop
  int libomp_kind = 0;              // else: libomp's run-sched-var for a runtime loop
};

const bench_case cases[] = {
    {"atomic-floor", clause::atomic_counter},
    {"libomp-static", clause::static_even},
#ifdef BENCH_WITH_SELFSCHED
    {"selfsched-ss", clause::runtime, "ss"},
#endif
    {"libomp-dynamic1-monotonic", clause::monotonic_dynamic1},
    {"libomp-dynamic1-nonmonotonic", clause::nonmonotonic_dynamic1},
#ifdef BENCH_WITH_SELFSCHED
    {"selfsched-gss", clause::runtime, "gss"},
#endif
    {"libomp-guided1", clause::guided1},
#ifdef BENCH_WITH_SELFSCHED
    {"selfsched-fss", clause::runtime, "fss"},
    {"selfsched-tss", clause::runtime, "tss"},
#endif
    {"libomp-trapezoidal", clause::runtime, nullptr, libomp_trapezoidal},
};

#ifdef BENCH_WITH_SELFSCHED
char technique_at_start[64] = "";  // from OMP_SCHEDULE / SELFSCHED_SCHEDULE
#endif

// Runtime loops get the case's technique or libomp kind; loops with a
// standard clause run with the technique the environment chose, if any
// (selfsched forwards them either way).
void choose_schedule(const bench_case& c) {
#ifdef BENCH_WITH_SELFSCHED
  const char* technique = c.technique != nullptr ? c.technique : c.libomp_kind != 0 ? nullptr : technique_at_start;
  if (selfsched_set_schedule(technique, 0) != 0) std::exit(2);
#endif
  if (c.libomp_kind != 0) omp_set_schedule(static_cast<omp_sched_t>(c.libomp_kind), 1);
}

// A loop body cannot see where its chunks begin, so the chunks of one loop
// instance are counted once, outside the timing, by driving the loop through
// the entry points clang 19 emits for it (its IR: ident flags KMP_IDENT_KMPC,
// the kmp.h schedule with the modifier bits below). Linked first,
// libselfsched's entry points are the ones called, as for the pragma loops.
extern "C" {
struct kmp_ident {
  std::int32_t reserved_1, flags, reserved_2, reserved_3;
  const char* psource;
};
std::int32_t __kmpc_global_thread_num(kmp_ident*);
void __kmpc_dispatch_init_8(kmp_ident*, std::int32_t, int, std::int64_t, std::int64_t, std::int64_t, std::int64_t);
int __kmpc_dispatch_next_8(kmp_ident*, std::int32_t, std::int32_t*, std::int64_t*, std::int64_t*, std::int64_t*);
void __kmpc_dispatch_deinit(kmp_ident*, std::int32_t);
}

int clang_schedule(clause form) {
  constexpr int monotonic = 1 << 29, nonmonotonic = 1 << 30;  // kmp.h modifier bits
  switch (form) {
    case clause::runtime: return 37 | nonmonotonic;
    case clause::monotonic_dynamic1: return 35 | monotonic;
    case clause::nonmonotonic_dynamic1: return 35 | nonmonotonic;
    case clause::guided1: return 36 | nonmonotonic;
    default: return 0;
  }
}

std::int64_t chunks_per_loop(clause form, int threads, std::int64_t n) {
  if (form == clause::static_even) return n < threads ? n : threads;
  if (form == clause::atomic_counter) return n;
  kmp_ident loc{0, 2, 0, 22, ";unknown;unknown;0;0;;"};
  std::atomic<std::int64_t> chunks{0}, covered{0};
#pragma omp parallel num_threads(threads)
  {
    const std::int32_t gtid = __kmpc_global_thread_num(&loc);
    __kmpc_dispatch_init_8(&loc, gtid, clang_schedule(form), 0, n - 1, 1, 1);
    std::int32_t last = 0;
    std::int64_t lb = 0, ub = 0, st = 0, mine = 0, iterations = 0;
    while (__kmpc_dispatch_next_8(&loc, gtid, &last, &lb, &ub, &st)) ++mine, iterations += ub - lb + 1;
    __kmpc_dispatch_deinit(&loc, gtid);
    chunks += mine;
    covered += iterations;
  }
  if (covered != n) {
    std::fprintf(stderr, "bench_dispatch: %s loop of %lld iterations covered %lld\n", bench::name_of(form),
                 static_cast<long long>(n), static_cast<long long>(covered.load()));
    std::exit(2);
  }
  return chunks;
}

void time_case(benchmark::State& state, const bench_case& c) {
  const int threads = static_cast<int>(state.range(0));
  const std::int64_t n = state.range(1);
  const int loops = static_cast<int>(state.range(2));
  choose_schedule(c);
  const std::int64_t chunks = chunks_per_loop(c.form, threads, n);
  bench::region region(c.form, threads, n, loops);
  region.run();  // threads started, first-touch done
  for (auto _ : state) region.run();

  using counter = benchmark::Counter;
  const auto per_item = counter::kIsIterationInvariantRate | counter::kInvert;
  state.SetItemsProcessed(state.iterations() * n * loops);
  state.counters["chunks"] = static_cast<double>(chunks);
  state.counters["per_chunk"] = counter(static_cast<double>(chunks * loops), per_item);
  state.counters["per_iter"] = counter(static_cast<double>(n * loops), per_item);
  state.counters["per_loop"] = counter(loops, per_item);
}

// "--name=1,2,3" -> {1, 2, 3}; removes the flag from argv. Exits on a bad list.
std::vector<std::int64_t> take_list(int& argc, char** argv, const char* name, std::vector<std::int64_t> fallback) {
  const std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) != 0) continue;
    std::vector<std::int64_t> values;
    for (const char* p = argv[i] + prefix.size(); *p != '\0';) {
      char* end = nullptr;
      const long long v = std::strtoll(p, &end, 10);
      if (end == p || v <= 0 || (*end != ',' && *end != '\0')) {
        std::fprintf(stderr, "bench_dispatch: %s: expected positive integers separated by commas\n", argv[i]);
        std::exit(1);
      }
      values.push_back(v);
      p = *end == ',' ? end + 1 : end;
    }
    for (int j = i; j < argc; ++j) argv[j] = argv[j + 1];
    --argc;
    return values;
  }
  return fallback;
}

std::string library_of(const void* symbol) {
  Dl_info info{};
  return dladdr(symbol, &info) != 0 && info.dli_fname != nullptr ? info.dli_fname : "?";
}

}  // namespace

int main(int argc, char** argv) {
  const auto thread_counts = take_list(argc, argv, "threads", {2});
  const auto sizes = take_list(argc, argv, "sizes", {65536, 4096, 64});
  const auto total = take_list(argc, argv, "total", {65536}).front();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

#ifdef BENCH_WITH_SELFSCHED
  selfsched_get_schedule(technique_at_start, sizeof technique_at_start);
  benchmark::AddCustomContext("selfsched_schedule_at_start", technique_at_start);
#endif
  benchmark::AddCustomContext("libomp", library_of(reinterpret_cast<const void*>(&omp_get_num_threads)));
  benchmark::AddCustomContext("dispatch_next_8", library_of(reinterpret_cast<const void*>(&__kmpc_dispatch_next_8)));
  for (const bench_case& c : cases)
    for (std::int64_t n : sizes)
      for (std::int64_t threads : thread_counts)
        benchmark::RegisterBenchmark(c.name, [&c](benchmark::State& s) { time_case(s, c); })
            ->Args({threads, n, std::max<std::int64_t>(1, total / n)})
            ->ArgNames({"threads", "n", "loops"})
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}

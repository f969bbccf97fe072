// bench_core: the cost of one chunk, per technique, for p = 2 ... 4096 workers
// and n = 10^3 ... 10^12 iterations. A claim must cost the same whatever p
// and n are (DESIGN.md: no O(p) scan per chunk); the summary at the end gives,
// per technique, the cheapest and the dearest chunk over all (p, n).
//
//   bench_core --benchmark_counters_tabular=true     (make bench)
//   bench_core --benchmark_filter='plan/'            (only chunk_plan::at)
//
// scheduler/NAME/p:P/n:N  one scheduler::next() (plus record() for adaptive
//                         techniques: the claim protocol of a learning loop),
//                         workers asking in turn, weights 1, 0.5, 0.8, 0.25, ...
// plan/NAME/p:P/n:N       chunk_plan::at(step, hint) of a fixed technique,
//                         one hint per worker: the claim of a binding after
//                         its fetch-and-add.
// Loops are prepared with the timer paused; when one ends, the next starts.
// chunks/loop counts at most 2^14 chunks for the scheduler rows.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "selfsched/core.hpp"

namespace {

using namespace selfsched;

constexpr int kWorkers[] = {2, 8, 64, 512, 4096};
constexpr iter_t kSizes[] = {1'000, 1'000'000, 1'000'000'000, 1'000'000'000'000};
constexpr const char* kMinTime = "--benchmark_min_time=0.02";  // default: the whole run stays near a minute

loop_params params(int p, iter_t n) {
  loop_params lp;
  lp.n = n;
  lp.p = p;
  constexpr double pattern[] = {1.0, 0.5, 0.8, 0.25};
  for (int k = 0; k < p; ++k) lp.powers.push_back(pattern[k % 4]);
  return lp;
}

std::string size_name(iter_t n) { return "1e" + std::to_string(static_cast<int>(std::lround(std::log10(static_cast<double>(n))))); }

// Fresh schedulers for enough loops to cover about 2^14 chunks, so that the
// paused refill is rare even when a loop has only p chunks.
class loop_supply {
 public:
  loop_supply(schedule_spec spec, loop_params lp) : spec_(spec), lp_(std::move(lp)) {
    scheduler probe(spec_, lp_);
    while (chunks_per_loop_ < kCover && probe.next(0).size > 0) ++chunks_per_loop_;
    loops_per_refill_ = static_cast<std::size_t>((kCover + chunks_per_loop_ - 1) / std::max<iter_t>(1, chunks_per_loop_));
    refill();
  }
  scheduler& current() { return *loops_[next_]; }
  bool advance() {  // false: refill needed
    return ++next_ < loops_.size();
  }
  void refill() {
    loops_.clear();
    for (std::size_t i = 0; i < loops_per_refill_; ++i) loops_.push_back(std::make_unique<scheduler>(spec_, lp_));
    next_ = 0;
  }
  iter_t chunks_per_loop() const { return chunks_per_loop_; }

 private:
  static constexpr iter_t kCover = 1 << 14;
  schedule_spec spec_;
  loop_params lp_;
  iter_t chunks_per_loop_ = 0;
  std::size_t loops_per_refill_ = 1;
  std::vector<std::unique_ptr<scheduler>> loops_;
  std::size_t next_ = 0;
};

void scheduler_chunk(benchmark::State& state, schedule_spec spec, int p, iter_t n) {
  loop_supply supply(spec, params(p, n));
  const bool adaptive = spec.base->kind == technique_kind::adaptive;
  int worker = 0;
  for (auto _ : state) {
    chunk c = supply.current().next(worker);
    if (c.size == 0) {  // this loop is done: the next one
      if (!supply.advance()) {
        state.PauseTiming();
        supply.refill();
        state.ResumeTiming();
      }
      c = supply.current().next(worker);
    }
    if (adaptive) supply.current().record(worker, c.size, 1e-7 * static_cast<double>(c.size) * (1 + worker % 3));
    benchmark::DoNotOptimize(c);
    if (++worker == p) worker = 0;
  }
  state.counters["p"] = p;
  state.counters["chunks/loop"] = static_cast<double>(supply.chunks_per_loop());
}

void plan_chunk(benchmark::State& state, schedule_spec spec, int p, iter_t n) {
  const loop_params lp = params(p, n);
  const technique_ptr t = make_schedule(spec, lp);
  const std::optional<chunk_plan> plan = chunk_plan::build(*t, lp);
  if (!plan) {
    state.SkipWithError("no chunk plan within the default limits: served by the scheduler");
    for (auto _ : state) {
    }
    return;
  }
  std::vector<std::size_t> hint(static_cast<std::size_t>(p), 0);
  iter_t step = 0;
  int worker = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(plan->at(step, hint[static_cast<std::size_t>(worker)]));
    if (++step == plan->chunk_count()) step = 0;
    if (++worker == p) worker = 0;
  }
  state.counters["p"] = p;
  state.counters["chunks/loop"] = static_cast<double>(plan->chunk_count());
  state.counters["runs"] = static_cast<double>(plan->segment_count());
}

// The console table, then per "mode/technique" the range of ns per chunk.
class spread_reporter : public benchmark::ConsoleReporter {
 public:
  using ConsoleReporter::ConsoleReporter;
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred || run.run_type != Run::RT_Iteration) continue;
      const std::string name = run.benchmark_name();
      const std::string family = name.substr(0, name.find("/p:"));
      // CPU time: on a shared machine wall time also counts other jobs.
      const double ns = run.GetAdjustedCPUTime() * 1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit);
      spread& s = spreads_[family];
      if (s.count++ == 0 || ns < s.low) s.low = ns, s.low_at = name.substr(family.size() + 1);
      if (ns > s.high) s.high = ns, s.high_at = name.substr(family.size() + 1);
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    if (spreads_.empty()) return;
    std::printf("\nCPU ns per chunk over p = 2..4096, n = 1e3..1e12 (cheapest, dearest, dearest / cheapest):\n");
    for (const auto& [family, s] : spreads_)
      std::printf("  %-26s %8.1f %8.1f  %5.2fx  (dearest at %s)\n", family.c_str(), s.low, s.high, s.high / s.low,
                  s.high_at.c_str());
  }

 private:
  struct spread {
    int count = 0;
    double low = 0, high = 0;
    std::string low_at, high_at;
  };
  std::map<std::string, spread> spreads_;
};

void register_all() {
  std::vector<std::string> names;
  for (const auto& t : catalog()) names.emplace_back(t.name);
  for (const char* mechanism : {"w-gss", "gss-80", "w-fss-auto"}) names.emplace_back(mechanism);
  // All scheduler rows, then all plan rows: one table header each.
  for (const bool via_plan : {false, true})
    for (const auto& name : names) {
      const schedule_spec spec = parse_schedule(name).spec;
      if (via_plan && !is_fixed(spec)) continue;
      for (const int p : kWorkers)
        for (const iter_t n : kSizes) {
          const std::string bench = (via_plan ? "plan/" : "scheduler/") + name + "/p:" + std::to_string(p) + "/n:" + size_name(n);
          benchmark::RegisterBenchmark(bench.c_str(), via_plan ? plan_chunk : scheduler_chunk, spec, p, n);
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
  // The summary rides on the console reporter; other formats get the default.
  bool console = true, tabular = false, min_time = false;
  std::vector<char*> args(argv, argv + argc);
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--benchmark_format=") && arg != "--benchmark_format=console") console = false;
    if (arg == "--benchmark_counters_tabular=true" || arg == "--benchmark_counters_tabular") tabular = true;
    if (arg.starts_with("--benchmark_min_time")) min_time = true;
  }
  std::string default_min_time = kMinTime;
  if (!min_time) args.insert(args.begin() + 1, default_min_time.data());
  argc = static_cast<int>(args.size());
  args.push_back(nullptr);
  argv = args.data();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_all();
  if (console) {
    const int color = isatty(STDOUT_FILENO) ? benchmark::ConsoleReporter::OO_Color : benchmark::ConsoleReporter::OO_None;
    const int table = tabular ? benchmark::ConsoleReporter::OO_Tabular : benchmark::ConsoleReporter::OO_None;
    spread_reporter reporter(static_cast<benchmark::ConsoleReporter::OutputOptions>(color | table));
    benchmark::RunSpecifiedBenchmarks(&reporter);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();
  return 0;
}

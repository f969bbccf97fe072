// The wavefront API (selfsched/wavefront.hpp, selfsched_wavefront.h) on
// real threads: random uniform dependence vectors in 2-D and 3-D spaces of
// random sizes, every catalog technique under S and SW, 1-4 threads, each
// result identical to serial execution and each iteration run once; illegal
// vectors and bad options rejected with a clear message before anything
// runs; an exception in the body stops the wavefront and reaches the caller.
//
//   omp_wavefront [--shard K/N] [technique ...]
#include <omp.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "case_watchdog.hpp"
#include "selfsched/core/registry.hpp"
#include "selfsched/wavefront.hpp"
#include "selfsched_wavefront.h"

namespace {

using index3 = std::array<std::int64_t, 3>;

using case_watchdog::begin_case;
using case_watchdog::check;
using case_watchdog::failures;

std::string show(const std::vector<index3>& deps, int rank) {
  std::string text;
  for (const auto& d : deps) {
    text += "(";
    for (int k = 0; k < rank; ++k) text += (k ? "," : "") + std::to_string(d[k]);
    text += ")";
  }
  return text;
}

std::uint64_t mix(std::uint64_t x) { return (x ^ (x >> 31)) * 0x94d049bb133111ebULL + 0x2545f4914f6cdd1dULL; }

// v[x] = mix(x + sum_d (2d+1) v[x - d]): any dependence honoured late, or an
// iteration run twice or never, changes the result.
struct space {
  int rank;
  index3 extents;
  std::vector<index3> deps;
  std::vector<std::uint64_t> value;
  std::vector<std::atomic<int>> runs;

  space(int r, index3 e, std::vector<index3> d)
      : rank(r), extents(e), deps(std::move(d)), value(size()), runs(size()) {}
  std::size_t size() const {
    std::size_t n = 1;
    for (int k = 0; k < rank; ++k) n *= static_cast<std::size_t>(extents[k]);
    return n;
  }
  std::int64_t linear(const index3& x) const {
    std::int64_t at = 0;
    for (int k = 0; k < rank; ++k) at = at * extents[k] + x[k];
    return at;
  }
  std::atomic_ref<std::uint64_t> cell(const index3& x) {
    return std::atomic_ref<std::uint64_t>(value[static_cast<std::size_t>(linear(x))]);
  }
  void body(const index3& x) {
    std::uint64_t sum = static_cast<std::uint64_t>(linear(x)) + 1;
    for (std::size_t v = 0; v < deps.size(); ++v) {
      index3 y{};
      bool inside = true;
      for (int k = 0; k < rank; ++k) {
        y[k] = x[k] - deps[v][k];
        inside = inside && y[k] >= 0 && y[k] < extents[k];
      }
      const std::uint64_t source = inside ? cell(y).load(std::memory_order_relaxed) : 0;
      sum += (2 * v + 1) * source;
    }
    // Some work, so that chunks overlap in time; thread 0 is 8x slower, so
    // that without the synchronization points later chunks would overtake.
    volatile std::uint64_t busy = sum;
    for (int w = omp_get_thread_num() == 0 ? 200 : 25; w > 0; --w) busy = mix(busy);
    cell(x).store(mix(sum), std::memory_order_relaxed);
    runs[static_cast<std::size_t>(linear(x))].fetch_add(1, std::memory_order_relaxed);
  }
  void serial() {
    index3 x{};
    const std::int64_t e2 = rank == 3 ? extents[2] : 1;
    for (x[0] = 0; x[0] < extents[0]; ++x[0])
      for (x[1] = 0; x[1] < extents[1]; ++x[1])
        for (x[2] = 0; x[2] < e2; ++x[2]) body(x);
  }
  int ran_once() const {
    int wrong = 0;
    for (const auto& r : runs) wrong += r.load() != 1;
    return wrong;
  }
};

template <std::size_t Rank>
std::vector<std::array<std::int64_t, Rank>> narrow(const std::vector<index3>& deps) {
  std::vector<std::array<std::int64_t, Rank>> out;
  for (const auto& d : deps) {
    std::array<std::int64_t, Rank> v{};
    for (std::size_t k = 0; k < Rank; ++k) v[k] = d[k];
    out.push_back(v);
  }
  return out;
}

// Runs one problem in parallel and serially; false if the API rejected it.
template <std::size_t Rank>
bool run_case(int rank, index3 extents, const std::vector<index3>& deps, const selfsched::wavefront_options& o) {
  space parallel(rank, extents, deps), reference(rank, extents, deps);
  reference.serial();
  std::array<std::int64_t, Rank> e{};
  for (std::size_t k = 0; k < Rank; ++k) e[k] = extents[k];
  std::vector<selfsched_wavefront_chunk> log(4096);
  try {
    const selfsched::wavefront_report r = selfsched::wavefront<Rank>(
        e, narrow<Rank>(deps),
        [&](const std::array<std::int64_t, Rank>& x) {
          index3 y{};
          for (std::size_t k = 0; k < Rank; ++k) y[k] = x[k];
          parallel.body(y);
        },
        o, log.data(), static_cast<std::int64_t>(log.size()));
    check(parallel.value == reference.value, "result differs from serial execution");
    check(parallel.ran_once() == 0, std::to_string(parallel.ran_once()) + " iterations did not run exactly once");
    if (r.chunks <= static_cast<std::int64_t>(log.size())) {
      std::int64_t next = 0;
      for (std::int64_t c = 0; c < r.chunks; ++c) {
        check(log[c].start == next, "chunk " + std::to_string(c) + " does not follow its predecessor");
        next = log[c].start + log[c].size;
      }
      check(next == r.chunk_extent, "chunks do not cover the skewed chunk dimension");
    }
    check(r.sync_interval >= 1 && r.intervals <= r.sync_points, "SI / #SP inconsistent");
    return true;
  } catch (const selfsched::wavefront_error& error) {
    check(parallel.ran_once() == static_cast<int>(parallel.size()), "rejected problem ran some iterations");
    check(std::string(error.what()).find("selfsched_wavefront: ") == 0, std::string("message: ") + error.what());
    return false;
  }
}

index3 random_vector(int rank, std::mt19937& rng) {
  std::uniform_int_distribution<int> component(-2, 2);
  while (true) {
    index3 d{};
    for (int k = 0; k < rank; ++k) d[k] = component(rng);
    int lead = 0;
    for (int k = 0; k < rank && lead == 0; ++k) lead = d[k] > 0 ? 1 : d[k] < 0 ? -1 : 0;
    if (lead > 0) return d;  // lexicographically positive: a valid serial loop
  }
}

void random_problems(const std::string& technique, int threads, std::mt19937& rng, int& accepted, int& rejected) {
  for (int trial = 0; trial < 4; ++trial) {
    const int rank = 2 + static_cast<int>(rng() % 2);
    index3 extents{1, 1, 1};
    for (int k = 0; k < rank; ++k) extents[k] = 1 + static_cast<std::int64_t>(rng() % (rank == 2 ? 40 : 12));
    std::vector<index3> deps;
    for (int v = 1 + static_cast<int>(rng() % 4); v > 0; --v) deps.push_back(random_vector(rank, rng));
    selfsched::wavefront_options o;
    o.technique = technique;
    o.threads = threads;
    o.sync_points = rng() % 2 ? 0 : 1 + static_cast<std::int64_t>(rng() % 10);
    if (rng() % 4 == 0) o.sync_dim = static_cast<int>(rng() % rank);
    if (rng() % 4 == 0) o.chunk_dim = static_cast<int>(rng() % rank);
    if (o.chunk_dim == o.sync_dim) o.chunk_dim = -1;
    if (rng() % 5 == 0) o.max_chunk = 1 + static_cast<std::int64_t>(rng() % 5);
    begin_case(technique + " threads=" + std::to_string(threads) + " rank " + std::to_string(rank) + " extents " +
               std::to_string(extents[0]) + "x" + std::to_string(extents[1]) + "x" + std::to_string(extents[2]) +
               " deps " + show(deps, rank) + " #SP " + std::to_string(o.sync_points) + " dims s" +
               std::to_string(o.sync_dim) + " c" + std::to_string(o.chunk_dim));
    const bool ok = rank == 2 ? run_case<2>(rank, extents, deps, o) : run_case<3>(rank, extents, deps, o);
    ++(ok ? accepted : rejected);
    // Unforced dimensions always have a legal choice (u_s = 0, u_c = 1).
    if (o.sync_dim < 0 && o.chunk_dim < 0) check(ok, "unforced dimensions rejected");
  }
}

// The seed's two test cases, by their dependence vectors.
void seed_cases(const std::string& technique, int threads) {
  selfsched::wavefront_options o;
  o.technique = technique;
  o.threads = threads;
  begin_case(technique + " threads=" + std::to_string(threads) + " Floyd-Steinberg vectors");
  check(run_case<2>(2, {23, 31, 1}, {{0, 1}, {0, 2}, {1, -2}, {1, -1}, {1, 0}, {1, 1}}, o), "Floyd-Steinberg rejected");
  begin_case(technique + " threads=" + std::to_string(threads) + " Hydro vectors");
  check(run_case<3>(3, {17, 4, 29}, {{1, -1, 0}, {0, 1, 0}, {1, 0, -1}, {0, 0, 1}}, o), "Hydro rejected");
}

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const selfsched::wavefront_error& e) {
    return e.what();
  }
  return "";
}

void illegal_input() {
  begin_case("illegal input");
  auto nothing = [](std::int64_t, std::int64_t) {};
  const std::string backwards =
      error_of([&] { selfsched::wavefront<2>({5, 5}, {{-1, 1}}, nothing); });
  check(backwards == "selfsched_wavefront: dependence (-1, 1) is not lexicographically positive: in the loop's "
                     "written order (dimension 0 outermost) an iteration would need a later one",
        "lexicographically negative vector: '" + backwards + "'");
  selfsched::wavefront_options forced;
  forced.sync_dim = 1;
  const std::string sync = error_of([&] { selfsched::wavefront<2>({5, 5}, {{1, -1}}, nothing, forced); });
  check(sync.find("dependence (1, -1) with u_s = dimension 1, u_c = dimension 0 steps back along u_s") !=
            std::string::npos,
        "vector against u_s: '" + sync + "'");
  check(error_of([&] { selfsched::wavefront<2>({5, 5}, {{0, 0}}, nothing); }).find("is zero") != std::string::npos,
        "zero vector accepted");
  selfsched::wavefront_options unknown;
  unknown.technique = "s-fsss";
  const std::string name = error_of([&] { selfsched::wavefront<2>({5, 5}, {{1, 0}}, nothing, unknown); });
  check(name.find("technique: unknown technique 'fsss'; valid: static, ss/pss, css") != std::string::npos,
        "unknown technique: '" + name + "'");
  selfsched::wavefront_options thresholds;
  thresholds.min_chunk = 10;
  thresholds.max_chunk = 5;
  check(error_of([&] { selfsched::wavefront<2>({5, 5}, {{1, 0}}, nothing, thresholds); })
                .find("maximum chunk 5 is below the minimum chunk 10") != std::string::npos,
        "max < min accepted");

  // The C API: return code and message.
  const std::int64_t extents[4] = {3, 3, 3, 3};
  const std::int64_t deps[2] = {0, -1};
  auto point = [](const std::int64_t*, void*) {};
  check(selfsched_wavefront(4, extents, deps, 0, nullptr, point, nullptr, nullptr) == -1 &&
            std::string(selfsched_wavefront_error()) == "selfsched_wavefront: rank 4 is not supported; valid: 2, 3",
        std::string("C rank 4: '") + selfsched_wavefront_error() + "'");
  check(selfsched_wavefront(2, extents, deps, 1, nullptr, point, nullptr, nullptr) == -1 &&
            std::string(selfsched_wavefront_error()).find("(0, -1) is not lexicographically positive") !=
                std::string::npos,
        std::string("C (0,-1): '") + selfsched_wavefront_error() + "'");
}

// The C API, one call per point, against serial; and an exception in the body.
void c_api_and_exception() {
  begin_case("C API");
  space parallel(2, {30, 20, 1}, {{1, 0}, {0, 1}, {1, -1}}), reference(2, {30, 20, 1}, {{1, 0}, {0, 1}, {1, -1}});
  reference.serial();
  const std::int64_t extents[2] = {30, 20};
  const std::int64_t deps[6] = {1, 0, 0, 1, 1, -1};
  selfsched_wavefront_options o = SELFSCHED_WAVEFRONT_OPTIONS_INIT;
  o.technique = "sw-gss";
  o.threads = 3;
  selfsched_wavefront_report report{};
  const int status = selfsched_wavefront(
      2, extents, deps, 3, &o,
      [](const std::int64_t* x, void* self) { static_cast<space*>(self)->body({x[0], x[1], 0}); }, &parallel, &report);
  check(status == 0 && std::string(selfsched_wavefront_error()).empty(), "C API failed");
  check(parallel.value == reference.value && parallel.ran_once() == 0, "C API result differs from serial");
  check(std::string(report.technique) == "sw-gss" && report.skew == 1 && report.threads >= 1,
        "C API report: technique " + std::string(report.technique) + " skew " + std::to_string(report.skew));

  begin_case("exception in the body");
  std::atomic<int> ran{0};
  bool caught = false;
  try {
    selfsched::wavefront<2>({50, 50}, {{1, 0}, {0, 1}}, [&](std::int64_t i, std::int64_t j) {
      ran.fetch_add(1);
      if (i == 20 && j == 20) throw std::runtime_error("stop here");
    }, {.technique = "s-fss", .threads = 4});
  } catch (const std::runtime_error& e) {
    caught = std::string(e.what()) == "stop here";
  }
  check(caught, "the body's exception did not reach the caller");
  check(ran.load() < 2500, "the wavefront ran on after the exception");
}

}  // namespace

int main(int argc, char** argv) {
  case_watchdog::sharded_run run = case_watchdog::parse_sharded_run(argc, argv);
  const int shard = run.shard, shards = run.shards;
  std::vector<std::string>& techniques = run.techniques;
  if (techniques.empty())
    for (const auto& t : selfsched::catalog())
      for (const char* prefix : {"s-", "sw-"}) techniques.push_back(prefix + std::string(t.name));

  case_watchdog::start_watchdog();
  if (shard == 0) {
    illegal_input();
    c_api_and_exception();
  }
  std::mt19937 rng(808 + static_cast<unsigned>(shard));
  int accepted = 0, rejected = 0, index = 0;
  for (const std::string& technique : techniques) {
    if (index++ % shards != shard) continue;
    for (int threads = 1; threads <= 4; ++threads) {
      seed_cases(technique, threads);
      random_problems(technique, threads, rng, accepted, rejected);
    }
  }
  case_watchdog::end_cases();
  if (failures) {
    std::fprintf(stderr, "%d failures\n", failures);
    return 1;
  }
  std::printf("ok: %d random problems equal to serial, %d rejected with a message\n", accepted, rejected);
  return 0;
}

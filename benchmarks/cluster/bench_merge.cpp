// What one rank pays per page it writes between two synchronization points
// in cluster mode (mpi_bridge/write_tracking/tracking.hpp): the kernel's write
// tracking, the diff against the page's copy, writing the runs, applying
// them, and the copy's refresh. Pages written for the first time since
// they were protected pay a minor fault; pages written at every step stay
// unprotected. `make bench-cluster` (docs/results/cluster.md). Beside them,
// the same writes to untracked memory (what the program pays anyway), and
// what an untracked program pays for its first write to a fresh page.
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "page_diff.hpp"
#include "tracking.hpp"

using namespace selfsched::cluster;

namespace {

constexpr std::size_t region_pages = 1 << 14;  // 64 MiB

struct fixture {
  std::byte* memory = nullptr;
  page_tracker tracker;
  std::vector<address_range> ranges;
  std::vector<std::byte> blob = std::vector<std::byte>(std::size_t{256} << 20);
  bool ok = false;
  fixture() {
    void* p = mmap(nullptr, region_pages * page_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    memory = static_cast<std::byte*>(p);
    const auto begin = reinterpret_cast<std::uintptr_t>(memory);
    std::string why;
    ok = p != MAP_FAILED && tracker.start({begin, begin + region_pages * page_bytes}, why);
    std::memset(memory, 1, region_pages * page_bytes);  // every page present
    ranges = {{begin, begin + region_pages * page_bytes}};
    std::vector<std::uintptr_t> written;
    tracker.begin_window(ranges, true, written);
    tracker.grow_heap(ranges[0], true);
  }
};

// What the program writes in one step: range(0) pages from `first`; range(1)
// what each page gets: 0 = one double in 64, 1 = every byte, 2 = every
// 32-bit count, small (its two low bytes change, as in an image of escape
// counts: runs of one or two bytes all through the page).
void write_pages(std::byte* memory, std::size_t first, std::size_t pages, std::int64_t content, std::size_t step) {
  for (std::size_t p = 0; p < pages; ++p) {
    std::byte* page = memory + (first + p) * page_bytes;
    if (content == 1) std::memset(page, static_cast<int>(step), page_bytes);
    else if (content == 2)
      for (std::size_t at = 0; at < page_bytes; at += 4) {
        const std::uint32_t count = static_cast<std::uint32_t>((step * 7 + at) % 2000);
        std::memcpy(page + at, &count, 4);
      }
    else for (std::size_t at = 0; at < page_bytes; at += 512) page[at] = static_cast<std::byte>(step);
  }
}

// range(0), range(1): as write_pages; range(2): 1 = the same pages every
// step (hot), 0 = fresh.
void merge_step(benchmark::State& state) {
  static fixture f;
  if (!f.ok) return state.SkipWithError("no write tracking");
  const auto pages = static_cast<std::size_t>(state.range(0));
  const auto content = state.range(1);
  const bool hot = state.range(2) != 0;
  std::size_t first = 0, step = 0;
  for (auto _ : state) {
    if (!hot) first = (first + pages) % (region_pages - pages);
    write_pages(f.memory, first, pages, content, ++step);
    diff_writer w(f.blob.data(), f.blob.size());
    w.begin({});
    f.tracker.write_diffs(f.ranges, w);
    const std::size_t bytes = w.finish();
    diff_reader r(f.blob.data(), bytes);
    f.tracker.apply(r);  // another rank's runs (here the same ones, at the same places)
    f.tracker.finish_merge(f.ranges);
    benchmark::DoNotOptimize(bytes);
  }
  // Seconds per page written (CPU time: the machine is shared).
  state.counters["per_page"] = benchmark::Counter(static_cast<double>(pages),
                                                  benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["kernel_tracking"] = f.tracker.write_protected();
}
BENCHMARK(merge_step)
    ->ArgNames({"pages", "content", "hot"})
    ->ArgsProduct({{16, 256, 2048}, {0, 1, 2}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

// The diff alone (find_changes, page_diff.hpp): one page against its shadow,
// both in cache, content as write_pages gives it. No kernel here, so
// callgrind counts it (merge_step's write tracking does not run under
// valgrind).
void diff_page(benchmark::State& state) {
  alignas(4096) static std::byte shadow[page_bytes], now[page_bytes];
  std::memset(shadow, 1, page_bytes);
  std::memcpy(now, shadow, page_bytes);
  write_pages(now, 0, 1, state.range(0), 2);
  page_changes changes;
  for (auto _ : state) {
    benchmark::DoNotOptimize(find_changes(shadow, now, 0, changes));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(diff_page)->ArgNames({"content"})->DenseRange(0, 2)->Unit(benchmark::kNanosecond);

// The program's own writes of merge_step, to memory nobody tracks (present,
// as the tracked memory is): what merge_step costs beyond this is cluster
// mode's (the write faults, diff, apply, the copy's refresh).
void writes_alone(benchmark::State& state) {
  static std::byte* memory = [] {
    void* p = mmap(nullptr, region_pages * page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return static_cast<std::byte*>(nullptr);
    std::memset(p, 1, region_pages * page_bytes);
    return static_cast<std::byte*>(p);
  }();
  if (memory == nullptr) return state.SkipWithError("mmap failed");
  const auto pages = static_cast<std::size_t>(state.range(0));
  const bool hot = state.range(2) != 0;
  std::size_t first = 0, step = 0;
  for (auto _ : state) {
    if (!hot) first = (first + pages) % (region_pages - pages);
    write_pages(memory, first, pages, state.range(1), ++step);
    benchmark::ClobberMemory();
  }
  state.counters["per_page"] = benchmark::Counter(static_cast<double>(pages),
                                                  benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(writes_alone)
    ->ArgNames({"pages", "content", "hot"})
    ->ArgsProduct({{16, 256, 2048}, {0, 1, 2}, {0, 1}})
    ->Unit(benchmark::kMicrosecond);

// The baseline a machine sets: a program's first write to a fresh page,
// with no tracking at all (a minor fault and a zeroed page). A tracked
// page's write fault costs about as much; on VMs whose faults are slow both
// are, whatever selfsched does.
void first_touch_untracked(benchmark::State& state) {
  const auto pages = static_cast<std::size_t>(state.range(0));
  for (auto _ : state) {
    void* p = mmap(nullptr, pages * page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return state.SkipWithError("mmap failed");
    auto* bytes = static_cast<volatile std::byte*>(p);
    for (std::size_t i = 0; i < pages; ++i) bytes[i * page_bytes] = std::byte{1};
    munmap(p, pages * page_bytes);
  }
  state.counters["per_page"] = benchmark::Counter(static_cast<double>(pages),
                                                  benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(first_touch_untracked)->ArgNames({"pages"})->Arg(256)->Arg(2048)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();

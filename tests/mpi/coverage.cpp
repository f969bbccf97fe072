// Shared loops across ranks, run for real under mpirun: every iteration of
// every loop form runs exactly once across all ranks and threads, for each
// (outer, inner) technique pair, and the region's result movement delivers.
//
//   mpi_coverage [--pairs fss:fss,gss:static,...] [--thread-level multiple|serialized|funneled|single]
//                [--misuse none|mismatch|skip] [--n N]
//
// Prints "mpi_coverage: ... ok=1" on rank 0 and exits 0, or lists what went
// wrong and exits 1. --misuse runs a deliberately wrong program: the region
// must stop the job with a message instead of hanging.
#include <mpi.h>
#include <omp.h>

#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include <unistd.h>

#include "selfsched.h"
#include "selfsched/mpi.hpp"

namespace {

namespace sm = selfsched::mpi;

int rank = 0, ranks = 1;
std::vector<std::string> failures;
int shared_loops = 0;  // loops that more than one rank worked on

void expect(bool ok, const std::string& what) {
  if (!ok) failures.push_back(what);
}

// A little irregular work, so ranks and threads interleave their chunks.
void work(std::int64_t i) {
  volatile std::uint64_t x = static_cast<std::uint64_t>(i);
  for (int k = 0; k < 200 + 150 * static_cast<int>(i % 7); ++k) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
}

void bump(std::vector<int>& counts, std::int64_t i) {
  work(i);
  std::atomic_ref<int>(counts[static_cast<std::size_t>(i)]).fetch_add(1, std::memory_order_relaxed);
}

// On rank 0, after the counts of all ranks were summed there.
void expect_once(const std::vector<int>& counts, const std::string& what) {
  if (rank != 0) return;
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i] != 1) {
      expect(false, what + ": iteration " + std::to_string(i) + " ran " + std::to_string(counts[i]) +
                        " times across the ranks");
      return;
    }
}

sm::options with(const std::string& outer) { return sm::options().schedule(outer); }

void forms(const std::string& outer, std::int64_t n) {
  const std::string pair = outer + " over ranks";
  {  // the plain form, 64-bit
    std::vector<int> counts(n);
    sm::region r(MPI_COMM_WORLD, with(outer).reduce(counts.data(), static_cast<int>(n), MPI_INT, MPI_SUM, 0));
#pragma omp parallel for schedule(runtime)
    for (std::int64_t i = 0; i < n; ++i) bump(counts, i);
    expect_once(counts, pair + ", parallel for");
  }
  {  // 32-bit, offset and stride 3; and 32-bit unsigned, counting down
    const int m = static_cast<int>(n / 2 + 1);
    std::vector<int> up(m), down(m);
    sm::region r(MPI_COMM_WORLD, with(outer).after_loop([&](const sm::loop_info& info) {
      std::vector<int>& counts = info.index == 0 ? up : down;
      MPI_Reduce(rank == 0 ? MPI_IN_PLACE : counts.data(), counts.data(), m, MPI_INT, MPI_SUM, 0, info.comm);
    }));
#pragma omp parallel for schedule(runtime)
    for (int i = 5; i < 5 + 3 * m; i += 3) bump(up, (i - 5) / 3);
#pragma omp parallel for schedule(runtime)
    for (unsigned i = static_cast<unsigned>(m); i > 0; --i) bump(down, i - 1);
    expect_once(up, pair + ", int loop with stride 3");
    expect_once(down, pair + ", unsigned loop counting down");
  }
  {  // two nowait loops in one parallel region, then a loop outside any
    std::vector<int> a(n), b(n / 3 + 1), c(n / 5 + 1);
    std::vector<int>* by_loop[] = {&a, &b, &c};
    sm::region r(MPI_COMM_WORLD, with(outer).after_loop([&](const sm::loop_info& info) {
      std::vector<int>& counts = *by_loop[info.index];
      MPI_Reduce(rank == 0 ? MPI_IN_PLACE : counts.data(), counts.data(), static_cast<int>(counts.size()), MPI_INT,
                 MPI_SUM, 0, info.comm);
    }));
#pragma omp parallel
    {
#pragma omp for schedule(runtime) nowait
      for (std::int64_t i = 0; i < n; ++i) bump(a, i);
#pragma omp for schedule(runtime) nowait
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(b.size()); ++i) bump(b, i);
    }
#pragma omp for schedule(runtime)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(c.size()); ++i) bump(c, i);
    expect_once(a, pair + ", first nowait loop");
    expect_once(b, pair + ", second nowait loop");
    expect_once(c, pair + ", loop outside a parallel region");
  }
  {  // more nowait loops in one parallel region than rma has counters (16)
    constexpr int loops = 40;
    std::vector<std::vector<int>> counts(loops);
    for (int k = 0; k < loops; ++k) counts[k].assign(static_cast<std::size_t>(17 + k), 0);
    sm::region r(MPI_COMM_WORLD, with(outer).after_loop([&](const sm::loop_info& info) {
      std::vector<int>& c = counts[info.index];
      MPI_Reduce(rank == 0 ? MPI_IN_PLACE : c.data(), c.data(), static_cast<int>(c.size()), MPI_INT, MPI_SUM, 0,
                 info.comm);
    }));
#pragma omp parallel
    for (int k = 0; k < loops; ++k) {
#pragma omp for schedule(runtime) nowait
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(counts[k].size()); ++i) bump(counts[k], i);
    }
    for (int k = 0; k < loops; ++k) expect_once(counts[k], pair + ", nowait loop " + std::to_string(k) + " of 40");
  }
  {  // collapse(2), and loops smaller than the rank count
    const int rows = 17, cols = 13;
    std::vector<int> grid(rows * cols), one(1), two(2);
    std::vector<int>* by_loop[] = {&grid, &one, &two};
    sm::region r(MPI_COMM_WORLD, with(outer).after_loop([&](const sm::loop_info& info) {
      std::vector<int>& counts = *by_loop[info.index];
      MPI_Reduce(rank == 0 ? MPI_IN_PLACE : counts.data(), counts.data(), static_cast<int>(counts.size()), MPI_INT,
                 MPI_SUM, 0, info.comm);
    }));
#pragma omp parallel for collapse(2) schedule(runtime)
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) bump(grid, i * cols + j);
#pragma omp parallel for schedule(runtime)
    for (std::int64_t i = 0; i < 1; ++i) bump(one, i);
#pragma omp parallel for schedule(runtime)
    for (std::int64_t i = 0; i < 2; ++i) bump(two, i);
    expect_once(grid, pair + ", collapse(2)");
    expect_once(one, pair + ", one iteration");
    expect_once(two, pair + ", two iterations");
  }
  {  // result movement: fixed rows to every rank, variable rows to rank 0, a reduction
    std::vector<std::int64_t> squares(n, -1);
    std::vector<std::string> texts(n);
    std::int64_t sum = 0;
    sm::region r(MPI_COMM_WORLD,
                 with(outer)
                     .gather_rows(squares.data(), sizeof(std::int64_t), sm::all_ranks)
                     .gather_rows(
                         [&](selfsched::iter_t i) { return std::as_bytes(std::span(texts[i].data(), texts[i].size())); },
                         [&](selfsched::iter_t i, std::span<const std::byte> bytes) {
                           texts[i].assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
                         },
                         0)
                     .reduce(&sum, 1, MPI_INT64_T, MPI_SUM));
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
    for (std::int64_t i = 0; i < n; ++i) {
      usleep(100);  // long enough that every rank gets chunks, even on a loaded machine
      squares[i] = i * i + 1;
      texts[i] = std::string(static_cast<std::size_t>(i % 5), static_cast<char>('a' + i % 26));
      sum += i;
    }
    for (std::int64_t i = 0; i < n; ++i)
      if (squares[i] != i * i + 1) {
        expect(false, pair + ": rank " + std::to_string(rank) + " lacks row " + std::to_string(i) +
                          " after gather_rows to all ranks");
        break;
      }
    if (rank == 0)
      for (std::int64_t i = 0; i < n; ++i)
        if (texts[i] != std::string(static_cast<std::size_t>(i % 5), static_cast<char>('a' + i % 26))) {
          expect(false, pair + ": variable-size row " + std::to_string(i) + " is '" + texts[i] + "' on rank 0");
          break;
        }
    expect(sum == n * (n - 1) / 2, pair + ": rank " + std::to_string(rank) + " has sum " + std::to_string(sum) +
                                       ", expected " + std::to_string(n * (n - 1) / 2));
    const sm::statistics s = r.stats();
    expect(s.loops == 1, pair + ": the region counted " + std::to_string(s.loops) + " shared loops, expected 1");
    int working = s.outer_chunks > 0;
    MPI_Allreduce(MPI_IN_PLACE, &working, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (working > 1) ++shared_loops;
  }
}

// Deliberately wrong programs: the region must stop the job with a message.
void misuse(const std::string& kind, std::int64_t n) {
  sm::region r(MPI_COMM_WORLD);
  std::vector<int> counts(n + 1);
  const std::int64_t mine = kind == "mismatch" && rank == 1 ? n + 1 : n;
#pragma omp parallel for schedule(runtime)
  for (std::int64_t i = 0; i < mine; ++i) bump(counts, i);
  if (kind == "skip" && rank == 1) return;  // leaves the region without the second loop
#pragma omp parallel for schedule(runtime)
  for (std::int64_t i = 0; i < n; ++i) bump(counts, i);
}

int level_from(const std::string& name) {
  if (name == "single") return MPI_THREAD_SINGLE;
  if (name == "funneled") return MPI_THREAD_FUNNELED;
  if (name == "serialized") return MPI_THREAD_SERIALIZED;
  return MPI_THREAD_MULTIPLE;
}

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr, "mpi_coverage: %s\n", problem.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::string pairs = "fss:fss,gss:static,tss:ss,static:gss,css,3:fac2,w-fss:tss,dfss:css,2,awf-c:gss";
  std::string level_name = "multiple", misuse_kind = "none";
  std::int64_t n = 300;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage("option '" + arg + "' needs a value");
    const std::string value = argv[++i];
    if (arg == "--pairs") pairs = value;
    else if (arg == "--thread-level") level_name = value;
    else if (arg == "--misuse") misuse_kind = value;
    else if (arg == "--n") n = std::atoll(value.c_str());
    else usage("unknown option '" + arg + "'; valid: --pairs, --thread-level, --misuse, --n");
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, level_from(level_name), &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  if (misuse_kind != "none") {
    misuse(misuse_kind, n);
    MPI_Finalize();
    if (rank == 0) std::printf("mpi_coverage: misuse '%s' was not detected ok=0\n", misuse_kind.c_str());
    return 1;
  }

  // "outer:inner" items, comma-separated; an inner or outer may carry its
  // own ",k" ("css,3:fac2"), so split on ':' first and then on the comma
  // that starts the next outer name.
  int tested = 0;
  std::size_t at = 0;
  while (at < pairs.size()) {
    const std::size_t colon = pairs.find(':', at);
    if (colon == std::string::npos) usage("pair list '" + pairs + "' lacks ':' after position " + std::to_string(at));
    const std::string outer = pairs.substr(at, colon - at);
    std::size_t end = pairs.find(',', colon);
    // A ",digits" belongs to the inner technique.
    while (end != std::string::npos && end + 1 < pairs.size() && std::isdigit(static_cast<unsigned char>(pairs[end + 1])))
      end = pairs.find(',', end + 1);
    const std::string inner = pairs.substr(colon + 1, end == std::string::npos ? std::string::npos : end - colon - 1);
    at = end == std::string::npos ? pairs.size() : end + 1;
    if (selfsched_set_schedule(inner.c_str(), 0) != 0) usage("inner technique '" + inner + "' is not one");
    const std::size_t before = failures.size();
    forms(outer, n);
    for (std::size_t k = before; k < failures.size(); ++k) failures[k] += " (inner " + inner + ")";
    ++tested;
  }

  // Dynamic scheduling decides who runs what; over all pairs, some loop
  // must have been shared, or the ranks never cooperated at all.
  if (ranks > 1) expect(shared_loops > 0, "no loop had more than one rank working on it");
  int bad = static_cast<int>(failures.size());
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (const std::string& f : failures) std::fprintf(stderr, "mpi_coverage: rank %d: %s\n", rank, f.c_str());
  if (rank == 0)
    std::printf("mpi_coverage: ranks=%d threads=%d level=%d pairs=%d shared_loops=%d failures=%d ok=%d\n", ranks,
                omp_get_max_threads(), provided, tested, shared_loops, bad, bad == 0 ? 1 : 0);
  MPI_Finalize();
  return bad == 0 ? 0 : 1;
}

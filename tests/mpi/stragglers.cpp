// A shared loop with a rank that is slow, stopped for a while or killed, run
// for real under mpirun (SELFSCHED_MPI_RESILIENCE decides whether copies of
// its chunks run elsewhere). Rank 0 gets every row, fixed-size and
// variable-size, and checks each against its formula; the ranks' settled
// chunks must hold every iteration exactly once, and each row rank 0 holds
// must come from the rank that owns it (a rank that dropped a chunk finished
// elsewhere wrote some of its rows locally: they must not win).
//
//   mpi_stragglers [--n N] [--loops L] [--work W]
//                  [--slow-rank R --slow-factor F]   rank R's iterations take F times as long
//                  [--stop-rank R --stop-at I --stop-seconds S]   rank R stops (SIGSTOP) at iteration I for S s
//                                                                 (S = 0: for good)
//                  [--kill-rank R --kill-at I]       rank R is killed (SIGKILL) at iteration I
//
// Prints "mpi_stragglers: ... ok=1" on rank 0 and exits 0, or names what is
// wrong and exits 1. Copies and dropped chunks are summed over the ranks;
// slow_dropped is the slow rank's own (a chunk it left before its end), and
// slow_wasted the iterations it ran that count on another rank.
#include <mpi.h>
#include <omp.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "selfsched/mpi.hpp"

namespace {

namespace sm = selfsched::mpi;

constexpr int row_width = 4;

std::uint64_t value(std::int64_t loop, std::int64_t i, int k) {
  std::uint64_t x = static_cast<std::uint64_t>(loop * 1000003 + i * row_width + k) + 0x9e3779b97f4a7c15ULL;
  x ^= x >> 31;
  return x * 0xbf58476d1ce4e5b9ULL;
}

// About `units` microseconds of arithmetic.
void work(std::int64_t units) {
  volatile std::uint64_t x = 1;
  for (std::int64_t k = 0; k < units * 150; ++k) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
}

// Stops this process for `seconds`: a child sends SIGCONT, then exits. 0:
// for good (the job must end without this rank).
void stop_for(double seconds) {
  const pid_t me = getpid();
  if (seconds <= 0) {
    kill(me, SIGSTOP);
    return;
  }
  if (fork() == 0) {
    usleep(static_cast<useconds_t>(seconds * 1e6));
    kill(me, SIGCONT);
    _exit(0);
  }
  kill(me, SIGSTOP);
}

std::int64_t number(const char* flag, const char* text) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v < 0) {
    std::fprintf(stderr, "mpi_stragglers: %s '%s' is not a non-negative integer\n", flag, text);
    std::exit(2);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t n = 400, loops = 2, units = 200;
  int slow_rank = -1, stop_rank = -1, kill_rank = -1;
  double slow_factor = 1, stop_seconds = 0;
  std::int64_t stop_at = 0, kill_at = 0;
  for (int a = 1; a < argc; ++a) {
    const std::string flag = argv[a];
    if (a + 1 >= argc) {
      std::fprintf(stderr, "mpi_stragglers: %s needs a value\n", flag.c_str());
      return 2;
    }
    const char* v = argv[++a];
    if (flag == "--n") n = number("--n", v);
    else if (flag == "--loops") loops = number("--loops", v);
    else if (flag == "--work") units = number("--work", v);
    else if (flag == "--slow-rank") slow_rank = static_cast<int>(number("--slow-rank", v));
    else if (flag == "--slow-factor") slow_factor = std::atof(v);
    else if (flag == "--stop-rank") stop_rank = static_cast<int>(number("--stop-rank", v));
    else if (flag == "--stop-at") stop_at = number("--stop-at", v);
    else if (flag == "--stop-seconds") stop_seconds = std::atof(v);
    else if (flag == "--kill-rank") kill_rank = static_cast<int>(number("--kill-rank", v));
    else if (flag == "--kill-at") kill_at = number("--kill-at", v);
    else {
      std::fprintf(stderr, "mpi_stragglers: unknown option '%s'\n", flag.c_str());
      return 2;
    }
  }
  int provided = 0, rank = 0, ranks = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  const std::int64_t my_units = rank == slow_rank ? static_cast<std::int64_t>(units * slow_factor) : units;
  std::vector<std::uint64_t> rows(static_cast<std::size_t>(n * row_width));
  std::vector<std::uint64_t> odd(static_cast<std::size_t>(n));  // variable rows: i % 3 words each
  std::vector<std::uint64_t> packed;
  std::vector<int> owners(static_cast<std::size_t>(n));
  std::vector<int> owner_rank(static_cast<std::size_t>(n));  // on rank 0: 1 + the rank whose chunk holds i
  std::vector<std::int64_t> origin(static_cast<std::size_t>(n));  // 1 + the rank that wrote row i
  std::vector<std::int64_t> ran_here(static_cast<std::size_t>(n));  // bodies this rank ran, this loop
  std::int64_t wasted = 0;  // bodies this rank ran whose chunk counts on another rank
  std::int64_t loop_now = 0;
  std::atomic<bool> stopped{false}, killed{false};

  sm::options opts;
  opts.gather_rows(rows.data(), row_width * sizeof(std::uint64_t), 0)
      .gather_rows(origin.data(), sizeof(std::int64_t), 0)
      .gather_rows(
          [&](selfsched::iter_t i) {
            packed.assign(static_cast<std::size_t>(i % 3), odd[static_cast<std::size_t>(i)]);
            return std::as_bytes(std::span(packed));
          },
          [&](selfsched::iter_t i, std::span<const std::byte> bytes) {
            if (bytes.size() != static_cast<std::size_t>(i % 3) * sizeof(std::uint64_t)) {
              odd[static_cast<std::size_t>(i)] = 0;  // wrong size: the check below fails
              return;
            }
            if (!bytes.empty()) std::memcpy(&odd[static_cast<std::size_t>(i)], bytes.data(), sizeof(std::uint64_t));
          },
          0)
      .after_loop([&](const sm::loop_info& info) {
        std::vector<int> mine(static_cast<std::size_t>(n)), me(static_cast<std::size_t>(n));
        for (const selfsched::chunk c : info.own)
          for (selfsched::iter_t i = c.start; i < c.start + c.size; ++i)
            ++mine[static_cast<std::size_t>(i)], me[static_cast<std::size_t>(i)] = rank + 1;
        for (std::size_t i = 0; i < ran_here.size(); ++i) wasted += me[i] == 0 ? ran_here[i] : 0;
        std::fill(ran_here.begin(), ran_here.end(), 0);
        MPI_Reduce(mine.data(), owners.data(), static_cast<int>(n), MPI_INT, MPI_SUM, 0, info.comm);
        MPI_Reduce(me.data(), owner_rank.data(), static_cast<int>(n), MPI_INT, MPI_MAX, 0, info.comm);
      });

  std::vector<std::string> problems;
  double seconds = 0;
  sm::statistics stats;
  {
    sm::region region(MPI_COMM_WORLD, opts);
    const double start = MPI_Wtime();
    for (loop_now = 0; loop_now < loops; ++loop_now) {
#pragma omp parallel for schedule(runtime)
      for (std::int64_t i = 0; i < n; ++i) {
        if (rank == kill_rank && i >= kill_at && !killed.exchange(true)) raise(SIGKILL);
        if (rank == stop_rank && i >= stop_at && !stopped.exchange(true)) stop_for(stop_seconds);
        work(my_units);
        for (int k = 0; k < row_width; ++k)
          rows[static_cast<std::size_t>(i * row_width + k)] = value(loop_now, i, k);
        odd[static_cast<std::size_t>(i)] = value(loop_now, i, -1);
        origin[static_cast<std::size_t>(i)] = rank + 1;
        ++ran_here[static_cast<std::size_t>(i)];
      }
      if (rank != 0) continue;
      for (std::int64_t i = 0; i < n; ++i) {
        bool right = owners[static_cast<std::size_t>(i)] == 1;
        for (int k = 0; k < row_width; ++k) right = right && rows[static_cast<std::size_t>(i * row_width + k)] == value(loop_now, i, k);
        if (i % 3 != 0) right = right && odd[static_cast<std::size_t>(i)] == value(loop_now, i, -1);
        right = right && origin[static_cast<std::size_t>(i)] == owner_rank[static_cast<std::size_t>(i)];
        if (!right && problems.size() < 5)
          problems.push_back("loop " + std::to_string(loop_now) + " iteration " + std::to_string(i) + ": held by " +
                             std::to_string(owners[static_cast<std::size_t>(i)]) + " ranks, or a wrong row, or a row "
                             "from rank " + std::to_string(origin[static_cast<std::size_t>(i)] - 1) + " while rank " +
                             std::to_string(owner_rank[static_cast<std::size_t>(i)] - 1) + " owns it");
      }
    }
    seconds = MPI_Wtime() - start;
    stats = region.stats();
  }
  const bool slow = rank == slow_rank;
  unsigned long long counts[4] = {stats.copies_handed_out, stats.chunks_dropped, slow ? stats.chunks_dropped : 0,
                                  slow ? static_cast<unsigned long long>(wasted) : 0};
  unsigned long long totals[4] = {0, 0, 0, 0};
  MPI_Reduce(counts, totals, 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  int ok = problems.empty() ? 1 : 0;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (const std::string& p : problems) std::fprintf(stderr, "mpi_stragglers: %s\n", p.c_str());
    std::printf("mpi_stragglers: ranks=%d n=%lld loops=%lld transport=%s resilience=%s copies=%llu dropped=%llu "
                "slow_dropped=%llu slow_wasted=%llu time_s=%.3f ok=%d\n",
                ranks, static_cast<long long>(n), static_cast<long long>(loops), stats.transport.c_str(),
                stats.resilience.c_str(), totals[0], totals[1], totals[2], totals[3], seconds, ok);
  }
  MPI_Finalize();
  return ok ? 0 : 1;
}

// A rank whose CPU becomes loaded while a region runs gets smaller outer
// chunks from then on: each request carries the asking thread's run-queue
// length Q, and a weighted outer technique divides the rank's power by it
// (mechanism W, seed 000 Sect. 3), so the weights need no new region.
//
// Two ranks of one thread, rank r bound to CPU r (the binding is checked).
// The loops first run with both CPUs idle; then rank 1 starts a busy process
// bound to its CPU and the loops run again. Rank 1's mean outer chunk
// (iterations / outer chunks of its statistics) must fall to at most 0.8 of
// what it was (w-css,16: 8, with Q = 2). Every iteration runs exactly once
// in every loop. The transport is SELFSCHED_MPI_TRANSPORT's.
//
//   mpi_load_refresh [--n N] [--loops L]
//
// Prints "mpi_load_refresh: before=B after=A ratio=R ok=1" on rank 0, or
// "mpi_load_refresh: skipped (...)" when the machine cannot show it (fewer
// than two CPUs, a binding refused, other load on rank 1's CPU already).
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "selfsched/mpi.hpp"

namespace {

namespace sm = selfsched::mpi;

bool bind_to(int cpu) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  CPU_SET(cpu, &mask);
  if (sched_setaffinity(0, sizeof mask, &mask) != 0) return false;
  cpu_set_t got;
  return sched_getaffinity(0, sizeof got, &got) == 0 && CPU_COUNT(&got) == 1 && CPU_ISSET(cpu, &got);
}

// About `units` microseconds of arithmetic.
void work(std::int64_t units) {
  volatile std::uint64_t x = 1;
  for (std::int64_t k = 0; k < units * 150; ++k) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
}

struct phase {
  double mean_chunk = 0;  // rank 1's iterations per outer chunk
  bool once = true;       // every iteration of every loop exactly once
};

// `loops` loops of n iterations; rank 1's mean outer chunk over the last one.
phase run_loops(sm::region& region, std::int64_t n, std::int64_t loops, int rank, std::vector<int>& hits) {
  phase result;
  for (std::int64_t l = 0; l < loops; ++l) {
    const sm::statistics before = region.stats();
    std::vector<int> mine(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(runtime)
    for (std::int64_t i = 0; i < n; ++i) {
      work(20);
      ++mine[static_cast<std::size_t>(i)];
    }
    MPI_Reduce(mine.data(), hits.data(), static_cast<int>(n), MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
      for (const int h : hits) result.once = result.once && h == 1;
    const sm::statistics after = region.stats();
    const double chunks = static_cast<double>(after.outer_chunks - before.outer_chunks);
    double mean = chunks > 0 ? static_cast<double>(after.iterations - before.iterations) / chunks : 0;
    MPI_Bcast(&mean, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    result.mean_chunk = mean;
  }
  return result;
}

std::int64_t number(const char* flag, const char* text) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v <= 0) {
    std::fprintf(stderr, "mpi_load_refresh: %s '%s' is not a positive integer\n", flag, text);
    std::exit(2);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t n = 4000, loops = 4;
  constexpr int chunk = 16;
  for (int a = 1; a < argc; ++a) {
    const std::string flag = argv[a];
    if (a + 1 >= argc || (flag != "--n" && flag != "--loops")) {
      std::fprintf(stderr, "mpi_load_refresh: unknown option or missing value '%s' (valid: --n N, --loops L)\n",
                   flag.c_str());
      return 2;
    }
    (flag == "--n" ? n : loops) = number(flag.c_str(), argv[++a]);
  }
  int provided = 0, rank = 0, ranks = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  int usable = ranks == 2 && sysconf(_SC_NPROCESSORS_ONLN) >= 2 && bind_to(rank) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &usable, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!usable) {
    if (rank == 0) std::printf("mpi_load_refresh: skipped (needs 2 ranks, 2 CPUs and binding each rank to one)\n");
    MPI_Finalize();
    return 0;
  }

  std::vector<int> hits(static_cast<std::size_t>(n));
  pid_t busy = -1;
  phase idle, loaded;
  {
    sm::region region(MPI_COMM_WORLD, sm::options().schedule("w-css," + std::to_string(chunk)));
    idle = run_loops(region, n, loops, rank, hits);
    if (rank == 1) {
      busy = fork();
      if (busy == 0) {
        if (!bind_to(1)) _exit(3);
        for (volatile std::uint64_t x = 0;; x = x + 1) {
        }
      }
    }
    usleep(300000);  // longer than the run-queue monitor's reading interval
    MPI_Barrier(MPI_COMM_WORLD);
    // The monitor fades its readings in over about four (docs/heterogeneity.md):
    // the last of twice as many loops sees Q settled.
    loaded = run_loops(region, n, 2 * loops, rank, hits);
  }
  if (busy > 0) {
    kill(busy, SIGKILL);
    waitpid(busy, nullptr, 0);
  }
  if (rank == 0) {
    const double ratio = idle.mean_chunk > 0 ? loaded.mean_chunk / idle.mean_chunk : 0;
    const bool once = idle.once && loaded.once;
    // With rank 1's CPU shared before the busy process came (another job on
    // the machine), Q was never 1 and the comparison says nothing.
    if (once && idle.mean_chunk < 0.8 * chunk)
      std::printf("mpi_load_refresh: skipped (rank 1's CPU was loaded before the test loaded it: mean chunk %.1f)\n",
                  idle.mean_chunk);
    else
      std::printf("mpi_load_refresh: before=%.2f after=%.2f ratio=%.2f once=%d ok=%d\n", idle.mean_chunk,
                  loaded.mean_chunk, ratio, once ? 1 : 0, ratio <= 0.8 && once ? 1 : 0);
  }
  MPI_Finalize();
  return 0;
}

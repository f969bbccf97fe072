// A serving rank's progress thread must not take the core from the rank's
// computing threads while no loop runs: between loops it sleeps until its
// rank begins one, or 2 ms (mpi_bridge/src/common/waiting.hpp). Waking every
// few hundred microseconds instead made a cluster-mode program's page faults
// a third slower on a paravirtualized VM.
//
// Rank 0 (the master) runs one shared loop, then 400 ms of serial code in
// the region, and counts the wake-ups (voluntary context switches) of its
// thread named "selfsched-serve" over the last 300 ms: at most one per 2 ms
// is expected, so more than 250 fails. Then a second loop checks that the
// sleeping server still serves.
//
//   mpi_quiet_server     prints "quiet_server: wakeups=W ok=1" on rank 0
#include <mpi.h>
#include <omp.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "selfsched/mpi.hpp"

namespace {

// The voluntary context switches of this process's thread named `name`; -1
// when there is none.
long wakeups_of(const std::string& name) {
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string line;
    std::getline(comm, line);
    if (line != name) continue;
    std::ifstream status(task.path() / "status");
    while (std::getline(status, line))
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) return std::stol(line.substr(24));
  }
  return -1;
}

// Every iteration once across the ranks: the counts summed on rank 0.
void run_loop(std::vector<int>& counts) {
  std::fill(counts.begin(), counts.end(), 0);
#pragma omp parallel for schedule(runtime)
  for (long i = 0; i < static_cast<long>(counts.size()); ++i)
    std::atomic_ref<int>(counts[static_cast<std::size_t>(i)]).fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  bool ok = provided == MPI_THREAD_MULTIPLE;
  long wakeups = -1;
  std::vector<int> counts(2000);
  for (int loop = 0; loop < 2; ++loop) {  // every rank runs both loops, whatever it found
    selfsched::mpi::region r(MPI_COMM_WORLD,
                             selfsched::mpi::options().reduce(counts.data(), static_cast<int>(counts.size()), MPI_INT,
                                                              MPI_SUM, 0));
    run_loop(counts);
    if (loop == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const long before = wakeups_of("selfsched-serve");
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      const long after = wakeups_of("selfsched-serve");
      if (rank == 0) {
        wakeups = before < 0 || after < 0 ? -1 : after - before;
        if (wakeups < 0) std::fprintf(stderr, "quiet_server: rank 0 has no thread named selfsched-serve\n");
        else if (wakeups > 250)
          std::fprintf(stderr, "quiet_server: the progress thread woke %ld times in 300 ms without a loop\n", wakeups);
        ok = ok && wakeups >= 0 && wakeups <= 250;
      }
    }
  }
  if (rank == 0)
    for (std::size_t i = 0; i < counts.size(); ++i)
      if (counts[i] != 1) {
        std::fprintf(stderr, "quiet_server: iteration %zu ran %d times after the quiet spell\n", i, counts[i]);
        ok = false;
        break;
      }
  if (rank == 0) std::printf("quiet_server: wakeups=%ld ok=%d\n", wakeups, ok ? 1 : 0);
  MPI_Finalize();
  return ok ? 0 : 1;
}

// claim_cost: what one outer-chunk claim costs under each transport. A region
// runs a loop whose iterations spin for --work-us microseconds, with the
// outer technique ss (one iteration per outer chunk), so every iteration is
// a claim; each rank reports the time its threads spent inside next_outer()
// per chunk (the claim latency it sees, all of it exposed with
// SELFSCHED_MPI_PREFETCH=0) and the loop's time per chunk.
//
//   selfsched-mpirun --threads 1 [--transport T] -np 2 claim_cost [--n 20000] [--work-us 10] [--repeat 5]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "selfsched.h"
#include "selfsched/mpi.hpp"

int main(int argc, char** argv) {
  long long n = 20000;
  double work_us = 10;
  int repeat = 5;
  std::string outer = "ss";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i];
    if (arg == "--n") n = std::atoll(argv[i + 1]);
    else if (arg == "--repeat") repeat = std::atoi(argv[i + 1]);
    else if (arg == "--work-us") work_us = std::atof(argv[i + 1]);
    else if (arg == "--schedule") outer = argv[i + 1];
    else {
      std::fprintf(stderr, "claim_cost: unknown option '%s'; valid: --n, --work-us, --repeat, --schedule\n", arg.c_str());
      return 2;
    }
  }
  int provided = 0, rank = 0, ranks = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  selfsched_set_schedule("static", 0);  // a rank's threads take its outer chunk in one piece each

  // The machine may be shared: report the best (the transport's own cost)
  // and the median (what a run sees) of `repeat` runs.
  std::vector<double> loops;
  std::vector<std::vector<double>> claims(static_cast<std::size_t>(ranks)), chunks(static_cast<std::size_t>(ranks));
  std::string transport;
  for (int r = 0; r < repeat; ++r) {
    selfsched::mpi::statistics s;
    double loop = 0;
    {
      selfsched::mpi::region region(MPI_COMM_WORLD, selfsched::mpi::options().schedule(outer));
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
#pragma omp parallel for schedule(runtime)
      for (long long i = 0; i < n; ++i)
        for (const double until = MPI_Wtime() + work_us * 1e-6; MPI_Wtime() < until;) {
        }
      loop = MPI_Wtime() - start;  // includes the checkpoint: every rank done
      s = region.stats();
    }
    transport = s.transport;
    const double mine[2] = {s.outer_chunks > 0 ? s.wait_seconds / static_cast<double>(s.outer_chunks) : 0.0,
                            static_cast<double>(s.outer_chunks)};
    std::vector<double> all(2 * static_cast<std::size_t>(ranks));
    MPI_Gather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    loops.push_back(loop);
    for (int k = 0; k < ranks; ++k) claims[k].push_back(all[2 * k] * 1e6), chunks[k].push_back(all[2 * k + 1]);
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  const auto per_rank = [&](auto&& f) {
    std::string text;
    for (int k = 0; k < ranks; ++k) {
      char item[32];
      std::snprintf(item, sizeof item, "%s%.2f", k ? "," : "", f(k));
      text += item;
    }
    return text;
  };
  if (rank == 0) {
    const double loop_median = median(loops), loop_min = *std::min_element(loops.begin(), loops.end());
    std::printf("claim_cost transport=%s ranks=%d threads=%s outer=%s chunks=%lld work_us=%g repeat=%d "
                "loop_s_median=%.6f loop_s_min=%.6f per_chunk_us_median=%.3f rank_claim_us_median=%s "
                "rank_claim_us_min=%s rank_chunks_median=%s\n",
                transport.c_str(), ranks, std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : "?",
                outer.c_str(), n, work_us, repeat, loop_median, loop_min, loop_median / static_cast<double>(n) * 1e6,
                per_rank([&](int k) { return median(claims[k]); }).c_str(),
                per_rank([&](int k) { return *std::min_element(claims[k].begin(), claims[k].end()); }).c_str(),
                per_rank([&](int k) { return median(chunks[k]); }).c_str());
  }
  MPI_Finalize();
  return 0;
}

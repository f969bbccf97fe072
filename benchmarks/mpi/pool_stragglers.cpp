// pool_stragglers: a central task pool of independent tasks on emulated
// dedicated ranks, one of them slow or stopped (SIGSTOP) for a while, to
// time the pool with and without copies (SELFSCHED_MPI_RESILIENCE). Each
// task waits its cost on the wall clock (sleeping), cost / speed on its
// rank, so the figures do not drift with the machine's load; the pool, its
// messages and the copies are real.
//
//   selfsched-mpirun --threads 1 -np 3 pool_stragglers [--tasks 400] [--task-ms 5]
//                    [--slow-rank 2 --slow-factor 10] [--stop-rank 2 --stop-s 2]
//
// Prints on rank 0: work_s (the pool's work done, rank 0's view), run_s
// (run's return: a stopped rank holds it until it answers), ideal_s (the
// work over the capacity of the working ranks: rank 0 serves and runs none,
// a stopped rank counts for nothing),
// copies, results (each task's once, or the line says ok=0).
#include <mpi.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "selfsched/mpi_tasks.hpp"

namespace {

void wait_s(double seconds) {
  timespec t{static_cast<time_t>(seconds), static_cast<long>((seconds - static_cast<double>(static_cast<time_t>(seconds))) * 1e9)};
  while (nanosleep(&t, &t) != 0) {
  }
}

// This process stops for `seconds`: a child sends SIGCONT, then exits.
void stop_for(double seconds) {
  const pid_t me = getpid();
  if (fork() == 0) {
    wait_s(seconds);
    kill(me, SIGCONT);
    _exit(0);
  }
  kill(me, SIGSTOP);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0, rank = 0, ranks = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int tasks = 400, slow_rank = -1, stop_rank = -1;
  double task_s = 0.005, slow_factor = 1, stop_s = 0;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string flag = argv[a];
    const double v = std::atof(argv[a + 1]);
    if (flag == "--tasks") tasks = static_cast<int>(v);
    else if (flag == "--task-ms") task_s = v * 1e-3;
    else if (flag == "--slow-rank") slow_rank = static_cast<int>(v);
    else if (flag == "--slow-factor") slow_factor = v;
    else if (flag == "--stop-rank") stop_rank = static_cast<int>(v);
    else if (flag == "--stop-s") stop_s = v;
    else {
      if (rank == 0) std::fprintf(stderr, "pool_stragglers: unknown option %s\n", flag.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  selfsched::mpi::task_pool_options options;
  options.strategy = "central";
  options.threads = 1;
  selfsched::mpi::task_pool pool(MPI_COMM_WORLD, options);
  if (rank == 0)
    for (int i = 0; i < tasks; ++i) pool.put(i);
  std::atomic<int> ran{0};
  std::int64_t sum = 0, count = 0;
  const auto report = pool.run(
      [&](const selfsched::task& t) {
        if (rank == stop_rank && ran.fetch_add(1) + 1 == 3) stop_for(stop_s);
        wait_s(task_s * (rank == slow_rank ? slow_factor : 1.0));
        pool.put_result(t.as<int>());
      },
      [&](const selfsched::task& r) {
        sum += r.as<int>();
        ++count;
      });
  std::int64_t local[2] = {sum, count}, total[2] = {0, 0};
  MPI_Allreduce(local, total, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  const bool once = total[1] == tasks && total[0] == static_cast<std::int64_t>(tasks) * (tasks - 1) / 2;
  // Rank 0 serves; each other rank adds 1, the slow one 1 / factor, the
  // stopped one nothing (stopped longer than the others take, it runs only
  // its first tasks).
  double capacity = 0;
  for (int r = 1; r < ranks; ++r)
    if (r != stop_rank) capacity += r == slow_rank ? 1.0 / slow_factor : 1.0;
  const double ideal = capacity > 0 ? tasks * task_s / capacity : 0;
  if (rank == 0)
    std::printf("pool_stragglers: ranks=%d tasks=%d task_ms=%g work_s=%.3f run_s=%.3f ideal_s=%.3f copies=%lld "
                "dropped=%lld results=%lld ok=%d\n",
                ranks, tasks, task_s * 1e3, report.work_seconds, report.seconds, ideal,
                static_cast<long long>(report.copies), static_cast<long long>(report.copies_dropped),
                static_cast<long long>(total[1]), once ? 1 : 0);
  MPI_Finalize();
  return once ? 0 : 1;
}

// mandelbrot_rows: the hybrid mandelbrot's shared loop on emulated dedicated
// ranks. Each row costs what it costs in the real program (its escape steps,
// from examples/mandelbrot.hpp), scaled so that one full-speed processor
// takes --serial-s for the image; an iteration waits, on the wall clock,
// cost / speed of its rank (--rank-speed 1:0.5 makes rank 1 twice as slow),
// sleeping most of it. A wall-clock wait takes about the same time however
// busy the machine is, so the comparison of techniques and transports does
// not drift with other jobs' load, as the real kernel's does on a shared
// machine. Everything else is real: the region, the transport, the claims,
// the checkpoint.
//
//   selfsched-mpirun --threads 1 -np 2 mandelbrot_rows [--width 400 --height 600 --max-iter 2000]
//                    [--serial-s 2] [--rank-speed 1:0.5] [--repeat 1]
#include <mpi.h>
#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "../../examples/mandelbrot.hpp"
#include "selfsched/mpi.hpp"

namespace {

std::int64_t now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1'000'000'000LL + t.tv_nsec;
}

// Sleeps until shortly before `deadline`, then spins to it: a sleeping
// thread leaves the CPU to others, and having slept it is scheduled again
// promptly, so the wait ends on time even when the machine is busy (a thread
// spinning all along would be preempted and overshoot).
void wait_until(std::int64_t deadline) {
  constexpr std::int64_t spin_ns = 200'000;
  if (deadline - now_ns() > spin_ns) {
    const std::int64_t wake = deadline - spin_ns;
    const timespec at{static_cast<time_t>(wake / 1'000'000'000), static_cast<long>(wake % 1'000'000'000)};
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr);
  }
  while (now_ns() < deadline) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  example::mandelbrot m;
  m.width = 400, m.height = 600, m.max_iter = 2000;
  double serial_s = 2;
  std::string rank_speed;
  std::int64_t repeat = 1;
  example::command_line cli("mandelbrot_rows",
                            "The hybrid mandelbrot's shared loop with each row's real cost waited out on the\n"
                            "wall clock: emulated dedicated ranks of chosen speeds.");
  cli.option("width", m.width, 1, "image width");
  cli.option("height", m.height, 1, "image height: the rows, the loop's iterations");
  cli.option("max-iter", m.max_iter, 1, "escape steps before a point counts as inside");
  std::vector<double> serial{serial_s};
  cli.reals("serial-s", serial, "S", "seconds the whole image takes on one full-speed processor");
  cli.option("rank-speed", rank_speed, "R:F,...", "rank R runs at F of full speed (0 < F <= 1)");
  cli.option("repeat", repeat, 1, "runs; each prints a line");
  cli.parse(argc, argv);
  serial_s = serial[0];
  if (serial_s <= 0) cli.fail("--serial-s must be > 0");

  prctl(PR_SET_TIMERSLACK, 1000UL);  // 1 us; OpenMP threads created later inherit it
  int provided = 0, rank = 0, ranks = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::vector<double> speeds(static_cast<std::size_t>(ranks), 1.0);
  for (std::string_view list = rank_speed; !list.empty();) {
    const std::string item(list.substr(0, list.find(',')));
    list.remove_prefix(std::min(list.size(), item.size() + 1));
    const auto colon = item.find(':');
    const int r = colon == std::string::npos ? -1 : std::atoi(item.c_str());
    const double f = colon == std::string::npos ? 0 : std::atof(item.c_str() + colon + 1);
    if (r < 0 || r >= ranks || !(f > 0 && f <= 1)) cli.fail("--rank-speed '" + item + "' is not RANK:FACTOR with 0 < FACTOR <= 1");
    speeds[static_cast<std::size_t>(r)] = f;
  }

  // Row costs: escape steps of each row (the same on every rank), scaled.
  std::vector<double> cost_ns(static_cast<std::size_t>(m.height));
  std::vector<std::uint32_t> line(static_cast<std::size_t>(m.width));
#pragma omp parallel for schedule(static) firstprivate(line)
  for (std::int64_t y = 0; y < m.height; ++y) {
    m.compute_line(y, line.data(), 1);
    cost_ns[y] = std::accumulate(line.begin(), line.end(), 0.0) + static_cast<double>(m.width);  // + 1 per pixel
  }
  const double scale = serial_s * 1e9 / std::accumulate(cost_ns.begin(), cost_ns.end(), 0.0);
  const double slowness = 1 / speeds[static_cast<std::size_t>(rank)];
  for (double& c : cost_ns) c *= scale * slowness;
  const double ideal = serial_s / std::accumulate(speeds.begin(), speeds.end(), 0.0);

  for (std::int64_t run = 0; run < repeat; ++run) {
    // Each row's owners, from the chunks the ranks settled on (after_loop's
    // info.own): a reduction of the rows run would count copies
    // (SELFSCHED_MPI_RESILIENCE=duplicate) twice, and forbids them.
    std::vector<std::uint32_t> runs(static_cast<std::size_t>(m.height));
    const auto count_owners = [&](const selfsched::mpi::loop_info& info) {
      std::vector<std::uint32_t> mine(runs.size());
      for (const selfsched::chunk c : info.own)
        for (selfsched::iter_t y = c.start; y < c.start + c.size; ++y) ++mine[static_cast<std::size_t>(y)];
      MPI_Reduce(mine.data(), runs.data(), static_cast<int>(m.height), MPI_UINT32_T, MPI_SUM, 0, info.comm);
    };
    selfsched::mpi::statistics s;
    double seconds = 0;
    {
      selfsched::mpi::region region(MPI_COMM_WORLD, selfsched::mpi::options().after_loop(count_owners));
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
#pragma omp parallel for schedule(runtime)
      for (std::int64_t y = 0; y < m.height; ++y) {
        wait_until(now_ns() + static_cast<std::int64_t>(cost_ns[y]));
      }
      seconds = MPI_Wtime() - start;
      s = region.stats();
    }
    const double mine = static_cast<double>(s.iterations);
    std::vector<double> all(static_cast<std::size_t>(ranks));
    MPI_Gather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      const bool once = std::all_of(runs.begin(), runs.end(), [](std::uint32_t r) { return r == 1; });
      std::string rows;
      for (int k = 0; k < ranks; ++k) rows += (k ? "," : "") + std::to_string(static_cast<long long>(all[k]));
      std::printf("mandelbrot_rows ranks=%d transport=%s outer=%s rank_speed=%s serial_s=%g ideal_s=%.4f time_s=%.4f "
                  "rank_iterations=%s ok=%d\n",
                  ranks, s.transport.c_str(), s.schedule.c_str(), rank_speed.empty() ? "all-1" : rank_speed.c_str(),
                  serial_s, ideal, seconds, rows.c_str(), once ? 1 : 0);
    }
  }
  MPI_Finalize();
  return 0;
}

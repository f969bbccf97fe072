// Task pools across ranks (selfsched/mpi_tasks.hpp), under mpirun: random
// task trees whose nodes are put on every rank run each node exactly once
// across ranks and threads (the nodes' count and two checksums against a
// serial traversal, every rank's share included), levels complete to the
// deepest, a pool that starts empty or with all work on one rank ends; stop
// and an exception on one rank end the pool everywhere; bad options get one
// message on every rank. Case copies (SELFSCHED_MPI_RESILIENCE=duplicate):
// a tree whose tasks give their node to put_result, with one rank slow or
// stopped (SIGSTOP) while it holds tasks; every node's result reaches the
// program once, whoever ran it and however often.
//
//   mpi_task_pool [--strategy NAME] [--transfer priority|threshold] [--async-levels A]
//                 [--case all|trees|stop|error|bad|copies]
//                 [--slow-rank R --slow-factor F] [--stop-rank R --stop-seconds S (0: for good)]
//
// Prints "mpi_task_pool: ... ok=1" on rank 0 and exits 0, or what went wrong.
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <signal.h>
#include <unistd.h>

#include "selfsched/mpi_tasks.hpp"

namespace {

int rank = 0, ranks = 1;
std::string transfer;  // --transfer: the pools' transfer policy
std::string summary;   // the copies case's figures, on the result line
std::vector<std::string> failures;

void expect(bool ok, const std::string& what) {
  if (!ok) failures.push_back("rank " + std::to_string(rank) + ": " + what);
}

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

struct node {
  std::uint64_t key;
  std::int32_t depth;
};

constexpr int max_depth = 6;
int children_of(const node& n) { return n.depth < max_depth ? static_cast<int>(mix(n.key) % 5) : 0; }
node child(const node& n, int k) { return {mix(n.key * 31 + static_cast<std::uint64_t>(k) + 1), n.depth + 1}; }

struct tally {
  std::uint64_t count = 0, sum = 0, sum2 = 0;
  int deepest = -1;
  void add(const node& n) {
    ++count;
    sum += mix(n.key);
    sum2 += mix(n.key ^ 0xabcdef);
    deepest = std::max(deepest, static_cast<int>(n.depth));
  }
};

tally serial(const std::vector<node>& roots) {
  tally t;
  std::vector<node> stack(roots);
  while (!stack.empty()) {
    const node n = stack.back();
    stack.pop_back();
    t.add(n);
    for (int k = 0; k < children_of(n); ++k) stack.push_back(child(n, k));
  }
  return t;
}

void trees(const std::string& strategy, int async_levels) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    // Roots put on a few ranks before the run (seed 3: none at all; seed
    // 5: all on the last rank).
    std::vector<node> roots;
    for (int r = 0; r < ranks; ++r)
      for (int k = 0; k < static_cast<int>(mix(seed + static_cast<std::uint64_t>(r)) % 3); ++k)
        if (seed != 3 && (seed != 5 || r == ranks - 1)) roots.push_back({mix(seed * 1000 + r * 10 + k), 0});
    selfsched::mpi::task_pool pool(MPI_COMM_WORLD,
                                   {.strategy = strategy, .async_levels = async_levels, .transfer = transfer});
    for (const node& n : roots) {
      const int owner = seed == 5 ? ranks - 1 : static_cast<int>(n.key % static_cast<std::uint64_t>(ranks));
      if (owner == rank) pool.put(n, 0, 1.0);
    }
    std::vector<tally> per_thread(static_cast<std::size_t>(omp_get_max_threads()));
    // Seed 5: the rank holding all the work comes late to the run; the pool
    // must not end before it has heard from it.
    if (seed == 5 && rank == ranks - 1 && ranks > 1) usleep(100'000);
    const auto report = pool.run([&](const selfsched::task& t) {
      const node n = t.as<node>();
      if (n.depth != t.level()) throw std::logic_error("a task came back at level " + std::to_string(t.level()));
      per_thread[static_cast<std::size_t>(t.thread())].add(n);
      volatile std::uint64_t spin = n.key;
      for (int k = 0; k < 2000 + static_cast<int>(n.key % 4000); ++k) spin = spin * 6364136223846793005ULL + 1;
      for (int k = 0; k < children_of(n); ++k) pool.put(child(n, k), n.depth + 1, static_cast<double>(k));
    });
    tally mine;
    for (const tally& t : per_thread) {
      mine.count += t.count;
      mine.sum += t.sum;
      mine.sum2 += t.sum2;
    }
    std::uint64_t local[3] = {mine.count, mine.sum, mine.sum2}, total[3] = {0, 0, 0};
    MPI_Allreduce(local, total, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    const tally expected = serial(roots);  // every rank knows every root
    const std::string where = "seed " + std::to_string(seed) + ", async " + std::to_string(async_levels);
    expect(total[0] == expected.count && total[1] == expected.sum && total[2] == expected.sum2,
           where + ": " + std::to_string(total[0]) + " tasks ran (checksums " + std::to_string(total[1]) +
               ") against " + std::to_string(expected.count) + " nodes (" + std::to_string(expected.sum) + ")");
    expect(report.tasks == static_cast<std::int64_t>(mine.count), where + ": report.tasks " +
                                                                       std::to_string(report.tasks) + " against " +
                                                                       std::to_string(mine.count) + " counted");
    expect(report.tasks_everywhere == static_cast<std::int64_t>(expected.count), where + ": tasks_everywhere");
    expect(report.last_completed_level == expected.deepest,
           where + ": last completed level " + std::to_string(report.last_completed_level) + ", deepest " +
               std::to_string(expected.deepest));
    expect(report.discarded == 0, where + ": discarded");
  }
}

// Stops this process for `seconds`: a child sends SIGCONT, then exits. 0:
// for good (the job must end without this rank).
void stop_for(double seconds) {
  const pid_t me = getpid();
  if (seconds > 0 && fork() == 0) {
    usleep(static_cast<useconds_t>(seconds * 1e6));
    kill(me, SIGCONT);
    _exit(0);
  }
  kill(me, SIGSTOP);
}

void spin_for(double seconds) {
  const double until = MPI_Wtime() + seconds;
  volatile std::uint64_t spin = 1;
  while (MPI_Wtime() < until)
    for (int k = 0; k < 200; ++k) spin = spin * 6364136223846793005ULL + 1;
}

struct straggler {
  int slow_rank = -1, stop_rank = -1;
  double slow_factor = 1, stop_seconds = 0;
};

// Every node gives itself as its result; the results, summed over the
// ranks, must be the tree's nodes once each (a copy's children or results
// counted too would show as extra nodes).
void copies_case(const std::string& strategy, const straggler& s) {
  std::vector<node> roots;
  for (std::uint64_t k = 0; k < 1; ++k) roots.push_back({mix(777 + k), 0});
  selfsched::mpi::task_pool pool(MPI_COMM_WORLD, {.strategy = strategy, .transfer = transfer});
  if (rank == 0)
    for (const node& n : roots) pool.put(n, 0, 1.0);
  std::atomic<int> ran{0};
  tally results;  // on_result runs on the thread that called run: no lock
  bool levels_right = true;
  const auto report = pool.run(
      [&](const selfsched::task& t) {
        const node n = t.as<node>();
        if (rank == s.stop_rank && ran.fetch_add(1) + 1 == 5) stop_for(s.stop_seconds);
        spin_for(0.0005 * (rank == s.slow_rank ? s.slow_factor : 1.0));
        for (int k = 0; k < children_of(n); ++k) pool.put(child(n, k), n.depth + 1, static_cast<double>(k));
        pool.put_result(n);
      },
      [&](const selfsched::task& r) {
        const node n = r.as<node>();
        levels_right = levels_right && r.level() == n.depth;
        results.add(n);
      });
  std::uint64_t local[3] = {results.count, results.sum, results.sum2}, total[3] = {0, 0, 0};
  MPI_Allreduce(local, total, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  const tally expected = serial(roots);
  expect(total[0] == expected.count && total[1] == expected.sum && total[2] == expected.sum2,
         "copies: " + std::to_string(total[0]) + " results (checksum " + std::to_string(total[1]) + ") against " +
             std::to_string(expected.count) + " nodes (" + std::to_string(expected.sum) + ")");
  expect(report.results == static_cast<std::int64_t>(results.count), "copies: report.results");
  expect(levels_right, "copies: a result came with another level than its task's");
  expect(report.tasks_everywhere >= static_cast<std::int64_t>(expected.count) - report.discarded,
         "copies: fewer runs than nodes");
  summary = "copies=" + std::to_string(report.copies) + " dropped=" + std::to_string(report.copies_dropped) +
            " results=" + std::to_string(total[0]) + " nodes=" + std::to_string(expected.count) + " ";
}

void stop_case(const std::string& strategy) {
  selfsched::mpi::task_pool pool(MPI_COMM_WORLD, {.strategy = strategy, .transfer = transfer});
  // Rank 0 puts a long list; the 30th task a rank runs stops the pool (not
  // a given task: the distributed strategies may move any task anywhere and
  // run it late).
  if (rank == 0)
    for (int i = 0; i < 400; ++i) pool.put(i);
  std::atomic<int> ran{0};
  const auto report = pool.run([&](const selfsched::task&) {
    volatile int spin = 0;
    for (int k = 0; k < 20000; ++k) spin = spin + k;
    if (ran.fetch_add(1) + 1 == 30) pool.stop();
  });
  expect(report.tasks == ran.load(), "stop: report.tasks");
  expect(report.tasks_everywhere + report.discarded == 400,
         "stop: " + std::to_string(report.tasks_everywhere) + " ran + " + std::to_string(report.discarded) +
             " discarded != 400");
  expect(report.tasks_everywhere < 400, "stop: every task ran anyway");
  // The pool runs again with what is put afterwards.
  if (rank == ranks - 1) pool.put(7);
  expect(pool.run([](const selfsched::task&) {}).tasks_everywhere == 1, "stop: the next run");
}

void error_case(const std::string& strategy) {
  selfsched::mpi::task_pool pool(MPI_COMM_WORLD, {.strategy = strategy, .transfer = transfer});
  if (rank == 0)
    for (int i = 0; i < 200; ++i) pool.put(i);
  bool thrown = false;
  int failing_rank = -1;
  try {
    pool.run([&](const selfsched::task& t) {
      volatile int spin = 0;
      for (int k = 0; k < 20000; ++k) spin = spin + k;
      if (t.as<int>() == 20) throw std::runtime_error("task 20 failed");
    });
  } catch (const std::runtime_error& e) {
    thrown = std::string(e.what()) == "task 20 failed";
    failing_rank = rank;
  }
  int seen = -1;
  MPI_Allreduce(&failing_rank, &seen, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  expect(seen >= 0, "error: no rank saw the exception");
  if (failing_rank == rank) expect(thrown, "error: another exception");
}

// Options with one field set (the rest their defaults).
template <typename Set>
selfsched::mpi::task_pool_options options_with(Set set) {
  selfsched::mpi::task_pool_options o;
  set(o);
  return o;
}

void bad_case() {
  const auto message = [](auto&& f) {
    try {
      f();
    } catch (const selfsched::task_pool_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string unknown =
      message([] { selfsched::mpi::task_pool p(MPI_COMM_WORLD, options_with([](auto& o) { o.strategy = "centrall"; })); });
  expect(unknown.find("unknown strategy 'centrall'; valid: central, mediation, receiver, sender, hier-mediation") != std::string::npos, "bad: " + unknown);
  const std::string negative =
      message([] { selfsched::mpi::task_pool p(MPI_COMM_WORLD, options_with([](auto& o) { o.async_levels = -2; })); });
  expect(negative.find("async_levels -2 is negative") != std::string::npos, "bad: " + negative);
  selfsched::mpi::task_pool pool(MPI_COMM_WORLD, options_with([](auto& o) { o.max_payload = 8; }));
  const std::string big = message([&] { pool.put(std::array<char, 9>{}); });
  expect(big.find("9 bytes is larger than max_payload (8 bytes)") != std::string::npos, "bad: " + big);
  const std::string level = message([&] { pool.put(1, -1); });
  const std::string policy =
      message([] { selfsched::mpi::task_pool p(MPI_COMM_WORLD, options_with([](auto& o) { o.transfer = "greedy"; })); });
  expect(policy.find("unknown transfer policy 'greedy'; valid: priority, threshold") != std::string::npos,
         "bad: " + policy);
  expect(level.find("level -1 is negative") != std::string::npos, "bad: " + level);
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::string strategy = "central", which = "all";
  int async_levels = -1;
  straggler s;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string option = argv[i], value = argv[i + 1];
    if (option == "--strategy") strategy = value;
    else if (option == "--async-levels") async_levels = std::stoi(value);
    else if (option == "--case") which = value;
    else if (option == "--transfer") transfer = value;
    else if (option == "--slow-rank") s.slow_rank = std::stoi(value);
    else if (option == "--slow-factor") s.slow_factor = std::stod(value);
    else if (option == "--stop-rank") s.stop_rank = std::stoi(value);
    else if (option == "--stop-seconds") s.stop_seconds = std::stod(value);
  }
  const double started = MPI_Wtime();
  if (which == "all" || which == "trees") {
    if (async_levels < 0) {
      trees(strategy, 0);
      trees(strategy, 2);
    } else {
      trees(strategy, async_levels);
    }
  }
  if (which == "all" || which == "stop") stop_case(strategy);
  if (which == "all" || which == "error") error_case(strategy);
  if (which == "all" || which == "bad") bad_case();
  if (which == "copies") copies_case(strategy, s);

  // Every rank's failures reach rank 0's output.
  int mine = static_cast<int>(failures.size()), total = 0;
  MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (const std::string& f : failures) std::fprintf(stderr, "mpi_task_pool: %s\n", f.c_str());
  if (rank == 0)
    std::printf("mpi_task_pool: strategy=%s transfer=%s ranks=%d threads=%d seconds=%.2f %sfailures=%d ok=%d\n",
                strategy.c_str(), transfer.empty() ? "default" : transfer.c_str(), ranks, omp_get_max_threads(),
                MPI_Wtime() - started, summary.c_str(), total, total == 0 ? 1 : 0);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}

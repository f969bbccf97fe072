// A thread of an `auto` loop on a CPU another process keeps busy sleeps at
// barriers instead of spinning (omp_ext/loops/barrier_wait.hpp); its team mate
// on an idle CPU keeps libomp's wait.
//
// A busy process is pinned to one CPU; a fresh process (this program again,
// `--steps`) binds its two threads with explicit places, thread 1 to that
// CPU, and runs 300 time steps, each a parallel region with one auto loop of
// about 1 ms. In each of the last 200 regions, after the loop, each thread
// reads its own blocktime (kmp_get_blocktime): thread 1 must read 0 in at
// least 80% of them and thread 0 never, unless SELFSCHED_SHARED_CPU=spin
// (the second test), where neither ever does. The profile must say the
// same: of the kept instances from the 100th on, `sleeps_at_barriers` is
// true for thread 1 in at least 80% and never for thread 0 (none with spin). Other users' tasks that land on the idle CPU would make
// thread 0 sleep too, rightly: as in hetero.runqueue each of up to eight
// attempts first waits for a quiet machine, and the first clean attempt
// decides. Exit 77 (skipped) only when the machine cannot pin.
#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "binding.hpp"
#include "competitor.hpp"

namespace {

constexpr int skipped = 77;
constexpr int attempts = 8;
constexpr int steps = 300;

// The measured program; exit 0 with "slept A B" on stdout: in how many of
// the last `counted` steps thread 0 and thread 1 read blocktime 0.
constexpr int counted = 200;
int run_steps(int cpu0, int cpu1) {
  const hetero::team_binding binding = hetero::bind_check(2);
  if (!binding.problem.empty() || binding.cpus[0] != cpu0 || binding.cpus[1] != cpu1) {
    std::printf("FAIL: OMP_PLACES={%d},{%d} bound the threads otherwise: %s\n", cpu0, cpu1, binding.problem.c_str());
    return 1;
  }
  int slept[2] = {0, 0};
  double sink = 0;
  for (int step = 0; step < steps; ++step) {
#pragma omp parallel num_threads(2) reduction(+ : sink)
    {
#pragma omp for schedule(auto)
      for (long i = 0; i < 64; ++i) {
        double x = static_cast<double>(i);
        for (int k = 0; k < 5000; ++k) x = x * 0.999999 + 1e-6;
        sink += x;
      }
      if (step >= steps - counted && kmp_get_blocktime() == 0) {
#pragma omp atomic
        ++slept[omp_get_thread_num()];
      }
    }
  }
  std::printf("slept %d %d (sink %g)\n", slept[0], slept[1], sink);
  return 0;
}

// In how many of the profile's kept instances from the 100th on each thread
// is marked `sleeps_at_barriers`, and how many there are.
struct profile_count {
  int slept[2] = {0, 0};
  int instances = 0;
};
profile_count count_in_profile(const char* path) {
  profile_count count;
  std::ifstream in(path);
  const nlohmann::json profile = nlohmann::json::parse(in, nullptr, false);
  if (profile.is_discarded() || !profile.contains("sites") || profile["sites"].empty()) return count;
  const nlohmann::json& loops = profile["sites"][0]["loops"];
  for (std::size_t i = 100; i < loops.size(); ++i, ++count.instances)
    for (const auto& t : loops[i]["threads"])
      if (t.value("sleeps_at_barriers", false)) ++count.slept[t["thread"].get<int>() == 0 ? 0 : 1];
  return count;
}

// Runs this program as `--steps` on {cpu0},{cpu1} with its profile written
// to `profile`: in how many steps each thread slept at barriers, or false
// when it failed.
bool run_child(const char* self, const char* profile, int cpu0, int cpu1, int (&slept)[2]) {
  int out[2];
  if (pipe(out) != 0) return false;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    const std::string places = "{" + std::to_string(cpu0) + "},{" + std::to_string(cpu1) + "}";
    setenv("OMP_PLACES", places.c_str(), 1);
    setenv("OMP_PROC_BIND", "true", 1);
    setenv("SELFSCHED_PROFILE", profile, 1);
    const std::string c0 = std::to_string(cpu0), c1 = std::to_string(cpu1);
    execl(self, self, "--steps", c0.c_str(), c1.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string text;
  char buffer[256];
  for (ssize_t got; (got = read(out[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(got));
  close(out[0]);
  int status = 0;
  const bool ended = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ended || std::sscanf(text.c_str(), "slept %d %d", &slept[0], &slept[1]) != 2) {
    std::printf("FAIL: the time-step run failed: %s\n", text.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--steps") return run_steps(std::atoi(argv[2]), std::atoi(argv[3]));
  if (argc != 3 || (std::string(argv[1]) != "sleep" && std::string(argv[1]) != "spin")) {
    std::fprintf(stderr, "usage: %s sleep|spin PROFILE.json (sleep|spin: what SELFSCHED_SHARED_CPU says)\n", argv[0]);
    return 2;
  }
  const bool sleeps = std::string(argv[1]) == "sleep";
  const hetero::cpu_pair cpus = hetero::two_cpus();
  if (cpus.second < 0) {
    std::printf("skipped: needs two CPUs, this process may use %d\n", cpus.allowed);
    return skipped;
  }
  int budget_ms = 60'000;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    hetero::wait_for_quiet(budget_ms);
    const pid_t competitor = hetero::start_competitor(cpus.second);
    if (competitor < 0) {
      std::printf("skipped: cannot pin a process to cpu %d\n", cpus.second);
      return skipped;
    }
    int slept[2] = {-1, -1};
    const bool ran = run_child("/proc/self/exe", argv[2], cpus.first, cpus.second, slept);
    const int runnable = hetero::machine_runnable();
    hetero::stop(competitor);
    if (!ran) return 1;
    const profile_count marked = count_in_profile(argv[2]);
    std::printf("attempt %d: of the last %d time steps, thread 0 on idle cpu %d slept at barriers (blocktime 0) "
                "in %d, thread 1 on cpu %d shared with a busy process in %d (runnable tasks just after: %d, 2 of "
                "them the competitor and this test)\n",
                attempt, counted, cpus.first, slept[0], cpus.second, slept[1], runnable);
    std::printf("  its profile: of %d instances from the 100th on, thread 0 marked sleeps_at_barriers in %d, "
                "thread 1 in %d\n", marked.instances, marked.slept[0], marked.slept[1]);
    if (marked.instances == 0) {
      std::printf("FAIL: no profile with instances past the 100th in %s\n", argv[2]);
      return 1;
    }
    if (!sleeps) {
      if (slept[0] != 0 || slept[1] != 0 || marked.slept[0] != 0 || marked.slept[1] != 0) {
        std::printf("FAIL: with SELFSCHED_SHARED_CPU=spin both threads keep libomp's blocktime\n");
        return 1;
      }
      std::printf("ok: SELFSCHED_SHARED_CPU=spin leaves libomp's wait alone\n");
      return 0;
    }
    // Every second the sleeping thread spins again for a step or two to
    // look afresh (barrier_wait.cpp): most steps, not all.
    if (slept[1] >= counted * 8 / 10 && slept[0] == 0 && marked.slept[1] >= marked.instances * 8 / 10 &&
        marked.slept[0] == 0) {
      std::printf("ok: the thread on the shared cpu sleeps at barriers, the other spins\n");
      return 0;
    }
  }
  std::printf("FAIL: in %d attempts the thread on the shared cpu never slept at barriers with its team mate "
              "spinning (other users' tasks on the idle cpu count too: see above)\n", attempts);
  return 1;
}

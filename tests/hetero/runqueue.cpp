// The run-queue monitor (omp_ext/src/runqueue.hpp) in a real OpenMP loop:
// two threads bound to two CPUs (OMP_PROC_BIND=true OMP_PLACES=threads, set
// by the test), a loop run twice, the second time with a busy child process
// pinned to thread 1's core. The profile's mean Q of thread 1 must rise by
// about 1 (to about 2 on an idle machine) and stay above thread 0's.
//
// The machine is shared and noisy: the margins are half of the expected
// effect, and up to five attempts are made. Exit 77 (skipped) only when the
// machine cannot pin: fewer than two CPUs, or threads or child not bound.
#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "selfsched.h"

namespace {

constexpr int skipped = 77;

// About 0.4 s of CPU time per thread, in claims of 64 iterations (css,64),
// so that Q is sampled evenly over the loop.
double loop_once() {
  double sink = 0;
#pragma omp parallel for schedule(runtime) num_threads(2) reduction(+ : sink)
  for (long i = 0; i < 200000; ++i) {
    double x = static_cast<double>(i);
    for (int k = 0; k < 600; ++k) x = x * 0.999999 + 1e-6;
    sink += x;
  }
  return sink;
}

// A child spinning on `cpu`; -1 when it cannot be pinned there.
pid_t start_competitor(int cpu) {
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    cpu_set_t mask;
    CPU_ZERO(&mask);
    CPU_SET(cpu, &mask);
    if (sched_setaffinity(0, sizeof mask, &mask) != 0) _exit(3);
    for (volatile unsigned long spin = 0;; spin = spin + 1) {
    }
  }
  usleep(50'000);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, WNOHANG) != 0) return -1;  // it could not pin and left
  return pid;
}

void stop(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::getenv("SELFSCHED_PROFILE") == nullptr) {
    std::fprintf(stderr, "usage: SELFSCHED_PROFILE=f %s out.json\n", argv[0]);
    return 2;
  }
  cpu_set_t process_mask;
  sched_getaffinity(0, sizeof process_mask, &process_mask);
  if (CPU_COUNT(&process_mask) < 2) {
    std::printf("skipped: needs two CPUs, this process may use %d\n", CPU_COUNT(&process_mask));
    return skipped;
  }
  int cpu[2] = {-1, -1}, narrower[2] = {0, 0};
#pragma omp parallel num_threads(2)
  {
    cpu_set_t mask;
    sched_getaffinity(0, sizeof mask, &mask);
    cpu[omp_get_thread_num()] = sched_getcpu();
    narrower[omp_get_thread_num()] = CPU_COUNT(&mask) < CPU_COUNT(&process_mask);
  }
  if (cpu[0] == cpu[1] || !narrower[0] || !narrower[1]) {
    std::printf("skipped: the threads are not bound to distinct CPUs (cpus %d, %d); "
                "run with OMP_PROC_BIND=true OMP_PLACES=threads\n", cpu[0], cpu[1]);
    return skipped;
  }
  selfsched_set_schedule("css,64", 0);

  for (int attempt = 0; attempt < 5; ++attempt) {
    double sink = loop_once();  // A: nothing added
    const pid_t child = start_competitor(cpu[1]);
    if (child < 0) {
      std::printf("skipped: cannot pin a process to cpu %d\n", cpu[1]);
      return skipped;
    }
    sink += loop_once();  // B: a busy process on thread 1's core
    stop(child);
    if (selfsched_write_profile(argv[1]) != 0) {
      std::fprintf(stderr, "FAIL: selfsched_write_profile(%s)\n", argv[1]);
      return 1;
    }
    std::ifstream in(argv[1]);
    const auto loops = nlohmann::json::parse(in).at("sites").at(0).at("loops");
    double q[2][2] = {};  // [phase][thread]
    for (const auto& loop : loops) {
      const int instance = loop.at("instance");
      if (instance < 2 * attempt) continue;
      for (const auto& t : loop.at("threads")) q[instance - 2 * attempt][t.at("thread").get<int>()] = t.at("mean_queue");
    }
    std::printf("attempt %d: thread cpus %d, %d; mean Q without the competitor %.2f, %.2f; with it on cpu %d: "
                "%.2f, %.2f (sink %g)\n",
                attempt + 1, cpu[0], cpu[1], q[0][0], q[0][1], cpu[1], q[1][0], q[1][1], sink);
    const bool raised = q[1][1] >= 1.5 && q[1][1] >= q[0][1] + 0.5 && q[1][1] >= q[1][0] + 0.5;
    if (raised) {
      std::printf("ok: the loaded thread's Q rose by %.2f (expected about 1)%s\n", q[1][1] - q[0][1],
                  q[0][1] < 1.3 && q[1][0] < 1.3 ? "; the unloaded core stayed near 1" : "; the machine is busy");
      return 0;
    }
  }
  std::printf("FAIL: a busy process on thread 1's core did not raise its Q by at least 0.5 above its own "
              "earlier value and thread 0's, and to at least 1.5\n");
  return 1;
}

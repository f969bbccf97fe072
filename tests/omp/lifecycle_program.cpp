// Loops at the edges of a program's life, for a preloaded libselfsched:
//   omp_lifecycle_program exit-handlers  loops in main, in an atexit handler
//                                        and in a static destructor
//   omp_lifecycle_program fork           loops in a parent and its forked
//                                        children (libomp; libgomp itself
//                                        hangs in a child after its threads ran),
//                                        then a child that runs none
//   omp_lifecycle_program exit-in-loop   a thread calls exit() inside a loop
// Each loop checks that every iteration ran once; a wrong one exits 3.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

void loop_once(const char* where, int n) {
  std::vector<std::atomic<int>> runs(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(runtime)
  for (int i = 0; i < n; ++i) runs[static_cast<std::size_t>(i)].fetch_add(1, std::memory_order_relaxed);
  int wrong = 0;
  for (const auto& r : runs) wrong += r.load() != 1;
  std::printf("%s: %d wrong\n", where, wrong);
  std::fflush(stdout);
  if (wrong != 0) std::_Exit(3);
}

struct at_the_end {
  bool armed = false;
  ~at_the_end() {
    if (armed) loop_once("static destructor", 30000);
  }
} destructor;

}  // namespace

int main(int argc, char** argv) {
  const char* mode = argc == 2 ? argv[1] : "";
  if (std::strcmp(mode, "exit-handlers") == 0) {
    destructor.armed = true;
    std::atexit([] { loop_once("atexit handler", 20000); });
    loop_once("main", 10000);
    return 0;
  }
  if (std::strcmp(mode, "fork") == 0) {
    loop_once("parent", 10000);
    for (int child = 0; child < 3; ++child) {
      const pid_t pid = fork();
      if (pid == 0) {
        for (int k = 0; k < 3; ++k) loop_once("child", 10000);
        std::exit(0);
      }
      int status = 0;
      if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::printf("child %d failed (status %d)\n", child, status);
        return 1;
      }
      loop_once("parent after a child", 10000);
    }
    // A child that runs no loop and ends with exit(): its atexit handlers run.
    const pid_t idle = fork();
    if (idle == 0) std::exit(0);
    int status = 0;
    if (idle < 0 || waitpid(idle, &status, 0) != idle || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::printf("the child without loops failed (status %d)\n", status);
      return 1;
    }
    return 0;
  }
  if (std::strcmp(mode, "exit-in-loop") == 0) {
    loop_once("main", 10000);
    volatile double sink = 0;
#pragma omp parallel for schedule(runtime)
    for (int i = 0; i < 4000000; ++i) {
      sink = sink + i * 1e-9;
      if (i == 3000000) {
        std::printf("exit() from inside the loop\n");
        std::fflush(stdout);
        std::exit(0);
      }
    }
    return 1;
  }
  std::fprintf(stderr, "usage: omp_lifecycle_program exit-handlers|fork|exit-in-loop\n");
  return 2;
}

// dispatch_icount: one parallel region running LOOPS instances of an
// N-iteration loop, for counting the instructions of __kmpc_dispatch_* under valgrind --tool=callgrind
// (callgrind_icount.sh). Plain OpenMP: libselfsched comes in by LD_PRELOAD
// and the technique by OMP_SCHEDULE, as for an unmodified program.
//
//   dispatch_icount CLAUSE N [THREADS] [LOOPS]
//   CLAUSE: static | runtime | monotonic:dynamic,1 | nonmonotonic:dynamic,1 | guided,1 | atomic
#include <cstdio>
#include <cstdlib>

#include "loops.hpp"

int main(int argc, char** argv) {
  bench::clause form{};
  const long long n = argc > 2 ? std::atoll(argv[2]) : 0;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 2;
  const int loops = argc > 4 ? std::atoi(argv[4]) : 1;
  if (argc < 3 || !bench::parse_clause(argv[1], form) || n <= 0 || threads <= 0 || loops <= 0) {
    std::fprintf(stderr, "usage: dispatch_icount CLAUSE N [THREADS] [LOOPS]; CLAUSE one of:");
    for (const auto& c : bench::clause_names) std::fprintf(stderr, " %s", c.name);
    std::fprintf(stderr, "\n");
    return 1;
  }
  bench::region(form, threads, n, loops).run();
  std::printf("dispatch_icount: %s, %d loops of %lld iterations, %d threads\n", argv[1], loops, n, threads);
}

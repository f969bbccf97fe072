// Built without debug info (-g0): clang then gives every loop of a function
// the same ident_t, and selfsched must still tell the loops apart (by the
// dispatch call's return address). Two schedule(runtime) loops and one
// schedule(auto) loop, each run `steps` times (so auto starts later
// instances from what earlier ones learned), each iteration exactly once.
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// Iteration i costs about (i % 7) units: uneven, so chunks vary.
double work(long i) {
  double x = 1.0;
  for (long k = 0; k < 50 * (i % 7); ++k) x = x * 1.0000001 + 1e-9;
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 50000;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 3;
  std::vector<std::atomic<int>> first(static_cast<std::size_t>(n)), second(static_cast<std::size_t>(n)),
      written_auto(static_cast<std::size_t>(n));
  double sink = 0;
  for (int step = 0; step < steps; ++step) {
#pragma omp parallel for schedule(runtime) reduction(+ : sink)
    for (long i = 0; i < n; ++i) first[static_cast<std::size_t>(i)]++, sink += work(i);
#pragma omp parallel for schedule(runtime) reduction(+ : sink)
    for (long i = n - 1; i >= 0; --i) second[static_cast<std::size_t>(i)]++, sink += work(n - i);
#pragma omp parallel for schedule(auto) reduction(+ : sink)
    for (long i = 0; i < n; ++i) written_auto[static_cast<std::size_t>(i)]++, sink += work(i / 3);
  }
  long wrong = 0;
  for (long i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    wrong += (first[k] != steps) + (second[k] != steps) + (written_auto[k] != steps);
  }
  omp_sched_t kind;
  int chunk = 0;
  omp_get_schedule(&kind, &chunk);
  std::printf("n=%ld steps=%d wrong=%ld omp_get_schedule=%d sink=%d\n", n, steps, wrong, static_cast<int>(kind),
              sink > 0);
  return wrong == 0 ? 0 : 1;
}

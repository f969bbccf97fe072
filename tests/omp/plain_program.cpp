// An ordinary OpenMP program that knows nothing of selfsched: used with
// LD_PRELOAD=libselfsched.so to check the drop-in path and the messages.
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 100000;
  std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
  long sum = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
  for (long i = 0; i < n; ++i) {
    hits[static_cast<std::size_t>(i)]++;
    sum += i;
  }
#pragma omp parallel for schedule(dynamic, 2)
  for (long i = 0; i < n; ++i) hits[static_cast<std::size_t>(i)]++;
  long wrong = 0;
  for (auto& h : hits) wrong += h.load() != 2;
  omp_sched_t kind;
  int chunk = 0;
  omp_get_schedule(&kind, &chunk);
  std::printf("n=%ld sum_ok=%d wrong=%ld omp_get_schedule=%d,%d\n", n, sum == n * (n - 1) / 2, wrong,
              static_cast<int>(kind), chunk);
  return wrong == 0 && sum == n * (n - 1) / 2 ? 0 : 1;
}

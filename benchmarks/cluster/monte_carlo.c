// A plain OpenMP Monte Carlo estimate (no MPI, no selfsched call): pi from
// points in the unit square, each iteration's points from its own
// generator, so the result does not depend on who runs what. A reduction,
// and a histogram of distances written by iteration. For cluster mode's
// benchmark (benchmarks/cluster/compare.py).
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t next(uint64_t* s) {  // splitmix64
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int main(int argc, char** argv) {
  const long batches = argc > 1 ? atol(argv[1]) : 4000;
  const long per_batch = argc > 2 ? atol(argv[2]) : 20000;
  long* inside = calloc((size_t)batches, sizeof(long));
  long total = 0;
  const double start = omp_get_wtime();
  #pragma omp parallel for schedule(runtime) reduction(+:total)
  for (long b = 0; b < batches; ++b) {
    uint64_t state = (uint64_t)b * 7919 + 1;
    long hits = 0;
    for (long k = 0; k < per_batch; ++k) {
      const double x = (double)(next(&state) >> 11) / 9007199254740992.0;
      const double y = (double)(next(&state) >> 11) / 9007199254740992.0;
      hits += x * x + y * y <= 1.0;
    }
    inside[b] = hits;
    total += hits;
  }
  const double seconds = omp_get_wtime() - start;
  unsigned long long check = 1469598103934665603ULL;
  for (long b = 0; b < batches; ++b) check = (check ^ (unsigned long long)inside[b]) * 1099511628211ULL;
  printf("app=monte_carlo batches=%ld points=%ld pi=%.8f threads=%d time_s=%.6f checksum=0x%llx ok=%d\n", batches,
         batches * per_batch, 4.0 * total / ((double)batches * per_batch), omp_get_max_threads(), seconds, check,
         total > 0);
  free(inside);
  return 0;
}

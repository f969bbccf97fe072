// A plain OpenMP program whose loops are memory-bound (no MPI, no selfsched
// call): arrays initialised by a static loop, then time steps of a triad
// and a copy. Each step moves 24-32 bytes per flop or two, so sharing it
// across ranks would merge about as many bytes as it computes: cluster
// mode's auto should run these loops replicated (docs/cluster.md, "Which
// loops are shared"). For benchmarks/cluster/compare.py.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 2000000;
  const int steps = argc > 2 ? atoi(argv[2]) : 20;
  if (n <= 0 || steps <= 0) {
    fprintf(stderr, "memory_bound: n (%ld) and steps (%d) must be positive\n", n, steps);
    return 2;
  }
  double* a = malloc((size_t)n * sizeof(double));
  double* b = malloc((size_t)n * sizeof(double));
  double* c = malloc((size_t)n * sizeof(double));
  if (a == NULL || b == NULL || c == NULL) {
    fprintf(stderr, "memory_bound: %ld doubles do not fit\n", n);
    return 2;
  }
  const double start = omp_get_wtime();
  #pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    a[i] = (double)(i % 1000) / 8;
    b[i] = (double)(i % 37);
    c[i] = 0;
  }
  for (int s = 0; s < steps; ++s) {
    #pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) c[i] = a[i] + 0.5 * b[i];
    #pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) a[i] = c[i] - b[i] / 4;
  }
  const double seconds = omp_get_wtime() - start;
  unsigned long long check = 1469598103934665603ULL;
  for (long i = 0; i < n; i += 97) check = (check ^ (unsigned long long)(a[i] * 64)) * 1099511628211ULL;
  printf("app=memory_bound n=%ld steps=%d threads=%d time_s=%.6f checksum=0x%llx\n", n, steps,
         omp_get_max_threads(), seconds, check);
  free(a);
  free(b);
  free(c);
  return 0;
}

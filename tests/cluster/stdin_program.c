// Reads numbers from standard input to its end and sums their squares in
// a parallel loop: under cluster mode every rank must read the same numbers.
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  size_t count = 0, capacity = 1024;
  double* v = malloc(capacity * sizeof *v);
  for (double x; scanf("%lf", &x) == 1;) {
    if (count == capacity) v = realloc(v, (capacity *= 2) * sizeof *v);
    v[count++] = x;
  }
  double sum = 0;
  #pragma omp parallel for reduction(+ : sum) schedule(dynamic, 16)
  for (size_t i = 0; i < count; ++i) sum += v[i] * v[i];
  printf("read %zu numbers, sum of squares %.6f\n", count, sum);
  free(v);
  return 0;
}

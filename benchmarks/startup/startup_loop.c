// The short OpenMP program of `make bench-startup`: one parallel loop of
// 1,000 iterations whose schedule the environment picks (schedule(runtime)),
// then its result. Start-up and exit are most of its run, so what loading
// libselfsched adds to a process shows here. The sum is checked by the
// benchmark: a run that lost or repeated an iteration fails it.
#include <stdio.h>

int main(void) {
  double sum = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
  for (int i = 0; i < 1000; ++i) sum += 0.5 * i;
  printf("%.1f\n", sum);
  return 0;
}

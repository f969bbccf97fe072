/* An ordinary C program built with gcc -fopenmp (libgomp) that knows
   nothing of selfsched: its schedule(runtime) loops are served when
   libselfsched is preloaded or linked before libgomp. Prints whether every
   iteration ran exactly once and whether selfsched_set_schedule, looked up at
   run time, was taken (1), refused (0) or absent (-). */
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static long check(const int* hits, long n, int expected) {
  long wrong = 0;
  for (long i = 0; i < n; ++i) wrong += hits[i] != expected;
  return wrong;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 100000;
  int* hits = calloc((size_t)n, sizeof *hits);
  if (hits == NULL) return 2;
  long sum = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
  for (long i = 0; i < n; ++i) {
#pragma omp atomic
    hits[i]++;
    sum += i;
  }
#pragma omp parallel
  {
#pragma omp for schedule(runtime) nowait
    for (unsigned long long i = 0; i < (unsigned long long)n; ++i) {
#pragma omp atomic
      hits[i]++;
    }
  }
  const long wrong = check(hits, n, 2);
  int (*set_schedule)(const char*, long) = (int (*)(const char*, long))dlsym(RTLD_DEFAULT, "selfsched_set_schedule");
  const char* taken = set_schedule == NULL ? "-" : set_schedule("tss", 0) == 0 ? "1" : "0";
  printf("n=%ld sum_ok=%d wrong=%ld set_schedule=%s\n", n, sum == n * (n - 1) / 2, wrong, taken);
  free(hits);
  return wrong == 0 && sum == n * (n - 1) / 2 ? 0 : 1;
}

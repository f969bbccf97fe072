/* A C program built with `pkg-config --cflags --libs selfsched`. */
#include <selfsched.h>
#include <stdio.h>

int main(void) {
  if (selfsched_set_schedule("tss", 0) != 0) return 1;
  enum { n = 5003 };
  static int hits[n];
#pragma omp parallel for schedule(runtime) num_threads(2)
  for (int i = 0; i < n; ++i) hits[i] += 1;
  for (int i = 0; i < n; ++i)
    if (hits[i] != 1) return fprintf(stderr, "iteration %d ran %d times\n", i, hits[i]), 1;
  char name[32];
  selfsched_get_schedule(name, sizeof name);
  printf("pkg-config consumer ok: %s\n", name);
  return 0;
}

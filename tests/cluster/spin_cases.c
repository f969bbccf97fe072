/* Threads that wait, spinning, for a flag a thread of another rank sets
 * without a barrier between: in cluster mode that write reaches the
 * spinning rank early (mpi_bridge/cluster/early_writes.cpp), never only at
 * the barrier the spinning rank cannot reach. Each case prints what one
 * process prints; `long_chunk` is a region one rank's threads finish
 * seconds after the other's, which must merge as usual. `singles_chain`
 * (LLVM's omp_single_nowait.c without its atomic count): three `single
 * nowait` blocks each hold a thread until a fourth `single` sets the flag,
 * so it needs as many threads as the cluster-wide team has, not rank 0's.
 *
 *   spin_cases for_nowait | sections_nowait | single_nowait | singles_chain | long_chunk */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static volatile int go;
static int arrived;
static double results[8];

/* A nowait loop whose first iterations wait for the next loop to start. */
static int for_nowait(void) {
  go = 0;
  arrived = 0;
#pragma omp parallel num_threads(4)
  {
#pragma omp for schedule(static) nowait
    for (int i = 0; i < 4; ++i)
      if (i < 3)
        while (go == 0) {
        }
#pragma omp for schedule(static)
    for (int i = 0; i < 4; ++i) {
      go = 1;
#pragma omp atomic
      arrived++;
    }
  }
  printf("for_nowait: arrived %d\n", arrived);
  return arrived == 4 ? 0 : 1;
}

/* Sections without a barrier: the first waits for the last of the next ones. */
static int sections_nowait(void) {
  go = 0;
  memset(results, 0, sizeof results);
#pragma omp parallel num_threads(4)
  {
#pragma omp sections nowait
    {
#pragma omp section
      {
        while (go == 0) {
        }
        results[0] = 1.5;
      }
#pragma omp section
      results[1] = 2.5;
    }
#pragma omp sections
    {
#pragma omp section
      results[2] = 3.5;
#pragma omp section
      results[3] = 4.5;
#pragma omp section
      results[4] = 5.5;
#pragma omp section
      go = 1;
    }
  }
  printf("sections_nowait: %.1f %.1f %.1f %.1f %.1f go %d\n", results[0], results[1], results[2], results[3],
         results[4], go);
  return results[0] == 1.5 ? 0 : 1;
}

/* A single without a barrier releases the threads that did not run it. */
static int single_nowait(void) {
  go = 0;
  memset(results, 0, sizeof results);
#pragma omp parallel num_threads(4)
  {
#pragma omp single nowait
    {
      results[0] = 42;
      go = 1;
    }
    while (go == 0) {
    }
    results[1 + omp_get_thread_num()] = results[0] + omp_get_thread_num();
  }
  printf("single_nowait:");
  for (int t = 0; t < 5; ++t) printf(" %.0f", results[t]);
  printf("\n");
  return results[4] == 45 ? 0 : 1;
}

static volatile int release;
static int singles_chain(void) {
  release = 0;
  memset(results, 0, sizeof results);
#pragma omp parallel num_threads(4)
  {
#pragma omp single nowait
    {
      while (release == 0) {
      }
      results[0] = 1;
    }
#pragma omp single nowait
    {
      while (release == 0) {
      }
      results[1] = 2;
    }
#pragma omp single nowait
    {
      while (release == 0) {
      }
      results[2] = 3;
    }
#pragma omp single
    {
      release = 1;
      results[3] = 4;
    }
  }
  printf("singles_chain: %.0f %.0f %.0f %.0f\n", results[0], results[1], results[2], results[3]);
  return results[0] + results[1] + results[2] + results[3] == 10 ? 0 : 1;
}

static double busy_seconds(double seconds) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  double x = 0;
  do {
    for (int k = 0; k < 100000; ++k) x += 1e-9 * k;
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec) < seconds);
  return x > 0 ? 1 : 0;
}

/* The last thread's iteration computes for 3 s, the others' at once: a
 * legitimately long chunk, whose rank comes to the barrier seconds late. */
static int long_chunk(void) {
  memset(results, 0, sizeof results);
#pragma omp parallel num_threads(4)
  {
#pragma omp for schedule(static)
    for (int i = 0; i < 4; ++i) results[i] = i == 3 ? busy_seconds(3.0) + 3 : i;
  }
  printf("long_chunk: %.0f %.0f %.0f %.0f\n", results[0], results[1], results[2], results[3]);
  return results[3] == 4 ? 0 : 1;
}

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  if (strcmp(which, "for_nowait") == 0) return for_nowait();
  if (strcmp(which, "sections_nowait") == 0) return sections_nowait();
  if (strcmp(which, "single_nowait") == 0) return single_nowait();
  if (strcmp(which, "singles_chain") == 0) return singles_chain();
  if (strcmp(which, "long_chunk") == 0) return long_chunk();
  fprintf(stderr, "spin_cases: unknown case '%s' (valid: for_nowait, sections_nowait, single_nowait, long_chunk)\n",
          which);
  return 2;
}

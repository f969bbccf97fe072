/* The serial arena holds the program's blocks and nothing of the runtime's
 * (docs/cluster.md): what libomp allocates through the C library must not sit
 * in it, or the ranks' layouts differ by the machine's state.
 *
 *   serial_arena side_by_side  OpenMP calls before the first region (libomp's
 *                              start, an orphaned loop and barrier), then
 *                              regions under omp_set_dynamic(1), whose fork
 *                              makes libomp scan /proc (a directory opened
 *                              per process); the two blocks serial code
 *                              allocates around all that are neighbours in
 *                              cluster mode's heap. Exit 1 naming the gap.
 *   serial_arena rank_sized    serial code allocates a size that differs by
 *                              rank: the job must stop at the first region,
 *                              naming the serial arena and both addresses.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cluster mode's heap (mpi_bridge/cluster/program_heap.hpp): its serial arena. */
static const uintptr_t cluster_heap = 0x200000000000;
static const uintptr_t serial_bytes = (uintptr_t)2 << 40;

static int side_by_side(void) {
  char* before = malloc(40);
  omp_set_dynamic(1);
  const int most = omp_get_max_threads();
  const double start = omp_get_wtime();
  int first[8] = {0};
#pragma omp for
  for (int i = 0; i < 8; ++i) first[i] = i;
#pragma omp barrier
  long total = 0;
  for (int step = 0; step < 3; ++step) {
#pragma omp parallel for reduction(+ : total)
    for (int i = 0; i < 1000; ++i) total += (i + first[i % 8]) % 7;
  }
  char* after = malloc(40);
  const uintptr_t b = (uintptr_t)before, a = (uintptr_t)after;
  const int in_cluster_heap = b - cluster_heap < serial_bytes;
  printf("total %ld, threads %s, time %s\n", total, most > 0 ? "some" : "none", omp_get_wtime() >= start ? "on" : "back");
  /* Two 40-byte blocks in a row sit 64 bytes apart (a 16-byte header each);
     anything the runtime left between them moves the second further. */
  if (in_cluster_heap && a - b != 64) {
    fprintf(stderr, "serial blocks at %#lx and %#lx: %ld bytes apart, not 64: the runtime allocated in between\n",
            (unsigned long)b, (unsigned long)a, (long)(a - b));
    return 1;
  }
  free(after);
  free(before);
  return 0;
}

static char* volatile kept;  /* a block the compiler cannot leave out */

static int rank_sized(void) {
  const char* rank = getenv("SELFSCHED_CLUSTER_RANK");
  kept = malloc(16 + 16 * (size_t)(rank != NULL ? atoi(rank) : 0));
  long total = 0;
#pragma omp parallel for reduction(+ : total)
  for (int i = 0; i < 100; ++i) total += i;
  printf("total %ld\n", total);
  free(kept);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 2 && strcmp(argv[1], "side_by_side") == 0) return side_by_side();
  if (argc == 2 && strcmp(argv[1], "rank_sized") == 0) return rank_sized();
  fprintf(stderr, "usage: %s side_by_side|rank_sized\n", argv[0]);
  return 2;
}

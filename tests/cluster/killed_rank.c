// A plain OpenMP program whose rank 1 (SELFSCHED_CLUSTER_RANK, set by cluster
// mode for its own use) dies by SIGKILL while rank 0 enters a parallel
// region: the job must end with one message naming the rank, never wait
// for it. It dies before its first region: from the first merge on, every
// byte of the program's memory (the environment's strings on the main
// stack included) is rank 0's, and the program cannot tell its rank.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  const char* rank = getenv("SELFSCHED_CLUSTER_RANK");
  if (rank != NULL && strcmp(rank, "1") == 0) raise(SIGKILL);
  static double a[100000];
  double sum = 0;
  #pragma omp parallel for schedule(dynamic, 100) reduction(+ : sum)
  for (int i = 0; i < 100000; ++i) {
    a[i] = i * 0.5;
    sum += a[i];
  }
  printf("sum %.1f\n", sum);
  return 0;
}

// Serial code that writes a file, stats it, appends to it, reads it back,
// renames it, makes and removes a directory's files, truncates and updates
// in place, around parallel loops: cluster mode must give the same output
// and the same files as one process, written once. Run it in a directory
// holding log.txt; every step prints what it saw.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define N 2000
static double values[N];

static long size_of(const char* path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

// FNV-1a over the file's bytes; 0 when it cannot be read.
static unsigned long long checksum_of(const char* path) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return 0;
  unsigned long long h = 1469598103934665603ULL;
  for (int c; (c = fgetc(f)) != EOF;) h = (h ^ (unsigned char)c) * 1099511628211ULL;
  fclose(f);
  return h;
}

static void write_new_file(void) {
  printf("out.txt exists before: %d\n", access("out.txt", F_OK) == 0);
  FILE* f = fopen("out.txt", "w");
  for (int i = 0; i < N; i += 10) fprintf(f, "%d %.3f\n", i, values[i]);
  fclose(f);
  printf("out.txt exists after: %d, %ld bytes\n", access("out.txt", F_OK) == 0, size_of("out.txt"));
}

// O_APPEND: a line there once, not once per rank. log.txt was there before.
static void append(double sum) {
  int fd = open("out.txt", O_WRONLY | O_APPEND);
  if (write(fd, "appended\n", 9) != 9) printf("append failed\n");
  close(fd);
  fd = open("log.txt", O_WRONLY | O_APPEND | O_CREAT, 0644);
  dprintf(fd, "run: sum %.3f\n", sum);
  close(fd);
  printf("after appending: out.txt %ld bytes, log.txt %ld bytes\n", size_of("out.txt"), size_of("log.txt"));
}

static double read_back(void) {
  FILE* f = fopen("out.txt", "r");
  double sum = 0, v;
  int i, lines = 0;
  while (fscanf(f, "%d %lf", &i, &v) == 2) sum += v, ++lines;
  fclose(f);
  printf("read back %d lines, sum %.3f, checksum %llx\n", lines, sum, checksum_of("out.txt"));
  return sum;
}

static void rename_and_directories(void) {
  printf("rename: %d\n", rename("out.txt", "result.txt"));
  printf("out.txt %ld bytes, result.txt %ld bytes\n", size_of("out.txt"), size_of("result.txt"));
  printf("mkdir: %d, again: %d\n", mkdir("sub", 0755), mkdir("sub", 0755));
  FILE* f = fopen("sub/scratch.txt", "w");
  fputs("scratch\n", f);
  fclose(f);
  f = fopen("sub/keep.txt", "w");
  fputs("kept\n", f);
  fclose(f);
  printf("unlink: %d, remove missing: %d\n", unlink("sub/scratch.txt"), remove("sub/missing.txt"));
  printf("sub/scratch.txt %ld bytes, sub/keep.txt %ld bytes\n", size_of("sub/scratch.txt"), size_of("sub/keep.txt"));
}

static void truncate_and_update(void) {
  printf("truncate: %d, %ld bytes\n", truncate("result.txt", 200), size_of("result.txt"));
  FILE* f = fopen("result.txt", "r+");
  fputs("UPDATED", f);
  fclose(f);
  printf("updated in place: %ld bytes, checksum %llx\n", size_of("result.txt"), checksum_of("result.txt"));
}

int main(void) {
  #pragma omp parallel for schedule(dynamic, 7)
  for (int i = 0; i < N; ++i) values[i] = i * 0.5 + (i % 7);
  double sum = 0;
  for (int i = 0; i < N; ++i) sum += values[i];

  write_new_file();
  append(sum);
  const double back = read_back();
  rename_and_directories();
  truncate_and_update();

  // Parallel loops after all this, a stream open across them: every
  // rank's memory still alike (its buffer too).
  FILE* progress = fopen("progress.txt", "w");
  double total = 0;
  for (int step = 0; step < 3; ++step) {
    #pragma omp parallel for reduction(+ : total) schedule(dynamic, 5)
    for (int i = 0; i < N; ++i) total += values[i] * back;
    for (int line = 0; line < 100; ++line) fprintf(progress, "step %d line %d total %.3f\n", step, line, total);
  }
  fclose(progress);
  printf("total %.3f\nlog.txt checksum %llx, progress.txt checksum %llx\n", total, checksum_of("log.txt"),
         checksum_of("progress.txt"));
  return 0;
}

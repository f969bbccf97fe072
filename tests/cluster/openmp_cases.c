// Plain OpenMP programs (no MPI, no selfsched call) that cluster mode must
// run with the same output as one process: every case computes its result
// in parallel, checks it against a serial computation, and prints both the
// result and "ok" or "WRONG". `openmp_cases CASE [output file]`.
#define _GNU_SOURCE  // mremap
#include <fcntl.h>
#include <omp.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 20000
static double global_a[N], global_b[N];

static int check(const char* name, int ok) {
  printf("%s: %s\n", name, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}

static double value(int i) { return (double)((i * 37) % 1000) / 8.0; }  // exact in binary

static int static_globals(void) {
  #pragma omp parallel for
  for (int i = 0; i < N; ++i) global_a[i] = value(i);
  #pragma omp parallel for schedule(static, 3)
  for (int i = 0; i < N; ++i) global_b[i] = global_a[N - 1 - i] * 2;
  double s = 0, e = 0;
  for (int i = 0; i < N; ++i) { s += global_a[i] + global_b[i] * (i % 5); e += value(i) + 2 * value(N - 1 - i) * (i % 5); }
  printf("static_globals %.3f\n", s);
  return check("static_globals", s == e);
}

static int heap_before(void) {
  double* h = malloc(N * sizeof(double));
  int* k = calloc(N, sizeof(int));
  #pragma omp parallel for
  for (int i = 0; i < N; ++i) { h[i] = value(i) + 1; k[i] = i % 97; }
  double s = 0, e = 0;
  for (int i = 0; i < N; ++i) { s += h[i] * k[i]; e += (value(i) + 1) * (i % 97); }
  printf("heap_before %.3f\n", s);
  free(h);
  free(k);
  return check("heap_before", s == e);
}

static int main_locals(void) {
  double local[4000];
  int count = 4000;
  #pragma omp parallel for
  for (int i = 0; i < count; ++i) local[i] = value(i) * 3;
  double s = 0, e = 0;
  for (int i = 0; i < count; ++i) { s += local[i] * (i & 7); e += value(i) * 3 * (i & 7); }
  printf("main_locals %.3f\n", s);
  return check("main_locals", s == e);
}

// Rows of an odd width, one row per iteration, cyclic: ranks write
// neighbouring bytes of the same pages.
static int interleaved_bytes(void) {
  enum { width = 13, rows = 3001 };
  unsigned char* image = malloc(width * rows);
  #pragma omp parallel for schedule(static, 1)
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < width; ++c) image[r * width + c] = (unsigned char)(1 + (r * 7 + c * 3) % 250);
  #pragma omp parallel for schedule(dynamic, 1)
  for (int r = 0; r < rows; ++r) image[r * width + r % width] ^= 0x5a;
  unsigned long long h = 1469598103934665603ULL, e = h;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < width; ++c) {
      unsigned char v = (unsigned char)(1 + (r * 7 + c * 3) % 250);
      if (c == r % width) v ^= 0x5a;
      h = (h ^ image[r * width + c]) * 1099511628211ULL;
      e = (e ^ v) * 1099511628211ULL;
    }
  printf("interleaved_bytes %llx\n", h);
  free(image);
  return check("interleaved_bytes", h == e);
}

struct particle { double x, v; int id; char tag[3]; };
static int structs(void) {
  struct particle* p = malloc(N * sizeof *p);
  #pragma omp parallel for
  for (int i = 0; i < N; ++i) { p[i].x = value(i); p[i].v = -value(i) / 2; p[i].id = i; p[i].tag[0] = (char)('a' + i % 26); p[i].tag[1] = 0; }
  #pragma omp parallel for schedule(guided)
  for (int i = 0; i < N; ++i) { p[i].x += p[i].v; p[i].tag[2] = 'z'; }
  double s = 0, e = 0;
  int tags = 0;
  for (int i = 0; i < N; ++i) { s += p[i].x * (p[i].id % 3); e += value(i) / 2 * (i % 3); tags += p[i].tag[0] == 'a' + i % 26 && p[i].tag[2] == 'z'; }
  printf("structs %.3f\n", s);
  free(p);
  return check("structs", s == e && tags == N);
}

static int per_thread(void) {
  const int max = omp_get_max_threads();
  long long* partial = calloc((size_t)max, sizeof(long long));
  int team = 0;
  #pragma omp parallel
  {
    const int t = omp_get_thread_num();
    #pragma omp for
    for (int i = 0; i < N; ++i) partial[t] += i;
    #pragma omp single
    team = omp_get_num_threads();
  }
  long long s = 0;
  for (int t = 0; t < max; ++t) s += partial[t];
  printf("per_thread team=%d max=%d sum=%lld\n", team, max, s);
  free(partial);
  return check("per_thread", s == (long long)N * (N - 1) / 2 && team == max);
}

static int reductions(void) {
  long long sum = 0, prod = 1;
  int mx = -1, mn = 1 << 30, band = ~0, bor = 0, bxor = 0, land = 1, lor = 0;
  double dsum = 0, dmax = -1;
  unsigned char small = 0;
  long long section[8] = {0};
  #pragma omp parallel for reduction(+:sum,dsum) reduction(max:mx,dmax) reduction(min:mn) reduction(&:band) \
      reduction(|:bor) reduction(^:bxor) reduction(&&:land) reduction(||:lor) reduction(+:small) reduction(+:section[0:8])
  for (int i = 0; i < N; ++i) {
    sum += i; dsum += value(i); mx = i % 1001 > mx ? i % 1001 : mx; dmax = value(i) > dmax ? value(i) : dmax;
    mn = (i + 5) % 777 < mn ? (i + 5) % 777 : mn; band &= ~(1 << (i % 5)) | 0xf0; bor |= 1 << (i % 9);
    bxor ^= i; land = land && (i >= 0); lor = lor || (i == N - 3); small += (unsigned char)(i & 1); section[i % 8] += i;
  }
  #pragma omp parallel for reduction(*:prod)
  for (int i = 1; i <= 30; ++i) prod *= (i % 3) + 1;
  long long e_sum = 0, e_prod = 1, e_section[8] = {0};
  int e_mx = -1, e_mn = 1 << 30, e_band = ~0, e_bor = 0, e_bxor = 0;
  double e_dsum = 0;
  unsigned char e_small = 0;
  for (int i = 0; i < N; ++i) {
    e_sum += i; e_dsum += value(i); e_mx = i % 1001 > e_mx ? i % 1001 : e_mx; e_mn = (i + 5) % 777 < e_mn ? (i + 5) % 777 : e_mn;
    e_band &= ~(1 << (i % 5)) | 0xf0; e_bor |= 1 << (i % 9); e_bxor ^= i; e_small += (unsigned char)(i & 1); e_section[i % 8] += i;
  }
  for (int i = 1; i <= 30; ++i) e_prod *= (i % 3) + 1;
  printf("reductions %lld %.3f %d %.3f %d %d %d %d %d %d %u %lld %lld\n", sum, dsum, mx, dmax, mn, band, bor, bxor, land, lor,
         small, prod, section[3]);
  return check("reductions", sum == e_sum && dsum == e_dsum && mx == e_mx && dmax == 124.875 && mn == e_mn &&
                                 band == e_band && bor == e_bor && bxor == e_bxor && land == 1 && lor == 1 && small == e_small &&
                                 prod == e_prod && !memcmp(section, e_section, sizeof section));
}

// Reductions of worksharing loops inside a region: without nowait the
// compiler calls the blocking __kmpc_reduce / __kmpc_end_reduce (flang does
// for every reduction), whose barrier every thread of every rank meets.
static int loop_reductions(void) {
  long long sum = 0;
  double dmax = -1;
  int last_team = 0;
  #pragma omp parallel
  {
    #pragma omp for reduction(+:sum)
    for (int i = 0; i < N; ++i) sum += i;
    #pragma omp for schedule(dynamic, 64) reduction(max:dmax)
    for (int i = 0; i < N; ++i) dmax = value(i) > dmax ? value(i) : dmax;
    #pragma omp for reduction(+:sum)
    for (int i = 0; i < N; ++i) sum += 2;
    #pragma omp single
    last_team = omp_get_num_threads();
  }
  printf("loop_reductions %lld %.3f\n", sum, dmax);
  return check("loop_reductions", sum == (long long)N * (N - 1) / 2 + 2LL * N && dmax == 124.875 && last_team > 0);
}

// A host teams construct (OpenMP 5.0): its teams' regions run on every
// rank as one process runs them (before, rank 1 crashed at the end).
// Host teams: a league of two, a league of one (it reports one team, as no
// league does), and a target region run on the host (no device).
static int host_teams(void) {
  long long sum = 0, one = 0;
  #pragma omp teams distribute parallel for reduction(+:sum) num_teams(2)
  for (int i = 0; i < N; ++i) sum += 3LL * i;
  #pragma omp teams distribute parallel for reduction(+:one) num_teams(1)
  for (int i = 0; i < N; ++i) one += 2LL * i;
  #pragma omp target teams distribute parallel for map(tofrom: global_a[0:N])
  for (int i = 0; i < N; ++i) global_a[i] = value(i) * 4;
  double target = 0;
  for (int i = 0; i < N; ++i) target += global_a[i] - value(i) * 4;
  printf("host_teams %lld %lld %.1f\n", sum, one, target);
  return check("host_teams", sum == 3LL * N * (N - 1) / 2 && one == 2LL * N * (N - 1) / 2 && target == 0);
}

static int lastprivate(void) {
  int ls = -1, lc = -1, ld = -1;
  #pragma omp parallel for lastprivate(ls)
  for (int i = 0; i < N; ++i) ls = i * 2;
  #pragma omp parallel for schedule(static, 7) lastprivate(lc)
  for (int i = 0; i < N; ++i) lc = i * 3;
  #pragma omp parallel for schedule(dynamic, 5) lastprivate(ld)
  for (int i = 0; i < N; ++i) ld = i * 5;
  printf("lastprivate %d %d %d\n", ls, lc, ld);
  return check("lastprivate", ls == (N - 1) * 2 && lc == (N - 1) * 3 && ld == (N - 1) * 5);
}

static int nowait_chain(void) {
  #pragma omp parallel
  {
    #pragma omp for nowait
    for (int i = 0; i < N; ++i) global_a[i] = value(i);
    #pragma omp for nowait
    for (int i = 0; i < N; ++i) global_b[i] = global_a[i] + 1;  // the same iterations as above: same thread
    #pragma omp for schedule(static) nowait
    for (int i = 0; i < N; ++i) global_a[i] = global_b[i] * 2;
  }
  double s = 0, e = 0;
  for (int i = 0; i < N; ++i) { s += global_a[i] * (i % 11); e += (value(i) + 1) * 2 * (i % 11); }
  printf("nowait_chain %.3f\n", s);
  return check("nowait_chain", s == e);
}

static int barriers(void) {
  double* u = malloc(N * sizeof(double));
  double norm = 0;
  #pragma omp parallel
  {
    #pragma omp for nowait
    for (int i = 0; i < N; ++i) u[i] = value(i);
    #pragma omp barrier
    #pragma omp for nowait
    for (int i = 0; i < N; ++i) global_b[i] = u[N - 1 - i] + u[i];
    #pragma omp barrier
    #pragma omp master
    norm = global_b[0] + global_b[N - 1];
    #pragma omp barrier
    #pragma omp for
    for (int i = 0; i < N; ++i) u[i] = global_b[i] - norm;
  }
  double s = 0, e = 0;
  const double en = 2 * (value(0) + value(N - 1));
  for (int i = 0; i < N; ++i) { s += u[i] * (i % 13); e += (value(N - 1 - i) + value(i) - en) * (i % 13); }
  printf("barriers %.3f %.3f\n", norm, s);
  free(u);
  return check("barriers", s == e && norm == en);
}

// A time-stepped loop inside a function called many times.
static void relax(double* from, double* to, int n) {
  #pragma omp parallel for
  for (int i = 1; i < n - 1; ++i) to[i] = (from[i - 1] + 2 * from[i] + from[i + 1]) / 4;
}
static int time_steps(void) {
  enum { n = 4096, steps = 60 };
  double* a = calloc(n, sizeof(double));
  double* b = calloc(n, sizeof(double));
  double* ea = calloc(n, sizeof(double));
  double* eb = calloc(n, sizeof(double));
  a[n / 2] = ea[n / 2] = 1024;
  for (int s = 0; s < steps; ++s) {
    relax(a, b, n);
    double* t = a; a = b; b = t;
    for (int i = 1; i < n - 1; ++i) eb[i] = (ea[i - 1] + 2 * ea[i] + ea[i + 1]) / 4;
    t = ea; ea = eb; eb = t;
  }
  double s = 0;
  int same = 1;
  for (int i = 0; i < n; ++i) { s += a[i] * i; same = same && a[i] == ea[i]; }
  printf("time_steps %.6f\n", s);
  free(a); free(b); free(ea); free(eb);
  return check("time_steps", same);
}

static int schedules(void) {
  long long s = 0, e = 0;
  #pragma omp parallel for schedule(dynamic, 3)
  for (int i = 0; i < N; ++i) global_a[i] = value(i) * 2;
  #pragma omp parallel for schedule(guided, 2)
  for (int i = 0; i < N; ++i) global_b[i] = global_a[i] + i;
  #pragma omp parallel for schedule(runtime)
  for (int i = 0; i < N; ++i) global_a[i] = global_b[i] - i;
  #pragma omp parallel for schedule(auto)
  for (int i = N - 1; i >= 0; --i) global_b[i] = global_a[i] / 2;
  for (int i = 0; i < N; ++i) { s += (long long)(global_b[i] * 8) * (i % 7); e += (long long)(value(i) * 8) * (i % 7); }
  printf("schedules %lld\n", s);
  return check("schedules", s == e);
}

// OpenMP runs each chunk of dynamic,k on one thread, and guided,k's chunks
// hold at least k iterations (but the last): a program may rely on who ran
// what, so the cluster-wide team must keep both (outer chunks in whole k).
static int owners[N];
static int one_owner_per_chunk(int k) {
  for (int i = 0; i < N; ++i)
    if (owners[i] != owners[i - i % k]) return 0;
  return 1;
}
static int runs_at_least(int k) {  // every run of one owner but the last
  int run = 1;
  for (int i = 1; i < N; ++i, ++run)
    if (owners[i] != owners[i - 1]) {
      if (run < k) return 0;
      run = 0;
    }
  return 1;
}
static int chunk_owners(void) {
  int failed = 0;
  #pragma omp parallel for schedule(dynamic, 7)
  for (int i = 0; i < N; ++i) owners[i] = omp_get_thread_num();
  failed += check("chunk_owners dynamic,7", one_owner_per_chunk(7));
  #pragma omp parallel for schedule(nonmonotonic: dynamic, 64)
  for (int i = 0; i < N; ++i) owners[i] = omp_get_thread_num();
  failed += check("chunk_owners nonmonotonic dynamic,64", one_owner_per_chunk(64));
  omp_set_schedule(omp_sched_dynamic, 5);
  #pragma omp parallel for schedule(runtime)
  for (int i = 0; i < N; ++i) owners[i] = omp_get_thread_num();
  failed += check("chunk_owners runtime dynamic,5", one_owner_per_chunk(5));
  #pragma omp parallel for schedule(guided, 9)
  for (int i = 0; i < N; ++i) owners[i] = omp_get_thread_num();
  failed += check("chunk_owners guided,9", runs_at_least(9));
  return failed;
}

static int conflict_atomic(void) {
  long long total = 0;
  double dtotal = 0;
  #pragma omp parallel for
  for (int i = 0; i < N; ++i) {
    #pragma omp atomic
    total += i;
    #pragma omp atomic
    dtotal += value(i);
  }
  double e = 0;
  for (int i = 0; i < N; ++i) e += value(i);
  printf("conflict_atomic %lld %.3f\n", total, dtotal);
  return check("conflict_atomic", total == (long long)N * (N - 1) / 2 && dtotal == e);
}

static int conflict_critical(void) {
  long long total = 0;
  int largest = -1;
  #pragma omp parallel for
  for (int i = 0; i < N; ++i) {
    #pragma omp critical
    {
      total += i;
      if ((i * 7919) % 10007 > largest) largest = (i * 7919) % 10007;
    }
  }
  int e = -1;
  for (int i = 0; i < N; ++i) if ((i * 7919) % 10007 > e) e = (i * 7919) % 10007;
  printf("conflict_critical %lld %d\n", total, largest);
  return check("conflict_critical", total == (long long)N * (N - 1) / 2 && largest == e);
}

static int conflict_lock(void) {
  omp_lock_t lock;
  omp_init_lock(&lock);
  long long total = 0;
  #pragma omp parallel for
  for (int i = 0; i < N; ++i) {
    omp_set_lock(&lock);
    total += i % 13;
    omp_unset_lock(&lock);
  }
  omp_destroy_lock(&lock);
  long long e = 0;
  for (int i = 0; i < N; ++i) e += i % 13;
  printf("conflict_lock %lld\n", total);
  return check("conflict_lock", total == e);
}

// A region that runs replicated (its critical section) at every step,
// its result read by a shared loop after it: from its third run on, the
// ranks run it without comparing what it wrote, and the shared loop's
// start compares it with everything serial code wrote.
static int replicated_steps(void) {
  enum { steps = 8 };
  long long checksum = 0, expected = 0;
  for (int s = 0; s < steps; ++s) {
    long long total = 0;
    #pragma omp parallel for
    for (int i = 0; i < N; ++i) {
      #pragma omp critical
      total += i % (s + 2);
    }
    #pragma omp parallel for
    for (int i = 0; i < N; ++i) global_a[i] = (double)(total % 1000) + i;
    long long e = 0;
    for (int i = 0; i < N; ++i) e += i % (s + 2);
    for (int i = 0; i < N; i += 101) {
      checksum += (long long)global_a[i];
      expected += (long long)((double)(e % 1000) + i);
    }
  }
  printf("replicated_steps %lld\n", checksum);
  return check("replicated_steps", checksum == expected);
}

// Output written inside a region that then cannot be shared: its first
// run stops the job (running it again would print twice); auto's cache
// keeps the region replicated, so the next run is right from the start.
// A conflict found after the region's output went out (at the single's
// barrier, a merge): the region cannot run again without printing twice
// (remembered_region.cmake).
static int conflict_after_output(void) {
  long long total = 0;
  #pragma omp parallel
  {
    #pragma omp single
    printf("started\n");
    #pragma omp for
    for (int i = 0; i < N; ++i) {
      #pragma omp atomic
      total += i;
    }
  }
  printf("conflict_after_output %lld\n", total);
  return check("conflict_after_output", total == (long long)N * (N - 1) / 2);
}

// A conflict in the window that printed (on rank 1: the middle
// iteration's): its output is held until the merge, so the region runs
// again replicated and prints once.
static int conflict_after_caught_output(void) {
  long long total = 0;
  #pragma omp parallel for
  for (int i = 0; i < N; ++i) {
    if (i == N / 2) { printf("halfway\n"); fflush(stdout); }
    #pragma omp atomic
    total += i;
  }
  printf("conflict_after_caught_output %lld\n", total);
  return check("conflict_after_caught_output", total == (long long)N * (N - 1) / 2);
}

// Lines the iterations write themselves, straight to the descriptor (as an
// unbuffered stream, a Fortran runtime's flush or a full buffer does): every
// one appears, on whatever rank its iteration ran; in any order, as between
// one process's threads (the test compares sorted lines).
static int output_in_loop(void) {
  int done[128] = {0};
  #pragma omp parallel for schedule(static)
  for (int i = 0; i < 64; ++i) {
    char line[32];
    const int n = snprintf(line, sizeof line, "static iteration %d\n", i);
    done[i] = write(1, line, (size_t)n) == n;
  }
  #pragma omp parallel for schedule(dynamic)
  for (int i = 64; i < 128; ++i) {
    char line[32];
    const int n = snprintf(line, sizeof line, "dynamic iteration %d\n", i);
    usleep(1000);  // long enough for every rank to get some
    done[i] = write(1, line, (size_t)n) == n;
  }
  int all = 1;
  for (int i = 0; i < 128; ++i) all &= done[i];
  return check("output_in_loop", all);
}

// OpenMP's first program, and stdio's other printing calls, from every
// thread of the cluster-wide team: each line once (sorted compare), with
// serial code's lines around them. (Whole lines per call: one process's
// threads interleave the characters of a line written in pieces.)
static int print_in_region(void) {
  int done[16] = {0};
  printf("serial line before\n");
  #pragma omp parallel
  printf("Hello from thread %d of %d\n", omp_get_thread_num(), omp_get_num_threads());
  #pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < 16; ++i) {
    char text[32];
    snprintf(text, sizeof text, "fputs %d\n", i);
    fputs(text, stdout);
    done[i] = fwrite("fwrite\n", 1, 7, stdout) == 7;
    puts("puts");
  }
  printf("serial line after\n");
  int all = 1;
  for (int i = 0; i < 16; ++i) all &= done[i];
  return check("print_in_region", all);
}

// exit() inside a parallel region, on an error path of the middle
// iteration (rank 1's): the job ends with its status, its message shown.
static int exit_in_region(void) {
  #pragma omp parallel for schedule(static)
  for (int i = 0; i < N; ++i) {
    global_a[i] = value(i);
    if (i == N / 2) {
      fprintf(stderr, "openmp_cases: giving up at iteration %d\n", i);
      exit(4);
    }
  }
  return check("exit_in_region", 0);  // not reached
}

// Serial code runs a command that appends to a file, and one that fails:
// the file gets one line, not one per rank, and every rank sees the status;
// then reads a command's output (popen: its child runs as a plain process).
static int run_command(void) {
  const int appended = system("echo appended-once >> commands.txt");
  const int failed = system("exit 3");
  double s = 0;
  #pragma omp parallel for reduction(+:s)
  for (int i = 0; i < N; ++i) s += value(i) * (appended == 0 && failed != 0 ? 1 : 2);  // every rank saw rank 0's statuses
  char line[64] = "";
  FILE* command = popen("echo read-from-a-command", "r");  // runs on every rank: it only reads
  const int read = command != NULL && fgets(line, sizeof line, command) != NULL;
  if (command != NULL) pclose(command);
  printf("run_command %d %d %.3f %s", appended, failed, s, line);
  return check("run_command", appended == 0 && failed != 0 && s > 0 && read);
}

// Memory allocated inside the loop body, kept after it, freed serially.
static int malloc_in_body(void) {
  double** rows = malloc(N * sizeof *rows);
  #pragma omp parallel for schedule(dynamic, 17)
  for (int i = 0; i < N; ++i) {
    rows[i] = malloc((size_t)(1 + i % 9) * sizeof(double));
    for (int k = 0; k <= i % 9; ++k) rows[i][k] = value(i) + k;
    double* scratch = malloc(64);  // allocated and freed inside
    scratch[0] = 1;
    free(scratch);
  }
  double s = 0, e = 0;
  for (int i = 0; i < N; ++i) {
    for (int k = 0; k <= i % 9; ++k) { s += rows[i][k]; e += value(i) + k; }
    free(rows[i]);
  }
  free(rows);
  // The freed blocks are reused by the next allocations, on every rank alike.
  double* again = malloc(N * sizeof(double));
  #pragma omp parallel for
  for (int i = 0; i < N; ++i) again[i] = value(i);
  for (int i = 0; i < N; ++i) s += again[i];
  for (int i = 0; i < N; ++i) e += value(i);
  free(again);
  printf("malloc_in_body %.3f\n", s);
  return check("malloc_in_body", s == e);
}

static int sections(void) {
  double parts[4] = {0};
  #pragma omp parallel sections
  {
    #pragma omp section
    for (int i = 0; i < N; i += 4) parts[0] += value(i);
    #pragma omp section
    for (int i = 1; i < N; i += 4) parts[1] += value(i);
    #pragma omp section
    for (int i = 2; i < N; i += 4) parts[2] += value(i);
    #pragma omp section
    for (int i = 3; i < N; i += 4) parts[3] += value(i);
  }
  double e = 0;
  for (int i = 0; i < N; ++i) e += value(i);
  printf("sections %.3f\n", parts[0] + parts[1] + parts[2] + parts[3]);
  return check("sections", parts[0] + parts[1] + parts[2] + parts[3] == e);
}

static int tasks(void) {
  long long cells[64] = {0};
  #pragma omp parallel
  #pragma omp single
  for (int t = 0; t < 64; ++t) {
    #pragma omp task firstprivate(t)
    for (int i = t; i < N; i += 64) cells[t] += i;
  }
  long long s = 0;
  for (int t = 0; t < 64; ++t) s += cells[t];
  printf("tasks %lld\n", s);
  return check("tasks", s == (long long)N * (N - 1) / 2);
}

static int nested(void) {
  int inner_sizes[64] = {0};
  omp_set_max_active_levels(2);
  #pragma omp parallel
  {
    const int outer = omp_get_thread_num();
    #pragma omp parallel num_threads(2)
    {
      #pragma omp atomic
      inner_sizes[outer % 64] += omp_get_num_threads();
    }
  }
  omp_set_max_active_levels(1);
  int s = 0;
  for (int t = 0; t < 64; ++t) s += inner_sizes[t];
  printf("nested %d\n", s);
  return check("nested", s == 4 * omp_get_max_threads());
}

// Critical sections in a region that runs replicated (single copyprivate),
// again and again: libomp keeps a section's lock in the program's data (the
// section's name), which must not carry one rank's lock to another rank
// when rank 0's memory becomes every rank's.
static int critical_replicated(void) {
  long long sum = 0, count = 0, expected = 0;
  const int threads = omp_get_max_threads();
  for (int round = 0; round < 30; ++round) {
    #pragma omp parallel
    {
      int first = 0;
      #pragma omp single copyprivate(first)
      first = round;
      for (int i = 0; i < 100; ++i) {
        #pragma omp critical
        sum += i + first;
        #pragma omp critical(second_name)
        ++count;
      }
    }
    expected += (long long)threads * (4950 + 100 * round);
  }
  printf("critical_replicated %lld %lld\n", sum, count);
  return check("critical_replicated", sum == expected && count == 30LL * 100 * threads);
}

// Serial code writes a file; every rank's program runs it, one file results.
static int write_file(const char* path) {
  if (path == NULL) return 0;
  #pragma omp parallel for
  for (int i = 0; i < N; ++i) global_a[i] = value(i) * 4;
  FILE* f = fopen(path, "w");
  if (f == NULL) return check("write_file", 0);
  for (int i = 0; i < N; i += 97) fprintf(f, "%d %.3f\n", i, global_a[i]);
  fclose(f);
  return check("write_file", 1);
}

// Memory the program maps for itself: anonymous mappings are merged like
// Each iteration writes a file of its own (a tile, a frame), through stdio
// and through a descriptor: every rank writes its iterations' files, each
// once, as one process's threads do; the region stays shared.
static int write_tile(int i, int through_descriptor) {
  char name[64], line[64];
  snprintf(name, sizeof name, "tile_%03d.txt", i);
  double s = 0;
  if (through_descriptor) {
    const int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return -1;
    for (int k = 0; k < 200; ++k) {
      s += value(i * 200 + k);
      const int n = snprintf(line, sizeof line, "%d %d %.3f\n", i, k, s);
      if (write(fd, line, (size_t)n) != n) return -1;
    }
    close(fd);
  } else {
    FILE* f = fopen(name, "w");
    if (f == NULL) return -1;
    for (int k = 0; k < 200; ++k) fprintf(f, "%d %d %.3f\n", i, k, s += value(i * 200 + k));
    fclose(f);
  }
  return 0;
}
static int file_per_iteration(void) {
  int failed_writes = 0;
  #pragma omp parallel for schedule(dynamic, 1) reduction(+ : failed_writes)
  for (int i = 0; i < 48; ++i) failed_writes += write_tile(i, i % 2) != 0;
  long long bytes = 0;
  for (int i = 0; i < 48; ++i) {
    char name[64];
    snprintf(name, sizeof name, "tile_%03d.txt", i);
    FILE* f = fopen(name, "r");
    if (f == NULL) continue;
    fseek(f, 0, SEEK_END);
    bytes += ftell(f);
    fclose(f);
  }
  printf("file_per_iteration %d %lld\n", failed_writes, bytes);
  return check("file_per_iteration", failed_writes == 0 && bytes > 0);
}
// The same, then a critical section: the region runs again replicated, and
// its files are written again from the start, each once, as before.
static int files_then_conflict(void) {
  int failed_writes = 0;
  long long total = 0;
  #pragma omp parallel for schedule(dynamic, 1) reduction(+ : failed_writes)
  for (int i = 0; i < 24; ++i) {
    failed_writes += write_tile(i, i % 2) != 0;
    #pragma omp critical
    total += i;
  }
  printf("files_then_conflict %d %lld\n", failed_writes, total);
  return check("files_then_conflict", failed_writes == 0 && total == 24 * 23 / 2);
}

// Serial code that decides by the clock (here by a microsecond's parity, at
// forty points) takes one path on every rank: each reads rank 0's clock.
static int clock_decisions(void) {
  long long s = 0;
  for (int r = 0; r < 40; ++r) {
    if ((long long)(omp_get_wtime() * 1e6) % 2 == 0) {
      #pragma omp parallel for reduction(+ : s)
      for (int i = 0; i < 1000; ++i) s += i;
    } else {
      s += 999 * 1000 / 2;
    }
  }
  printf("clock_decisions %lld\n", s);
  return check("clock_decisions", s == 40LL * 499500);
}

// Serial code sends its results through a command (as to `gzip > out.gz`):
// the command runs once for the job, its file written once; its status,
// and what a command started to be read from prints, as in one process.
static int pipe_to_command(void) {
  #pragma omp parallel for schedule(dynamic, 64)
  for (int i = 0; i < N; ++i) global_a[i] = value(i);
  FILE* out = popen("cat >> piped.txt", "w");
  if (out == NULL) return check("pipe_to_command popen", 0);
  for (int i = 0; i < N; i += 100) fprintf(out, "%d %.3f\n", i, global_a[i]);
  const int status = pclose(out);
  FILE* in = popen("wc -l < piped.txt", "r");
  int lines = -1;
  if (in == NULL || fscanf(in, "%d", &lines) != 1) lines = -1;
  if (in != NULL) pclose(in);
  FILE* failing = popen("cat > /dev/null; exit 3", "w");
  if (failing == NULL) return check("pipe_to_command popen", 0);
  fputs("dropped\n", failing);
  const int failed = pclose(failing);
  printf("pipe_to_command %d %d %d\n", status, lines, failed >> 8);
  return check("pipe_to_command", status == 0 && lines == N / 100 && failed >> 8 == 3);
}

// the heap (grown with mremap, mapped and unmapped inside the loop too); a
// file mapped writable is not, and the regions run replicated while it is.
static int own_mappings(void) {
  size_t n = 1 << 20;
  double* a = mmap(NULL, n * sizeof(double), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (a == MAP_FAILED) return check("own_mappings", 0);
  #pragma omp parallel for schedule(dynamic, 1000)
  for (size_t i = 0; i < n; ++i) a[i] = value((int)(i % N));
  a = mremap(a, n * sizeof(double), 2 * n * sizeof(double), MREMAP_MAYMOVE);
  if (a == MAP_FAILED) return check("own_mappings", 0);
  int zero = 1;
  for (size_t i = n; i < 2 * n; i += 4096 / sizeof(double)) zero = zero && a[i] == 0;
  #pragma omp parallel for schedule(guided)
  for (size_t i = n; i < 2 * n; ++i) {
    double* scratch = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    scratch[i % 512] = a[i - n] * 3;
    a[i] = scratch[i % 512];
    munmap(scratch, 4096);
  }
  double s = 0, e = 0;
  for (size_t i = 0; i < 2 * n; ++i) { s += a[i]; e += value((int)(i % n % N)) * (i < n ? 1 : 3); }
  munmap(a, 2 * n * sizeof(double));
  // A file mapped private and writable: a copy of its bytes, changed in a loop.
  FILE* f = fopen("own_mappings.bin", "wb");
  for (int i = 0; i < N && f != NULL; ++i) {
    const double v = value(i) + 7;
    fwrite(&v, sizeof v, 1, f);
  }
  if (f == NULL || fclose(f) != 0) return check("own_mappings", 0);
  const int fd = open("own_mappings.bin", O_RDONLY);
  double* copy = mmap(NULL, N * sizeof(double), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  close(fd);
  unlink("own_mappings.bin");
  if (copy == MAP_FAILED) return check("own_mappings", 0);
  #pragma omp parallel for schedule(dynamic, 64)
  for (int i = 0; i < N; ++i) copy[i] = copy[i] * 2 + i;
  double c = 0, ce = 0;
  for (int i = 0; i < N; ++i) { c += copy[i]; ce += (value(i) + 7) * 2 + i; }
  munmap(copy, N * sizeof(double));
  printf("own_mappings %.3f zero %d file %.3f\n", s, zero, c);
  return check("own_mappings", s == e && zero && c == ce);
}

static int mapped_file(void) {
  const char* name = "mapped_file.bin";
  const int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0 || ftruncate(fd, N * sizeof(double)) != 0) return check("mapped_file", 0);
  double* f = mmap(NULL, N * sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (f == MAP_FAILED) return check("mapped_file", 0);
  #pragma omp parallel for schedule(dynamic, 100)
  for (int i = 0; i < N; ++i) f[i] = value(i) * 2;
  double s = 0, e = 0;
  for (int i = 0; i < N; ++i) { s += f[i]; e += value(i) * 2; }
  munmap(f, N * sizeof(double));
  unlink(name);
  #pragma omp parallel for  // unmapped: shared again
  for (int i = 0; i < N; ++i) global_a[i] = value(i);
  for (int i = 0; i < N; ++i) e += global_a[i], s += value(i);
  printf("mapped_file %.3f\n", s);
  return check("mapped_file", s == e);
}

static int shared_segment(void) {
  const int id = shmget(IPC_PRIVATE, N * sizeof(double), IPC_CREAT | 0600);
  double* a = id < 0 ? NULL : shmat(id, NULL, 0);
  if (id >= 0) shmctl(id, IPC_RMID, NULL);
  if (a == NULL || a == (void*)-1) return check("shared_segment", 0);
  #pragma omp parallel for schedule(dynamic, 100)
  for (int i = 0; i < N; ++i) a[i] = value(i) + 3;
  double s = 0, e = 0;
  for (int i = 0; i < N; ++i) { s += a[i]; e += value(i) + 3; }
  shmdt(a);
  printf("shared_segment %.3f\n", s);
  return check("shared_segment", s == e);
}

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "all";
  struct { const char* name; int (*run)(void); } cases[] = {
    {"static_globals", static_globals}, {"heap_before", heap_before}, {"main_locals", main_locals},
    {"interleaved_bytes", interleaved_bytes}, {"structs", structs}, {"per_thread", per_thread},
    {"reductions", reductions}, {"loop_reductions", loop_reductions}, {"host_teams", host_teams}, {"lastprivate", lastprivate}, {"nowait_chain", nowait_chain},
    {"barriers", barriers}, {"time_steps", time_steps}, {"schedules", schedules}, {"chunk_owners", chunk_owners},
    {"conflict_atomic", conflict_atomic}, {"conflict_critical", conflict_critical}, {"conflict_lock", conflict_lock},
    {"replicated_steps", replicated_steps},
    {"malloc_in_body", malloc_in_body}, {"conflict_after_output", conflict_after_output}, {"conflict_after_caught_output", conflict_after_caught_output}, {"sections", sections}, {"tasks", tasks}, {"nested", nested},
    {"critical_replicated", critical_replicated}, {"output_in_loop", output_in_loop}, {"print_in_region", print_in_region}, {"exit_in_region", exit_in_region}, {"run_command", run_command},
    {"own_mappings", own_mappings}, {"file_per_iteration", file_per_iteration},
    {"files_then_conflict", files_then_conflict}, {"pipe_to_command", pipe_to_command},
    {"clock_decisions", clock_decisions}, {"mapped_file", mapped_file}, {"shared_segment", shared_segment},
  };
  int failed = 0, ran = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    if ((!strcmp(which, "all") && strcmp(cases[c].name, "conflict_after_output") && strcmp(cases[c].name, "output_in_loop") &&
         strcmp(cases[c].name, "print_in_region") && strcmp(cases[c].name, "file_per_iteration") &&
         strcmp(cases[c].name, "files_then_conflict") && strcmp(cases[c].name, "pipe_to_command") &&
         strcmp(cases[c].name, "exit_in_region") &&
         strcmp(cases[c].name, "run_command") && strcmp(cases[c].name, "mapped_file") &&
         strcmp(cases[c].name, "shared_segment")) || !strcmp(which, cases[c].name)) {
      failed += cases[c].run();
      ++ran;
    }
  if (!strcmp(which, "all") || !strcmp(which, "write_file")) { failed += write_file(argc > 2 ? argv[2] : NULL); ++ran; }
  if (ran == 0) { fprintf(stderr, "openmp_cases: no case '%s'\n", which); return 2; }
  return failed ? 1 : 0;
}

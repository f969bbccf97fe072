// Writes of a region's shared loop that no declared movement covers, run for
// real under mpirun:
//
//   mpi_undeclared_writes --case detect     a global array written, nothing declared: a warning
//   mpi_undeclared_writes --case merge      merge_writes: a global and a heap array (track_writes)
//                                           equal on every rank to the same loop run by this process alone
//   mpi_undeclared_writes --case conflict   merge_writes, every iteration writes one global: the job stops
//   mpi_undeclared_writes --case declared   rows gathered, a sum reduced, a replicated assignment: nothing reported
//   [--n N] [--steps S]                     iterations, and loops in a row (time steps)
//
// Prints "mpi_undeclared_writes: case=... undeclared_bytes=B merged_bytes=M writes_s=T ok=1" on rank 0
// (B over the ranks, M received on rank 0), or names what is wrong and exits 1.
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "selfsched/mpi.hpp"

namespace {

namespace sm = selfsched::mpi;

constexpr std::int64_t max_n = 1 << 16;
double global_values[max_n];  // the program's global data: tracked without being named
std::int64_t global_last = -1;
double replicated_scale = 0;

double value(std::int64_t step, std::int64_t i) { return std::sin(0.001 * static_cast<double>(i + 7 * step)) * 1e3; }

// The loop under test: iteration i writes element i of each array.
void step_loop(std::int64_t step, std::int64_t n, double* heap_values) {
#pragma omp parallel for schedule(runtime)
  for (std::int64_t i = 0; i < n; ++i) {
    global_values[i] = value(step, i) + (i > 0 && step > 0 ? 0.5 * global_values[i] : 0.0);
    heap_values[i] = 2 * value(step, i);
  }
}

struct run_result {
  bool ok = true;
  sm::statistics stats;
};

// Every rank compares its arrays with what this process computes alone.
bool equal_to_one_process(std::int64_t n, std::int64_t steps, const std::vector<double>& heap_values) {
  std::vector<double> expect_global(static_cast<std::size_t>(n)), expect_heap(static_cast<std::size_t>(n));
  for (std::int64_t step = 0; step < steps; ++step)
    for (std::int64_t i = 0; i < n; ++i) {
      expect_global[i] = value(step, i) + (i > 0 && step > 0 ? 0.5 * expect_global[i] : 0.0);
      expect_heap[i] = 2 * value(step, i);
    }
  return std::memcmp(expect_global.data(), global_values, static_cast<std::size_t>(n) * sizeof(double)) == 0 &&
         std::memcmp(expect_heap.data(), heap_values.data(), static_cast<std::size_t>(n) * sizeof(double)) == 0;
}

run_result run_detect_or_merge(bool merge, std::int64_t n, std::int64_t steps) {
  std::vector<double> heap_values(static_cast<std::size_t>(n));
  run_result r;
  {
    sm::options o;
    o.track_writes(heap_values.data(), heap_values.size() * sizeof(double));
    if (merge) o.merge_writes();
    sm::region region(MPI_COMM_WORLD, o);
    for (std::int64_t step = 0; step < steps; ++step) step_loop(step, n, heap_values.data());
    r.stats = region.stats();
  }
  // Undeclared, the arrays are only part-written on each rank; merged, whole.
  const bool equal = equal_to_one_process(n, steps, heap_values);
  r.ok = merge ? equal : r.stats.undeclared_bytes > 0;
  return r;
}

run_result run_conflict(std::int64_t n) {
  run_result r;
  sm::region region(MPI_COMM_WORLD, sm::options().merge_writes());
  // A conflict needs both ranks to run part of one loop; a rank that starts
  // late may find a short loop done. So loops of some work, in a row, until
  // one has iterations on both ranks and the job stops.
  for (int attempt = 0; attempt < 50; ++attempt) {
#pragma omp parallel for schedule(runtime)
    for (std::int64_t i = 0; i < n; ++i) {
      volatile double work = 0;
      for (int k = 0; k < 200; ++k) work = work + value(attempt, i + k);
#pragma omp critical
      global_last = std::max(global_last, i);  // each rank's own maximum: a conflict across ranks
    }
  }
  r.ok = false;  // the job should have stopped at a loop's end
  return r;
}

run_result run_declared(std::int64_t n, std::int64_t steps, int size) {
  std::vector<double> rows(static_cast<std::size_t>(n));
  double sum = 0;
  run_result r;
  {
    sm::region region(MPI_COMM_WORLD, sm::options().gather_rows(global_values, sizeof(double)).reduce(&sum, 1, MPI_DOUBLE, MPI_SUM));
    for (std::int64_t step = 0; step < steps; ++step) {
      sum = 0;
#pragma omp parallel
      {
        replicated_scale = 2.0 + static_cast<double>(step);  // every rank writes the same value
#pragma omp for schedule(runtime) reduction(+ : sum)
        for (std::int64_t i = 0; i < n; ++i) {
          global_values[i] = value(step, i);
          sum += 1;
        }
      }
    }
    r.stats = region.stats();
  }
  r.ok = r.stats.undeclared_bytes == 0 && sum == static_cast<double>(n) && size > 0;
  return r;
}

std::int64_t number(const char* flag, const char* text) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v < 1 || v > max_n) {
    std::fprintf(stderr, "mpi_undeclared_writes: %s '%s' is not a count in 1 .. %lld\n", flag, text,
                 static_cast<long long>(max_n));
    std::exit(2);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::string which;
  std::int64_t n = 20000, steps = 3;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string flag = argv[a];
    if (flag == "--case") which = argv[a + 1];
    else if (flag == "--n") n = number("--n", argv[a + 1]);
    else if (flag == "--steps") steps = number("--steps", argv[a + 1]);
    else {
      std::fprintf(stderr, "mpi_undeclared_writes: unknown option '%s' (valid: --case, --n, --steps)\n", argv[a]);
      return 2;
    }
  }
  if (which != "detect" && which != "merge" && which != "conflict" && which != "declared") {
    std::fprintf(stderr, "mpi_undeclared_writes: --case '%s' is invalid (valid: detect, merge, conflict, declared)\n",
                 which.c_str());
    return 2;
  }
  int provided = 0, rank = 0, size = 1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  run_result r;
  if (which == "detect") r = run_detect_or_merge(false, n, steps);
  else if (which == "merge") r = run_detect_or_merge(true, n, steps);
  else if (which == "conflict") r = run_conflict(n);
  else r = run_declared(n, steps, size);
  int ok = r.ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("mpi_undeclared_writes: case=%s ranks=%d n=%lld steps=%lld undeclared_bytes=%llu merged_bytes=%llu "
                "writes_s=%.6f ok=%d\n",
                which.c_str(), size, static_cast<long long>(n), static_cast<long long>(steps),
                static_cast<unsigned long long>(r.stats.undeclared_bytes),
                static_cast<unsigned long long>(r.stats.merged_bytes_received), r.stats.writes_seconds, ok);
  MPI_Finalize();
  return ok ? 0 : 1;
}

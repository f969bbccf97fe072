// Dependence loops across ranks (selfsched/mpi_wavefront.hpp), run for real
// under mpirun: a 2-D loop whose dependences need a skew (Floyd-Steinberg's
// shape) and a 3-D one (Livermore 23's), each cell a non-linear function of
// the cells it depends on, so any cell read too early or from a stale copy
// changes the result. For each inner technique: the cells gathered to every
// rank must equal the serial loop's bit for bit, and every iteration must
// have run exactly once across the ranks.
//
//   mpi_wavefront [--techniques s-fss,sw-gss,...] [--size N] [--sync-points SP]
//                 [--min-chunk K] [--max-chunk K] [--gather all|root|none]
//                 [--thread-level funneled|multiple] [--fail-rank R]
//
// --fail-rank R: the body throws at rank R's first cell (the job must end
// with one message naming the rank, not hang). The other ranks take 1 ms a
// cell meanwhile, so rank R is given cells however late it starts.
//
// Prints "mpi_wavefront: ... ok=1" on rank 0 (exit 0), or what is wrong
// (ok=0, exit 1). The outer technique and transport are the region's
// (SELFSCHED_MPI_SCHEDULE, SELFSCHED_MPI_TRANSPORT).
#include <mpi.h>
#include <omp.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "selfsched/mpi_wavefront.hpp"

namespace {

namespace sm = selfsched::mpi;
using index2 = std::array<std::int64_t, 2>;
using index3 = std::array<std::int64_t, 3>;

// A cell from the cells it depends on: mixes bits, so order and staleness show.
double mix(double seed, double a, double b, double c, double d) {
  const double x = std::fma(a, 0.31, b * 0.27) + std::fma(c, 0.23, d * 0.19) + seed;
  return x - std::floor(x) + 0.125 * std::sin(x);
}

struct grid2 {
  std::int64_t rows, cols;
  std::vector<double> v;
  std::vector<std::atomic<int>> runs;
  grid2(std::int64_t r, std::int64_t c)
      : rows(r), cols(c), v(static_cast<std::size_t>(r * c)), runs(static_cast<std::size_t>(r * c)) {}
  double& at(std::int64_t i, std::int64_t j) { return v[static_cast<std::size_t>(i * cols + j)]; }
  double get(std::int64_t i, std::int64_t j) { return i < 0 || j < 0 || j >= cols ? 0.5 : at(i, j); }
  // Needs (i, j-1), (i-1, j+1), (i-1, j), (i-1, j-1): Floyd-Steinberg's reads.
  void cell(std::int64_t i, std::int64_t j) {
    at(i, j) = mix(static_cast<double>(i * 7 + j) * 1e-3, get(i, j - 1), get(i - 1, j + 1), get(i - 1, j),
                   get(i - 1, j - 1));
    runs[static_cast<std::size_t>(i * cols + j)].fetch_add(1, std::memory_order_relaxed);
  }
  void serial() {
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) cell(i, j);
  }
};
const std::vector<index2> dependences2 = {{0, 1}, {1, -1}, {1, 0}, {1, 1}};

struct grid3 {
  std::int64_t planes, rows, cols;
  std::vector<double> v;
  std::vector<std::atomic<int>> runs;
  grid3(std::int64_t l, std::int64_t r, std::int64_t c)
      : planes(l), rows(r), cols(c), v(static_cast<std::size_t>(l * r * c)), runs(v.size()) {}
  double& at(std::int64_t l, std::int64_t j, std::int64_t k) {
    return v[static_cast<std::size_t>((l * rows + j) * cols + k)];
  }
  double get(std::int64_t l, std::int64_t j, std::int64_t k) {
    return l < 0 || j < 0 || j >= rows || k < 0 || k >= cols ? 0.25 : at(l, j, k);
  }
  // Livermore 23's reads: (l-1, j+1, k), (l, j-1, k), (l-1, j, k+1), (l, j, k-1).
  void cell(std::int64_t l, std::int64_t j, std::int64_t k) {
    at(l, j, k) = mix(static_cast<double>(l + j * 3 + k * 5) * 1e-3, get(l - 1, j + 1, k), get(l, j - 1, k),
                      get(l - 1, j, k + 1), get(l, j, k - 1));
    runs[static_cast<std::size_t>((l * rows + j) * cols + k)].fetch_add(1, std::memory_order_relaxed);
  }
  void serial() {
    for (std::int64_t l = 0; l < planes; ++l)
      for (std::int64_t j = 0; j < rows; ++j)
        for (std::int64_t k = 0; k < cols; ++k) cell(l, j, k);
  }
};
const std::vector<index3> dependences3 = {{1, -1, 0}, {0, 1, 0}, {1, 0, -1}, {0, 0, 1}};

std::int64_t number(const char* flag, const char* text) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v < 0) {
    std::fprintf(stderr, "mpi_wavefront: %s '%s' is not a non-negative integer\n", flag, text);
    std::exit(2);
  }
  return v;
}

// Every iteration ran once over all ranks (the counts summed on rank 0).
bool once_each(const std::vector<std::atomic<int>>& runs, int rank) {
  std::vector<int> counts(runs.size());
  for (std::size_t k = 0; k < runs.size(); ++k) counts[k] = runs[k].load();
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : counts.data(), counts.data(), static_cast<int>(counts.size()), MPI_INT,
             MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank != 0) return true;
  for (std::size_t k = 0; k < counts.size(); ++k)
    if (counts[k] != 1) {
      std::printf("mpi_wavefront: iteration %zu ran %d times\n", k, counts[k]);
      return false;
    }
  return true;
}

// The copies of the ranks that should hold every cell against the serial
// result, bit for bit; the verdict on every rank.
bool same_where_gathered(const std::vector<double>& mine, const std::vector<double>& serial, bool holds) {
  int differs = holds && std::memcmp(mine.data(), serial.data(), mine.size() * sizeof(double)) != 0;
  MPI_Allreduce(MPI_IN_PLACE, &differs, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return differs == 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string techniques = "s-fss,s-gss,sw-fss,s-tss,s-ss,s-static";
  std::string gather = "all", level = "funneled";
  std::int64_t size = 60, sync_points = 0, min_chunk = 0, max_chunk = 0, fail_rank = -1;
  for (int a = 1; a < argc; ++a) {
    const std::string flag = argv[a];
    if (a + 1 >= argc) {
      std::fprintf(stderr, "mpi_wavefront: %s needs a value\n", flag.c_str());
      return 2;
    }
    const char* value = argv[++a];
    if (flag == "--techniques") techniques = value;
    else if (flag == "--gather") gather = value;
    else if (flag == "--thread-level") level = value;
    else if (flag == "--size") size = number("--size", value);
    else if (flag == "--sync-points") sync_points = number("--sync-points", value);
    else if (flag == "--min-chunk") min_chunk = number("--min-chunk", value);
    else if (flag == "--max-chunk") max_chunk = number("--max-chunk", value);
    else if (flag == "--fail-rank") fail_rank = number("--fail-rank", value);
    else {
      std::fprintf(stderr, "mpi_wavefront: unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  if (gather != "all" && gather != "root" && gather != "none") {
    std::fprintf(stderr, "mpi_wavefront: --gather '%s'; valid: all, root, none\n", gather.c_str());
    return 2;
  }
  if (level != "funneled" && level != "multiple") {
    std::fprintf(stderr, "mpi_wavefront: --thread-level '%s'; valid: funneled, multiple\n", level.c_str());
    return 2;
  }
  int provided = 0, rank = 0, ranks = 1;
  MPI_Init_thread(&argc, &argv, level == "multiple" ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int target = gather == "all" ? sm::all_ranks : gather == "root" ? 0 : sm::no_gather;

  grid2 reference2(size, 3 * size / 2);
  reference2.serial();
  grid3 reference3(size / 3 + 1, 5, size);
  reference3.serial();

  bool ok = true;
  std::ostringstream summary;
  std::string transport;
  std::istringstream list(techniques);
  try {
    for (std::string technique; std::getline(list, technique, ',');) {
      selfsched::wavefront_options o;
      o.technique = technique;
      o.sync_points = sync_points;
      o.min_chunk = min_chunk;
      o.max_chunk = max_chunk;
      grid2 g2(reference2.rows, reference2.cols);
      grid3 g3(reference3.planes, reference3.rows, reference3.cols);
      sm::wavefront_report r2, r3;
      {
        sm::region region(MPI_COMM_WORLD);
        r2 = sm::wavefront<2>(region, {g2.rows, g2.cols}, dependences2,
                              [&](std::int64_t i, std::int64_t j) {
                                if (rank == fail_rank) throw std::runtime_error("cell out of range");
                                if (fail_rank >= 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                                g2.cell(i, j);
                              },
                              [&](std::int64_t i, std::int64_t j) { return &g2.at(i, j); }, sizeof(double), o, target);
        r3 = sm::wavefront<3>(
            region, {g3.planes, g3.rows, g3.cols}, dependences3,
            [&](std::int64_t l, std::int64_t j, std::int64_t k) { g3.cell(l, j, k); },
            [&](const index3& x) { return &g3.at(x[0], x[1], x[2]); }, sizeof(double), o, target);
        transport = region.stats().transport;
      }
      // Both collectives run on every rank, whatever the first says.
      const bool counted2 = once_each(g2.runs, rank), counted3 = once_each(g3.runs, rank);
      const bool counted = counted2 && counted3;
      bool same = true;
      if (target != sm::no_gather) {
        const bool holds = target == sm::all_ranks || rank == target;
        const bool same2 = same_where_gathered(g2.v, reference2.v, holds);
        same = same_where_gathered(g3.v, reference3.v, holds) && same2;
      }
      long long chunks[2] = {r2.outer_chunks, r2.boundaries_sent};
      MPI_Allreduce(MPI_IN_PLACE, chunks, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      if (rank == 0) {
        if (!counted || !same)
          std::printf("mpi_wavefront: %s: %s\n", technique.c_str(), !counted ? "not every iteration once" : "cells differ");
        summary << ' ' << technique << ":outer=" << chunks[0] << ",boundaries=" << chunks[1] << ",skew=" << r2.threads.skew
                << ",halo_ok=" << (counted && same);
      }
      ok = ok && counted && same;
    }
  } catch (const selfsched::wavefront_error& e) {  // on every rank alike
    if (rank == 0) std::printf("mpi_wavefront: refused: %s\n", e.what());
    MPI_Finalize();
    return 3;
  }
  if (rank == 0)
    std::printf("mpi_wavefront: ranks=%d threads=%d transport=%s gather=%s%s ok=%d\n", ranks, omp_get_max_threads(),
                transport.c_str(), gather.c_str(), summary.str().c_str(), ok ? 1 : 0);
  MPI_Finalize();
  return ok ? 0 : 1;
}

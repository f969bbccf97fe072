// The MPI bridge from C++: one region over the ranks, every row once.
#include <mpi.h>

#include <cstdio>
#include <selfsched/mpi.hpp>
#include <vector>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  const int rows = 1009;
  std::vector<long> hits(rows, 0);
  {
    selfsched::mpi::options o;
    o.reduce(hits.data(), rows, MPI_LONG, MPI_SUM);
    selfsched::mpi::region r(MPI_COMM_WORLD, std::move(o));
#pragma omp parallel for schedule(runtime)
    for (int row = 0; row < rows; ++row) hits[row] += 1;
  }
  int bad = 0;
  for (long h : hits) bad += h != 1;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) std::printf("C++ MPI consumer ok: %d rows wrong\n", bad);
  MPI_Finalize();
  return bad != 0;
}

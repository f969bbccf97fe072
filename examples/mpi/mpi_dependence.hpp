// What the hybrid dependence examples share: their options and their result
// line. The loops are the threads examples' kernels
// (../dependence/*.hpp) run with selfsched::mpi::wavefront inside a region:
// outer chunks of the chunk dimension go to ranks (SELFSCHED_MPI_SCHEDULE,
// SELFSCHED_MPI_TRANSPORT), each rank's threads split them (--technique),
// and boundaries go from rank to rank at every synchronization point.
#pragma once

#include "../dependence/dependence.hpp"
#include "mpi_common.hpp"
#include "selfsched/mpi_wavefront.hpp"

namespace example {

struct hybrid_dependence_options : dependence::wavefront_choice {
  bool verify = false;
  std::string level = "multiple";
  std::string gather = "all";

  // offer_gather: false where every rank needs every cell (between sweeps).
  void add_to(command_line& cli, bool offer_gather = true) {
    wavefront_choice::add_to(cli, true);
    if (offer_gather)
      cli.choice("gather", gather, {"all", "root", "none"},
                 "where every cell goes after the loop: every rank, rank 0, or nowhere (each rank keeps its own)");
    cli.flag("verify", verify, "also run the serial loop on rank 0 and compare the results bit for bit");
    thread_level_option(cli, level);
  }

  int gather_to() const {
    return gather == "all" ? selfsched::mpi::all_ranks : gather == "root" ? 0 : selfsched::mpi::no_gather;
  }

  // --verify needs rank 0 to hold every cell.
  void check(const command_line& cli) const {
    if (verify && gather == "none") cli.fail("--verify needs the cells on rank 0: --gather all or root");
  }
};

// Runs the computation (collective) in a region and returns its wall time
// (the region's start and end not included, as the other hybrid examples
// time their loops). A bad technique or threshold throws on every rank
// alike: one message, exit 2.
template <typename Run>
double timed_hybrid_run(const std::string& app, const mpi_session& mpi, Run run) {
  try {
    selfsched::mpi::region region(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = now_seconds();
    run(region);
    return now_seconds() - start;
  } catch (const selfsched::wavefront_error& e) {
    if (mpi.rank == 0) std::cerr << app << ": " << e.what() << '\n';
    MPI_Finalize();
    std::exit(2);
  }
}

// The ranks' part of the result line (collective; rank 0 adds them).
inline void add_hybrid_fields(dependence::result_line& line, const mpi_session& mpi,
                              const selfsched::mpi::wavefront_report& r) {
  std::int64_t mine[3] = {r.outer_chunks, r.boundaries_sent, r.boundary_bytes};
  MPI_Allreduce(MPI_IN_PLACE, mine, 3, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  std::vector<std::int64_t> iterations(static_cast<std::size_t>(mpi.size));
  MPI_Gather(&r.iterations, 1, MPI_INT64_T, iterations.data(), 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
  std::string spread;
  for (std::size_t k = 0; k < iterations.size(); ++k) spread += (k ? "," : "") + std::to_string(iterations[k]);
  line.add_wavefront(r.threads);
  line.add("ranks", mpi.size);
  line.add("outer", r.outer);
  line.add("transport", r.transport);
  line.add("outer_chunks", mine[0]);
  line.add("boundaries", mine[1]);
  line.add("boundary_bytes", mine[2]);
  line.add("rank_iterations", spread);
}

}  // namespace example

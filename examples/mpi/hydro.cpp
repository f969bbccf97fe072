// mpi_hydro: Livermore kernel 23 (../dependence/hydro.hpp) across MPI ranks
// and their threads with selfsched::mpi::wavefront: chunks of k go to ranks,
// each rank's threads split them, and at every synchronization point along
// l the rank of chunk i sends the boundary za values to the rank of chunk
// i+1 (seed 000 sec. 5). Every rank holds za afterwards.
#include "../dependence/hydro.hpp"

#include "mpi_dependence.hpp"

using dependence::livermore23::dependences;
using dependence::livermore23::hydro;

int main(int argc, char** argv) {
  dependence::livermore23::problem size;
  example::hybrid_dependence_options run;
  example::command_line cli("mpi_hydro",
                            "Livermore kernel 23 (implicit hydrodynamics) over MPI ranks and their threads:\n"
                            "l is the synchronization dimension, k the chunk dimension, j = 1..4 runs whole.");
  size.add_to(cli);
  run.add_to(cli);
  cli.parse(argc, argv);
  size.check(cli);
  run.check(cli);
  example::mpi_session mpi(argc, argv, run.level);

  hydro h(size.loop, size.n, size.seed);  // the same inputs on every rank
  selfsched::mpi::wavefront_report report;
  const double seconds = example::timed_hybrid_run("mpi_hydro", mpi, [&](selfsched::mpi::region& region) {
    // Indices from 0: l = 1 + a, j = 1 + b, k = 1 + c; za(l, j, k) is the cell.
    report = selfsched::mpi::wavefront<3>(
        region, {size.loop, 4, size.n - 1}, dependences,
        [&](std::int64_t a, std::int64_t b, std::int64_t c) { h.point(1 + a, 1 + b, 1 + c); },
        [&](std::int64_t a, std::int64_t b, std::int64_t c) { return &h.z(1 + a, 1 + b, 1 + c); }, sizeof(double),
        run.wavefront(), run.gather_to());
  });

  dependence::result_line line("mpi_hydro");
  example::add_hybrid_fields(line, mpi, report);
  if (mpi.rank != 0) return 0;
  const bool same = !run.verify || size.serial_equal(h);
  example::checksum sum;
  sum.add(h.za);
  line.add("loop", size.loop);
  line.add("n", size.n);
  return line.finish("mpi-wavefront", seconds, sum, run.verify, same);
}

// mpi_hydro: Livermore kernel 23 (../dependence/hydro.hpp) across MPI ranks
// and their threads with selfsched::mpi::wavefront: chunks of k go to ranks,
// each rank's threads split them, and at every synchronization point along
// l the rank of chunk i sends the boundary za values to the rank of chunk
// i+1 (seed 000 sec. 5). Every rank holds za afterwards.
#include "../dependence/hydro.hpp"

#include "mpi_dependence.hpp"

using dependence::livermore23::dependences;
using dependence::livermore23::hydro;
using dependence::livermore23::rows;

int main(int argc, char** argv) {
  std::int64_t loop = 300, n = 3000, seed = 1;
  example::hybrid_dependence_options run;
  example::command_line cli("mpi_hydro",
                            "Livermore kernel 23 (implicit hydrodynamics) over MPI ranks and their threads:\n"
                            "l is the synchronization dimension, k the chunk dimension, j = 1..4 runs whole.");
  cli.option("loop", loop, 1, "outer iterations l (u_s)");
  cli.option("n", n, 2, "k runs 1 .. n-1 (u_c)");
  cli.option("seed", seed, 0, "seed of the inputs");
  run.add_to(cli);
  cli.parse(argc, argv);
  run.check(cli);
  if (loop * rows * (n + 1) > 400'000'000) cli.fail("--loop x 7 x (--n + 1) is limited to 4e8 values (3.2 GB)");
  example::mpi_session mpi(argc, argv, run.level);

  hydro h(loop, n, seed);  // the same inputs on every rank
  selfsched::mpi::wavefront_report report;
  const double seconds = example::timed_hybrid_run("mpi_hydro", mpi, [&](selfsched::mpi::region& region) {
    // Indices from 0: l = 1 + a, j = 1 + b, k = 1 + c; za(l, j, k) is the cell.
    report = selfsched::mpi::wavefront<3>(
        region, {loop, 4, n - 1}, dependences,
        [&](std::int64_t a, std::int64_t b, std::int64_t c) { h.point(1 + a, 1 + b, 1 + c); },
        [&](std::int64_t a, std::int64_t b, std::int64_t c) { return &h.z(1 + a, 1 + b, 1 + c); }, sizeof(double),
        run.wavefront(), run.gather_to());
  });

  dependence::result_line line("mpi_hydro");
  example::add_hybrid_fields(line, mpi, report);
  if (mpi.rank != 0) return 0;
  bool same = true;
  if (run.verify) {
    hydro reference(loop, n, seed);
    reference.serial();
    same = dependence::same_bits(h.za, reference.za);
  }
  example::checksum sum;
  sum.add(h.za);
  line.add("loop", loop);
  line.add("n", n);
  return line.finish("mpi-wavefront", seconds, sum, run.verify, same);
}

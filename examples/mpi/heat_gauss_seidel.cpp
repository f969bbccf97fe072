// mpi_heat_gauss_seidel: Gauss-Seidel sweeps of a heated plate
// (../dependence/heat_gauss_seidel.hpp) across MPI ranks and their threads:
// each sweep is one selfsched::mpi::wavefront (chunks of columns to ranks,
// boundary columns sent at every synchronization point), after which every
// rank holds the whole plate, so the next sweep reads the old values of
// points another rank updates. The sweeps form only: the 3-D spacetime form
// overwrites each point once per sweep, and a distributed wavefront needs
// every iteration to keep its own cell.
#include "../dependence/heat_gauss_seidel.hpp"

#include "mpi_dependence.hpp"

using dependence::heat::plate;

int main(int argc, char** argv) {
  dependence::heat::problem size;
  example::hybrid_dependence_options run;
  example::command_line cli("mpi_heat_gauss_seidel",
                            "Gauss-Seidel sweeps of a heated plate, in place, over MPI ranks and their threads:\n"
                            "one 2-D dependence loop per sweep, the plate gathered to every rank after each.");
  size.add_to(cli);
  run.add_to(cli, false);
  cli.parse(argc, argv);
  size.check(cli);
  run.check(cli);
  example::mpi_session mpi(argc, argv, run.level);

  plate p = size.make();  // the same plate on every rank
  selfsched::mpi::wavefront_report report;
  std::int64_t boundaries = 0, outer_chunks = 0;
  double wait = 0;
  const double seconds = example::timed_hybrid_run("mpi_heat_gauss_seidel", mpi, [&](selfsched::mpi::region& region) {
    for (std::int64_t t = 0; t < size.sweeps; ++t) {
      report = selfsched::mpi::wavefront<2>(
          region, {size.rows, size.cols}, {{1, 0}, {0, 1}}, [&](std::int64_t a, std::int64_t b) { p.point(1 + a, 1 + b); },
          [&](std::int64_t a, std::int64_t b) { return &p.at(1 + a, 1 + b); }, sizeof(double),
          run.wavefront());
      boundaries += report.boundaries_sent;
      outer_chunks += report.outer_chunks;
      wait += report.threads.wait_seconds;
    }
  });
  report.boundaries_sent = boundaries;  // over all sweeps
  report.outer_chunks = outer_chunks;
  report.threads.wait_seconds = wait;

  dependence::result_line line("mpi_heat_gauss_seidel");
  example::add_hybrid_fields(line, mpi, report);
  if (mpi.rank != 0) return 0;
  const bool same = !run.verify || size.serial_equal(p);
  example::checksum sum;
  sum.add(p.u);
  line.add("rows", size.rows);
  line.add("cols", size.cols);
  line.add("sweeps", size.sweeps);
  return line.finish("mpi-wavefront", seconds, sum, run.verify, same);
}

// heat_gauss_seidel: Gauss-Seidel heat sweeps (heat_gauss_seidel.hpp) on the
// threads of one process: the loop run serially, as an OpenMP doacross loop,
// or with the wavefront API; with --verify, compared bit for bit with the
// serial loop.
#include "heat_gauss_seidel.hpp"

using dependence::heat::plate;

int main(int argc, char** argv) {
  dependence::heat::problem size;
  std::string form = "sweeps", sinks = "guarded";
  dependence::run_options run;
  example::command_line cli("heat_gauss_seidel",
                            "Gauss-Seidel sweeps of a heated plate, in place: one 2-D dependence loop per\n"
                            "sweep, or all sweeps as one 3-D loop (sweep t is the synchronization dimension).");
  size.add_to(cli);
  cli.choice("form", form, {"sweeps", "spacetime"}, "one loop per sweep, or one 3-D loop over (t, i, j)");
  cli.choice("sinks", sinks, {"guarded", "plain"},
             "spacetime doacross sinks: only inside the space (stock libomp), or as written (selfsched only)");
  run.add_to(cli);
  cli.parse(argc, argv);
  size.check(cli);

  plate p = size.make();
  selfsched::wavefront_report report{};
  const double seconds = dependence::timed_run(cli, [&] {
    if (run.mode == "serial") p.serial();
    else if (run.mode == "doacross" && form == "sweeps") p.doacross_sweeps();
    else if (run.mode == "doacross") p.doacross_spacetime(sinks == "plain");
    else if (form == "sweeps") report = p.wavefront_sweeps(run.wavefront());
    else report = p.wavefront_spacetime(run.wavefront());
  });

  const bool same = !run.verify || size.serial_equal(p);
  example::checksum sum;
  sum.add(p.u);
  dependence::result_line line("heat_gauss_seidel");
  line.add("rows", size.rows);
  line.add("cols", size.cols);
  line.add("sweeps", size.sweeps);
  line.add("form", form);
  if (run.mode == "doacross" && form == "spacetime") line.add("sinks", sinks);
  if (run.mode == "wavefront") line.add_wavefront(report);
  return line.finish(run.mode, seconds, sum, run.verify, same);
}

// hydro: Livermore kernel 23 (hydro.hpp) on the threads of one process: the
// loop run serially, as an OpenMP doacross loop, or with the wavefront API;
// with --verify, compared bit for bit with the serial loop.
#include "hydro.hpp"

using dependence::livermore23::hydro;

int main(int argc, char** argv) {
  dependence::livermore23::problem size;
  std::string sinks = "guarded";
  dependence::run_options run;
  example::command_line cli("hydro",
                            "Livermore kernel 23 (implicit hydrodynamics) in seed 000's 3-D form: l is the\n"
                            "synchronization dimension, k the chunk dimension, j = 1..4 runs whole.");
  size.add_to(cli);
  dependence::sinks_option(cli, sinks, "");
  run.add_to(cli);
  cli.parse(argc, argv);
  size.check(cli);

  hydro h(size.loop, size.n, size.seed);
  selfsched::wavefront_report report{};
  const double seconds = dependence::run_mode(cli, run, h, sinks == "plain", report);

  const bool same = !run.verify || size.serial_equal(h);
  example::checksum sum;
  sum.add(h.za);
  dependence::result_line line("hydro");
  line.add("loop", size.loop);
  line.add("n", size.n);
  if (run.mode == "doacross") line.add("sinks", sinks);
  if (run.mode == "wavefront") line.add_wavefront(report);
  return line.finish(run.mode, seconds, sum, run.verify, same);
}

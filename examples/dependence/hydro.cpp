// hydro: Livermore kernel 23 (hydro.hpp) on the threads of one process: the
// loop run serially, as an OpenMP doacross loop, or with the wavefront API;
// with --verify, compared bit for bit with the serial loop.
#include "hydro.hpp"

using dependence::livermore23::hydro;
using dependence::livermore23::rows;

int main(int argc, char** argv) {
  std::int64_t loop = 300, n = 3000, seed = 1;
  std::string sinks = "guarded";
  dependence::run_options run;
  example::command_line cli("hydro",
                            "Livermore kernel 23 (implicit hydrodynamics) in seed 000's 3-D form: l is the\n"
                            "synchronization dimension, k the chunk dimension, j = 1..4 runs whole.");
  cli.option("loop", loop, 1, "outer iterations l (u_s)");
  cli.option("n", n, 2, "k runs 1 .. n-1 (u_c)");
  cli.option("seed", seed, 0, "seed of the inputs");
  cli.choice("sinks", sinks, {"guarded", "plain"},
             "doacross sinks: only inside the space (runs on stock libomp), or as written (waits forever on "
             "stock libomp's schedules; selfsched's serve it)");
  run.add_to(cli);
  cli.parse(argc, argv);
  if (loop * rows * (n + 1) > 400'000'000) cli.fail("--loop x 7 x (--n + 1) is limited to 4e8 values (3.2 GB)");

  hydro h(loop, n, seed);
  selfsched::wavefront_report report{};
  const double seconds = dependence::timed_run(cli, [&] {
    if (run.mode == "serial") h.serial();
    else if (run.mode == "doacross") h.doacross(sinks == "plain");
    else report = h.wavefront(run.wavefront());
  });

  bool same = true;
  if (run.verify) {
    hydro reference(loop, n, seed);
    reference.serial();
    same = dependence::same_bits(h.za, reference.za);
  }
  example::checksum sum;
  sum.add(h.za);
  dependence::result_line line("hydro");
  line.add("loop", loop);
  line.add("n", n);
  if (run.mode == "doacross") line.add("sinks", sinks);
  if (run.mode == "wavefront") line.add_wavefront(report);
  return line.finish(run.mode, seconds, sum, run.verify, same);
}

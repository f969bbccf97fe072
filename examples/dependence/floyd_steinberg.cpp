// floyd_steinberg: Floyd-Steinberg error diffusion (floyd_steinberg.hpp) on
// the threads of one process: the loop run serially, as an OpenMP doacross
// loop, or with the wavefront API; with --verify, compared bit for bit with
// the serial loop.
#include "floyd_steinberg.hpp"

using dependence::floyd_steinberg::image;

int main(int argc, char** argv) {
  dependence::floyd_steinberg::problem size;
  std::string sinks = "guarded";
  dependence::run_options run;
  example::command_line cli("floyd_steinberg",
                            "Floyd-Steinberg error diffusion of a width x height image (seed 000 sec. 6.1):\n"
                            "rows i are the synchronization dimension, columns j the chunk dimension.");
  size.add_to(cli);
  dependence::sinks_option(cli, sinks, " (i-1, j+1) (i-1, j+2)");
  run.add_to(cli);
  cli.parse(argc, argv);
  size.check(cli);

  image picture(size.width, size.height, size.seed);
  selfsched::wavefront_report report{};
  const double seconds = dependence::run_mode(cli, run, picture, sinks == "plain", report);

  const bool same = !run.verify || picture.same_as(size.serial());
  example::checksum sum;
  sum.add(picture.J);
  sum.add(picture.I);
  dependence::result_line line("floyd_steinberg");
  line.add("width", size.width);
  line.add("height", size.height);
  if (run.mode == "doacross") line.add("sinks", sinks);
  if (run.mode == "wavefront") line.add_wavefront(report);
  return line.finish(run.mode, seconds, sum, run.verify, same);
}

// mandelbrot_steps: the mandelbrot example's row loop run --steps times in one
// process, as a time-stepping code runs the same loop every step (frames of an
// animation, sweeps of a solver). Techniques that learn across instances of a
// loop site, `best` (auto) and `awf`, only show what they do here: a process
// that runs its loop once gives them one instance to learn from.
//
// Same options and result line as examples/mandelbrot.cpp (the kernel is
// examples/mandelbrot.hpp), plus --steps; time_s and busy_s are totals over
// the steps, step_s the time of each step.
#include <algorithm>

#include "common.hpp"
#include "mandelbrot.hpp"

int main(int argc, char** argv) {
  example::mandelbrot m;
  std::int64_t steps = 20;
  example::command_line cli("mandelbrot_steps",
                            "The Mandelbrot row loop of examples/mandelbrot.cpp, run --steps times in one\n"
                            "process (a time-stepping code): for techniques that learn across instances.");
  cli.option("width", m.width, 1, "image width in pixels");
  cli.option("height", m.height, 1, "image height in pixels");
  cli.option("max-iter", m.max_iter, 1, "steps before a point counts as inside the set");
  cli.option("steps", steps, 1, "instances of the loop");
  cli.parse(argc, argv);
  if (m.max_iter > UINT32_MAX) cli.fail("--max-iter '" + std::to_string(m.max_iter) + "' is larger than 4294967295");
  if (m.width * m.height > 400'000'000) cli.fail("--width x --height is more than 400000000 pixels");
  if (steps > 100'000) cli.fail("--steps '" + std::to_string(steps) + "' is larger than 100000");

  std::vector<std::uint32_t> image(m.width * m.height);
  const std::int64_t lines = m.lines();
  example::loop_monitor monitor("mandelbrot_steps", lines);  // busy time adds up over the steps
  example::report r("mandelbrot_steps");
  std::string step_times;
  double total = 0;
  for (std::int64_t step = 0; step < steps; ++step) {
    std::fill(image.begin(), image.end(), 0);
    std::fill(monitor.runs().begin(), monitor.runs().end(), 0);  // each step runs each line once
    const double start = example::now_seconds();
#pragma omp parallel for schedule(runtime)
    for (std::int64_t line = 0; line < lines; ++line)
      monitor.run(line, [&] { m.compute_line(line, m.line_start(image, line), m.line_stride()); });
    const double seconds = example::now_seconds() - start;
    total += seconds;
    step_times += (step_times.empty() ? "" : ",") + example::loop_monitor::fixed(seconds);
    if (step + 1 < steps) {  // the last step is checked by r.finish()
      const std::string coverage = monitor.coverage_problem();
      r.expect(coverage.empty(), "step " + std::to_string(step) + ": " + coverage);
    }
  }
  example::check_lines(m, image, false, r);

  example::checksum sum;
  sum.add(image);
  r.add("width", m.width);
  r.add("height", m.height);
  r.add("max_iter", m.max_iter);
  r.add("lines", lines);
  r.add("steps", steps);
  r.add("step_s", step_times);
  return r.finish(monitor, total, sum);
}

// mandelbrot: escape counts of the Mandelbrot set, one image row (or column)
// per iteration of a schedule(runtime) loop, as in seed 000 (Ciorba et al.
// 2008, Sect. 6.1: rows are the chunk dimension) and seed 004 (Han &
// Chronopoulos 2016, Sect. 6.1: one column is the smallest schedulable unit).
// The cost of a line is irregular and unpredictable: pixels inside the set
// cost max-iter steps each, pixels far outside only one or two.
#include <png.h>

#include <cmath>

#include "common.hpp"
#include "mandelbrot.hpp"

namespace {

using example::mandelbrot;

// Escape count to colour: black inside the set, a smooth ramp outside.
void write_png(const mandelbrot& m, const std::vector<std::uint32_t>& image, const std::string& path, example::report& r) {
  std::vector<png_byte> rgb(image.size() * 3);
  const double top = std::log1p(m.max_iter);
  for (std::size_t i = 0; i < image.size(); ++i) {
    if (image[i] == m.max_iter) continue;  // inside: black
    const double t = std::log1p(image[i]) / top;
    const double u = 1 - t;  // Bernstein-polynomial palette
    rgb[3 * i + 0] = static_cast<png_byte>(255 * 9 * u * t * t * t);
    rgb[3 * i + 1] = static_cast<png_byte>(255 * 15 * u * u * t * t);
    rgb[3 * i + 2] = static_cast<png_byte>(255 * 8.5 * u * u * u * t);
  }
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(m.width);
  png.height = static_cast<png_uint_32>(m.height);
  png.format = PNG_FORMAT_RGB;
  const bool written = png_image_write_to_file(&png, path.c_str(), 0, rgb.data(), 0, nullptr) != 0;
  r.expect(written, "cannot write PNG '" + path + "': " + png.message);
  png_image_free(&png);
}

}  // namespace

int main(int argc, char** argv) {
  mandelbrot m;
  std::string png_path;
  bool verify = false;
  example::command_line cli("mandelbrot",
                            "Mandelbrot set escape counts; one row (or column) per iteration of the\n"
                            "schedule(runtime) loop. Irregular cost: lines through the set are expensive.");
  example::declare_options(cli, m, verify);
  cli.option("png", png_path, "FILE", "write the image as PNG");
  example::time_steps steps(cli);
  cli.parse(argc, argv);
  steps.check(cli);
  example::check_options(cli, m);

  std::vector<std::uint32_t> image(m.width * m.height);
  const std::int64_t lines = m.lines();
  example::loop_monitor monitor("mandelbrot", lines);

  const double seconds = steps.run(monitor, [&] { std::fill(image.begin(), image.end(), 0); }, [&] {
#pragma omp parallel for schedule(runtime)
    for (std::int64_t line = 0; line < lines; ++line)
      monitor.run(line, [&] { m.compute_line(line, m.line_start(image, line), m.line_stride()); });
  });

  example::report r("mandelbrot");
  steps.add_to(r);
  example::check_lines(m, image, verify, r);
  if (!png_path.empty()) write_png(m, image, png_path, r);
  return example::finish_report(r, m, image, monitor, seconds);
}

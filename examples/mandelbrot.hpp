// The Mandelbrot kernel and its self-check, shared by mandelbrot.cpp (threads)
// and mpi/mandelbrot.cpp (ranks and threads).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common.hpp"

namespace example {

struct mandelbrot {
  std::int64_t width = 640, height = 480, max_iter = 1000;
  std::vector<double> domain = {-2.0, 1.25, -1.25, 1.25};  // x0, x1, y0, y1: seed 000's window
  bool by_columns = false;

  std::int64_t lines() const { return by_columns ? width : height; }
  std::int64_t line_length() const { return by_columns ? height : width; }

  // Steps of z <- z^2 + c from z = 0 until |z| > 2, at most max_iter.
  std::uint32_t escape_count(std::int64_t x, std::int64_t y) const {
    const double cx = domain[0] + (x + 0.5) * (domain[1] - domain[0]) / width;
    const double cy = domain[3] - (y + 0.5) * (domain[3] - domain[2]) / height;
    double zx = 0, zy = 0;
    std::int64_t k = 0;
    for (; k < max_iter && zx * zx + zy * zy <= 4.0; ++k) {
      const double next_x = zx * zx - zy * zy + cx;
      zy = 2 * zx * zy + cy;
      zx = next_x;
    }
    return static_cast<std::uint32_t>(k);
  }

  // Pixel k of `line` goes to out[k * stride]. The image is row-major.
  void compute_line(std::int64_t line, std::uint32_t* out, std::int64_t stride) const {
    for (std::int64_t k = 0; k < line_length(); ++k)
      out[k * stride] = by_columns ? escape_count(line, k) : escape_count(k, line);
  }
  std::uint32_t* line_start(std::vector<std::uint32_t>& image, std::int64_t line) const {
    return image.data() + (by_columns ? line : line * width);
  }
  std::int64_t line_stride() const { return by_columns ? width : 1; }
};

// The command line both mandelbrot programs share: the image, its window,
// the line direction and --verify, with their checks after parsing.
inline void declare_options(command_line& cli, mandelbrot& m, bool& verify) {
  cli.option("width", m.width, 1, "image width in pixels");
  cli.option("height", m.height, 1, "image height in pixels");
  cli.option("max-iter", m.max_iter, 1, "steps before a point counts as inside the set");
  cli.reals("domain", m.domain, "X0,X1,Y0,Y1", "window of the complex plane; seed 004 used -2,2,-2,2");
  cli.flag("columns", m.by_columns, "one column per iteration (seed 004) instead of one row (seed 000)");
  cli.flag("verify", verify, "recompute every line serially (default: a sample) and compare exactly");
}
inline void check_options(const command_line& cli, const mandelbrot& m) {
  if (m.max_iter > UINT32_MAX) cli.fail("--max-iter '" + std::to_string(m.max_iter) + "' is larger than 4294967295");
  if (m.width > 1'000'000 || m.height > 1'000'000 || m.width * m.height > 4'000'000'000)
    cli.fail("--width x --height '" + std::to_string(m.width) + " x " + std::to_string(m.height) +
             "' is more than 4000000000 pixels (16 GB)");
  if (!(m.domain[0] < m.domain[1] && m.domain[2] < m.domain[3])) cli.fail("--domain needs X0 < X1 and Y0 < Y1");
}

// Recomputes a sample of lines (all with `all`) serially and compares exactly.
inline void check_lines(const mandelbrot& m, std::vector<std::uint32_t>& image, bool all, report& r) {
  std::vector<std::uint32_t> expected(m.line_length());
  for (const std::int64_t line : lines_to_check(m.lines(), all)) {
    m.compute_line(line, expected.data(), 1);
    const std::uint32_t* got = m.line_start(image, line);
    for (std::int64_t k = 0; k < m.line_length(); ++k)
      if (got[k * m.line_stride()] != expected[k]) {
        r.expect(false, "line " + std::to_string(line) + " differs from the serial computation at pixel " +
                            std::to_string(k));
        break;
      }
  }
}

// The image's fields of the result line (size, lines, escape steps,
// checksum), then the line itself: the program's exit status.
inline int finish_report(report& r, const mandelbrot& m, const std::vector<std::uint32_t>& image,
                         const loop_monitor& monitor, double loop_seconds) {
  std::uint64_t steps = 0;
  for (const std::uint32_t count : image) steps += count;
  checksum sum;
  sum.add(image);
  r.add("width", m.width);
  r.add("height", m.height);
  r.add("max_iter", m.max_iter);
  r.add("lines", m.lines());
  r.add("by", m.by_columns ? "columns" : "rows");
  r.add("steps", steps);
  return r.finish(monitor, loop_seconds, sum);
}

}  // namespace example

// floyd_steinberg: error-diffusion dithering of a width x height grayscale
// image, seed 000's first dependence loop (Ciorba et al. 2008, sec. 6.1):
//
//   for (i = 0; i < width; i++)        /* synchronization dimension */
//     for (j = 0; j < height; j++) {   /* chunk dimension */
//       I[i][j] = trunc(J[i][j]) + 0.5;
//       err = J[i][j] - I[i][j]*255;
//       J[i][j+1] += err*(7/16);   J[i+1][j-1] += err*(3/16);
//       J[i+1][j] += err*(5/16);   J[i+1][j+1] += err*(1/16);
//     }
//
// The body is that one, statement for statement, with the two readings the
// printed pseudocode needs to mean what it says: the weights are fractions
// (in C, 7/16 == 0), and the pixel is quantised to one bit,
// I = trunc(J/255 + 0.5), so that err = J - 255 I stays within +-128 (with
// trunc(J) + 0.5 as printed, err would be about -254 J and the image would
// diverge within a few pixels).
//
// Dependences of (i, j): the four += into J[i][j] come from (i-1, j-1),
// (i-1, j), (i-1, j+1) and (i, j-1) and must happen in that (serial) order
// for a bit-identical result: flow (0,1) (1,-1) (1,0) (1,1) and the output
// dependences (0,2) (1,-2) between the writers themselves.
#pragma once

#include <cmath>
#include "dependence.hpp"

namespace dependence::floyd_steinberg {

const std::vector<std::array<std::int64_t, 2>> dependences = {{0, 1}, {0, 2}, {1, -2}, {1, -1}, {1, 0}, {1, 1}};

struct image {
  std::int64_t width, height;
  std::vector<double> J;        // (width + 1) x (height + 2): a row below, a column either side
  std::vector<std::int8_t> I;   // width x height, one bit per pixel (0 or 1; -1 / 2 far out of range)

  image(std::int64_t w, std::int64_t h, std::int64_t seed)
      : width(w), height(h), J(static_cast<std::size_t>((w + 1) * (h + 2))), I(static_cast<std::size_t>(w * h)) {
    // A diagonal ramp with noise, a pure function of (seed, pixel).
    const example::random_stream noise(static_cast<std::uint64_t>(seed), 0);
    for (std::int64_t i = 0; i < w; ++i)
      for (std::int64_t j = 0; j < h; ++j)
        at(i, j) = 255.0 * static_cast<double>(i + j) / static_cast<double>(w + h) +
                   24.0 * (noise.unit(static_cast<std::uint64_t>(i * h + j)) - 0.5);
  }

  double& at(std::int64_t i, std::int64_t j) { return J[static_cast<std::size_t>(i * (height + 2) + j + 1)]; }

  void pixel(std::int64_t i, std::int64_t j) {
    const double q = std::trunc(at(i, j) / 255 + 0.5);
    I[static_cast<std::size_t>(i * height + j)] = static_cast<std::int8_t>(q);
    const double err = at(i, j) - q * 255;
    at(i, j + 1) += err * (7.0 / 16);
    at(i + 1, j - 1) += err * (3.0 / 16);
    at(i + 1, j) += err * (5.0 / 16);
    at(i + 1, j + 1) += err * (1.0 / 16);
  }

  void serial() {
    for (std::int64_t i = 0; i < width; ++i)
      for (std::int64_t j = 0; j < height; ++j) pixel(i, j);
  }

  // schedule(runtime): libomp's schedules, or a selfsched technique. The
  // plain sinks (i-1, j+1) (i-1, j+2) leave the iteration space at the last
  // j's, where stock libomp waits forever (docs/dependence.md); the guarded
  // form names only sinks inside it, and runs everywhere.
  void doacross(bool plain) {
    const std::int64_t w = width, h = height;
    if (plain) {
#pragma omp parallel for ordered(2) schedule(runtime)
      for (std::int64_t i = 0; i < w; ++i)
        for (std::int64_t j = 0; j < h; ++j) {
#pragma omp ordered depend(sink : i - 1, j + 1) depend(sink : i - 1, j + 2)
          pixel(i, j);
#pragma omp ordered depend(source)
        }
    } else {
#pragma omp parallel for ordered(2) schedule(runtime)
      for (std::int64_t i = 0; i < w; ++i)
        for (std::int64_t j = 0; j < h; ++j) {
          // Row i-1 is run in order by one thread: its (i-1, j+2) implies
          // everything before it.
          if (j + 2 < h) {
#pragma omp ordered depend(sink : i - 1, j + 2)
          } else if (j + 1 < h) {
#pragma omp ordered depend(sink : i - 1, j + 1)
          } else {
#pragma omp ordered depend(sink : i - 1, j)
          }
          pixel(i, j);
#pragma omp ordered depend(source)
        }
    }
  }

  selfsched::wavefront_report wavefront(const selfsched::wavefront_options& o) {
    return selfsched::wavefront<2>({width, height}, dependences,
                                   [this](std::int64_t i, std::int64_t j) { pixel(i, j); }, o);
  }

  bool same_as(const image& other) const {
    return dependence::same_bits(J, other.J) && I == other.I;
  }
};

// The image on the command line, for the threads' and the hybrid program.
struct problem {
  std::int64_t width = 2000, height = 2000, seed = 1;

  void add_to(example::command_line& cli) {
    cli.option("width", width, 1, "rows i (u_s)");
    cli.option("height", height, 1, "columns j (u_c)");
    cli.option("seed", seed, 0, "seed of the input image's noise");
  }
  void check(const example::command_line& cli) const {
    if (width > 100000 || height > 100000) cli.fail("--width/--height are limited to 100000");
  }
  // The serial loop's result, for --verify.
  image serial() const {
    image reference(width, height, seed);
    reference.serial();
    return reference;
  }
};

}  // namespace dependence::floyd_steinberg

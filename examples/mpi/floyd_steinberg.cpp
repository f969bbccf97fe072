// mpi_floyd_steinberg: Floyd-Steinberg error diffusion
// (../dependence/floyd_steinberg.hpp) across MPI ranks and their threads
// with selfsched::mpi::wavefront.
//
// The kernel as printed pushes each pixel's error into four later pixels
// (J[i][j+1] += ..., J[i+1][j-1] += ...). Across ranks a pixel must be the
// only writer of its own cell, so this program runs the pull form: pixel
// (i, j) gathers the four weighted errors its neighbours would have pushed,
// in the order the serial loop adds them, and keeps its value, error and
// bit. The result is bit-identical to the push form (--verify compares with
// the serial push loop).
#include <cmath>

#include "../dependence/floyd_steinberg.hpp"
#include "mpi_dependence.hpp"

using dependence::floyd_steinberg::image;

namespace {

// What later pixels read of pixel (i, j).
struct pixel_cell {
  double value;  // J[i][j] once every error has reached it
  double error;  // J[i][j] - 255 I[i][j]
  std::int8_t bit;
};

// (i, j) reads (i, j-1), (i-1, j-1), (i-1, j) and (i-1, j+1).
const std::vector<std::array<std::int64_t, 2>> pull_dependences = {{0, 1}, {1, 1}, {1, 0}, {1, -1}};

struct pulled_image {
  std::int64_t width, height;
  image input;  // J before any error arrives
  std::vector<pixel_cell> cells;

  pulled_image(std::int64_t w, std::int64_t h, std::int64_t seed)
      : width(w), height(h), input(w, h, seed), cells(static_cast<std::size_t>(w * h)) {}

  pixel_cell& at(std::int64_t i, std::int64_t j) { return cells[static_cast<std::size_t>(i * height + j)]; }

  // The push form adds into J[i][j], in loop order: (i-1, j-1)'s 1/16,
  // (i-1, j)'s 5/16, (i-1, j+1)'s 3/16, then (i, j-1)'s 7/16.
  pixel_cell value(std::int64_t i, std::int64_t j) {
    double v = input.at(i, j);
    if (i > 0) {
      if (j > 0) v += at(i - 1, j - 1).error * (1.0 / 16);
      v += at(i - 1, j).error * (5.0 / 16);
      if (j + 1 < height) v += at(i - 1, j + 1).error * (3.0 / 16);
    }
    if (j > 0) v += at(i, j - 1).error * (7.0 / 16);
    const double q = std::trunc(v / 255 + 0.5);
    return {v, v - q * 255, static_cast<std::int8_t>(q)};
  }

  // `extra` > 0 emulates a slower node: that many dependent multiply-adds
  // more per pixel (about 4 cycles each), started from the left neighbour's
  // error and finished before the pixel's own reads (the compiler is told the
  // index depends on them), so they cannot overlap the pixel's work.
  void pixel(std::int64_t i, std::int64_t j, std::int64_t extra = 0) {
    if (extra > 0) {
      double x = j > 0 ? at(i, j - 1).error : 0.0;
      for (std::int64_t k = 0; k < extra; ++k) {
        asm volatile("" : "+x"(x));
        x = x * 0.999 + 0.001;
      }
      asm volatile("" : "+r"(j) : "x"(x));
    }
    at(i, j) = value(i, j);
  }

  // Against the serial push loop: every J[i][j] and I[i][j].
  bool same_as(image& pushed) {
    for (std::int64_t i = 0; i < width; ++i)
      for (std::int64_t j = 0; j < height; ++j) {
        const double mine = at(i, j).value, theirs = pushed.at(i, j);
        if (std::memcmp(&mine, &theirs, sizeof mine) != 0 ||
            at(i, j).bit != pushed.I[static_cast<std::size_t>(i * height + j)])
          return false;
      }
    return true;
  }
};

}  // namespace

int main(int argc, char** argv) {
  dependence::floyd_steinberg::problem size;
  std::int64_t slow_rank = -1, slow_work = 32;
  example::hybrid_dependence_options run;
  example::command_line cli("mpi_floyd_steinberg",
                            "Floyd-Steinberg error diffusion of a width x height image over MPI ranks and their\n"
                            "threads (pull form): rows i are the synchronization dimension, columns j the chunk one.");
  size.add_to(cli);
  cli.option("slow-rank", slow_rank, -1, "a rank that emulates a slower node (extra work per pixel)");
  cli.option("slow-work", slow_work, 0, "the slow rank's extra dependent multiply-adds per pixel (32: about half speed here)");
  run.add_to(cli);
  cli.parse(argc, argv);
  run.check(cli);
  size.check(cli);
  example::mpi_session mpi(argc, argv, run.level);

  pulled_image picture(size.width, size.height, size.seed);  // the same input on every rank
  const std::int64_t extra = mpi.rank == slow_rank ? slow_work : 0;
  selfsched::mpi::wavefront_report report;
  const double seconds = example::timed_hybrid_run("mpi_floyd_steinberg", mpi, [&](selfsched::mpi::region& region) {
    report = selfsched::mpi::wavefront<2>(
        region, {size.width, size.height}, pull_dependences, [&](std::int64_t i, std::int64_t j) { picture.pixel(i, j, extra); },
        [&](std::int64_t i, std::int64_t j) { return &picture.at(i, j); }, sizeof(pixel_cell), run.wavefront(), run.gather_to());
  });

  dependence::result_line line("mpi_floyd_steinberg");
  example::add_hybrid_fields(line, mpi, report);
  if (mpi.rank != 0) return 0;
  bool same = true;
  if (run.verify) {
    image reference = size.serial();
    same = picture.same_as(reference);
  }
  example::checksum sum;
  for (const pixel_cell& c : picture.cells) sum.add_bytes(&c.value, sizeof c.value), sum.add_bytes(&c.bit, 1);
  line.add("width", size.width);
  line.add("height", size.height);
  if (slow_rank >= 0) line.add("slow_rank", std::to_string(slow_rank) + "+" + std::to_string(slow_work));
  return line.finish("mpi-wavefront", seconds, sum, run.verify, same);
}

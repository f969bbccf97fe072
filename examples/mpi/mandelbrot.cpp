// mpi_mandelbrot: mandelbrot (../mandelbrot.cpp) on the ranks of
// MPI_COMM_WORLD and their threads. The loop is the threads example's; a
// selfsched::mpi::region makes it one loop shared by the ranks (outer chunks
// by SELFSCHED_MPI_SCHEDULE, split among each rank's threads by
// OMP_SCHEDULE), and gathers the image rows to rank 0, as the master of
// seed 000 (Sect. 6.1) and seed 004 (Sect. 6.1) collects them.
#include "../mandelbrot.hpp"

#include "mpi_common.hpp"

int main(int argc, char** argv) {
  example::mandelbrot m;
  bool verify = false;
  std::string level = "multiple";
  example::command_line cli("mpi_mandelbrot",
                            "Mandelbrot set escape counts over MPI ranks and their threads; one row (or column)\n"
                            "per iteration of the shared schedule(runtime) loop; rank 0 gets the image.");
  cli.option("width", m.width, 1, "image width in pixels");
  cli.option("height", m.height, 1, "image height in pixels");
  cli.option("max-iter", m.max_iter, 1, "steps before a point counts as inside the set");
  cli.reals("domain", m.domain, "X0,X1,Y0,Y1", "window of the complex plane; seed 004 used -2,2,-2,2");
  cli.flag("columns", m.by_columns, "one column per iteration (seed 004) instead of one row (seed 000)");
  cli.flag("verify", verify, "recompute every line serially (default: a sample) and compare exactly");
  example::thread_level_option(cli, level);
  cli.parse(argc, argv);
  if (m.max_iter > UINT32_MAX) cli.fail("--max-iter '" + std::to_string(m.max_iter) + "' is larger than 4294967295");
  if (m.width > 1'000'000 || m.height > 1'000'000 || m.width * m.height > 4'000'000'000)
    cli.fail("--width x --height '" + std::to_string(m.width) + " x " + std::to_string(m.height) +
             "' is more than 4000000000 pixels (16 GB)");
  if (!(m.domain[0] < m.domain[1] && m.domain[2] < m.domain[3])) cli.fail("--domain needs X0 < X1 and Y0 < Y1");
  example::mpi_session mpi(argc, argv, level);

  std::vector<std::uint32_t> image(m.width * m.height);
  const std::int64_t lines = m.lines();
  example::loop_monitor monitor("mpi_mandelbrot", lines);

  // Rows are contiguous in the image: gathered as they lie. A column is
  // strided: packed for the trip through a variable-size row.
  selfsched::mpi::options moves;
  std::vector<std::uint32_t> column(m.height);
  if (!m.by_columns) {
    moves.gather_rows(image.data(), m.width * sizeof(std::uint32_t), 0);
  } else {
    moves.gather_rows(
        [&](selfsched::iter_t x) {
          for (std::int64_t y = 0; y < m.height; ++y) column[y] = image[y * m.width + x];
          return std::as_bytes(std::span(column));
        },
        [&](selfsched::iter_t x, std::span<const std::byte> bytes) {
          const auto* pixels = reinterpret_cast<const std::uint32_t*>(bytes.data());
          for (std::int64_t y = 0; y < m.height; ++y) image[y * m.width + x] = pixels[y];
        },
        0);
  }
  example::rank_coverage coverage(moves, monitor);

  double seconds = 0;
  selfsched::mpi::statistics stats;
  {
    selfsched::mpi::region region(MPI_COMM_WORLD, moves);
    const double start = example::now_seconds();
#pragma omp parallel for schedule(runtime)
    for (std::int64_t line = 0; line < lines; ++line)
      monitor.run(line, [&] { m.compute_line(line, m.line_start(image, line), m.line_stride()); });
    seconds = example::now_seconds() - start;  // the loop on every rank, the rows on rank 0
    stats = region.stats();
  }
  coverage.settle(stats);

  example::report r("mpi_mandelbrot");
  example::add_rank_fields(r, mpi, monitor, stats);
  if (mpi.rank != 0) return 0;
  example::check_lines(m, image, verify, r);
  return example::finish_report(r, m, image, monitor, seconds);
}

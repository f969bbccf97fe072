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
  example::declare_options(cli, m, verify);
  example::thread_level_option(cli, level);
  cli.parse(argc, argv);
  example::check_options(cli, m);
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
  const example::shared_loop run = example::run_shared_loop(moves, monitor, [&] {
#pragma omp parallel for schedule(runtime)
    for (std::int64_t line = 0; line < lines; ++line)
      monitor.run(line, [&] { m.compute_line(line, m.line_start(image, line), m.line_stride()); });
  });

  example::report r("mpi_mandelbrot");
  example::add_rank_fields(r, mpi, monitor, run.stats);
  if (mpi.rank != 0) return 0;
  example::check_lines(m, image, verify, r);
  return example::finish_report(r, m, image, monitor, run.seconds);
}

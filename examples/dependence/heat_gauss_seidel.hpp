// heat_gauss_seidel: steady heat in a plate by Gauss-Seidel sweeps, in place:
//
//   for (t = 0; t < sweeps; t++)
//     for (i = 1; i <= rows; i++)
//       for (j = 1; j <= cols; j++)
//         u[i][j] = 0.25 * (u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1]);
//
// Two forms. `sweeps`: each sweep is one 2-D dependence loop, (i, j) needs
// (i-1, j) and (i, j-1) (flow) and must precede (i+1, j) and (i, j+1) (anti):
// vectors (1,0) (0,1). `spacetime`: the whole nest is one 3-D loop whose
// sweeps overlap, t being the synchronization dimension: (t, i, j) also
// needs (t-1, i+1, j) and (t-1, i, j+1) (the old values it reads) and
// (t-1, i, j) (the value it overwrites): vectors (0,1,0) (0,0,1) (1,-1,0)
// (1,0,-1) (1,0,0).
#pragma once

#include "dependence.hpp"

namespace dependence::heat {

struct plate {
  std::int64_t rows, cols, sweeps;
  std::vector<double> u;  // (rows + 2) x (cols + 2); the border is fixed

  plate(std::int64_t r, std::int64_t c, std::int64_t t, std::int64_t seed)
      : rows(r), cols(c), sweeps(t), u(static_cast<std::size_t>((r + 2) * (c + 2))) {
    const example::random_stream noise(static_cast<std::uint64_t>(seed), 0);
    for (std::int64_t i = 0; i < r + 2; ++i)
      for (std::int64_t j = 0; j < c + 2; ++j)
        at(i, j) = i == 0 ? 100.0 : j == c + 1 ? 50.0 : noise.unit(static_cast<std::uint64_t>(i * (c + 2) + j));
  }

  double& at(std::int64_t i, std::int64_t j) { return u[static_cast<std::size_t>(i * (cols + 2) + j)]; }
  void point(std::int64_t i, std::int64_t j) {
    at(i, j) = 0.25 * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1));
  }

  void serial() {
    for (std::int64_t t = 0; t < sweeps; ++t)
      for (std::int64_t i = 1; i <= rows; ++i)
        for (std::int64_t j = 1; j <= cols; ++j) point(i, j);
  }

  void doacross_sweeps() {
    const std::int64_t r = rows, c = cols;
    for (std::int64_t t = 0; t < sweeps; ++t) {
#pragma omp parallel for ordered(2) schedule(runtime)
      for (std::int64_t i = 1; i <= r; ++i)
        for (std::int64_t j = 1; j <= c; ++j) {
#pragma omp ordered depend(sink : i - 1, j)
          point(i, j);
#pragma omp ordered depend(source)
        }
    }
  }

  // Plain sinks leave the space at i = rows, j = cols (stock libomp waits
  // forever there); the guarded form names only sinks inside it.
  void doacross_spacetime(bool plain) {
    const std::int64_t r = rows, c = cols, sw = sweeps;
    if (plain) {
#pragma omp parallel for ordered(3) schedule(runtime)
      for (std::int64_t t = 0; t < sw; ++t)
        for (std::int64_t i = 1; i <= r; ++i)
          for (std::int64_t j = 1; j <= c; ++j) {
#pragma omp ordered depend(sink : t - 1, i + 1, j) depend(sink : t - 1, i, j + 1) depend(sink : t - 1, i, j)
            point(i, j);
#pragma omp ordered depend(source)
          }
    } else {
#pragma omp parallel for ordered(3) schedule(runtime)
      for (std::int64_t t = 0; t < sw; ++t)
        for (std::int64_t i = 1; i <= r; ++i)
          for (std::int64_t j = 1; j <= c; ++j) {
            // Sweep t-1 runs in order on one thread: its latest needed
            // point implies the others.
            if (i < r) {
#pragma omp ordered depend(sink : t - 1, i + 1, j)
            } else if (j < c) {
#pragma omp ordered depend(sink : t - 1, i, j + 1)
            } else {
#pragma omp ordered depend(sink : t - 1, i, j)
            }
            point(i, j);
#pragma omp ordered depend(source)
          }
    }
  }

  selfsched::wavefront_report wavefront_sweeps(const selfsched::wavefront_options& o) {
    selfsched::wavefront_report total{};
    for (std::int64_t t = 0; t < sweeps; ++t) {
      const selfsched::wavefront_report r = selfsched::wavefront<2>(
          {rows, cols}, {{1, 0}, {0, 1}}, [this](std::int64_t a, std::int64_t b) { point(1 + a, 1 + b); }, o);
      const double wait = total.wait_seconds + r.wait_seconds;
      const std::int64_t chunks = total.chunks + r.chunks;
      total = r;
      total.wait_seconds = wait;
      total.chunks = chunks;
    }
    return total;
  }

  selfsched::wavefront_report wavefront_spacetime(const selfsched::wavefront_options& o) {
    return selfsched::wavefront<3>({sweeps, rows, cols}, {{0, 1, 0}, {0, 0, 1}, {1, -1, 0}, {1, 0, -1}, {1, 0, 0}},
                                   [this](std::int64_t, std::int64_t a, std::int64_t b) { point(1 + a, 1 + b); }, o);
  }
};

// The plate on the command line, for the threads' and the hybrid program.
struct problem {
  std::int64_t rows = 1000, cols = 1000, sweeps = 20, seed = 1;

  void add_to(example::command_line& cli) {
    cli.option("rows", rows, 1, "interior rows i");
    cli.option("cols", cols, 1, "interior columns j");
    cli.option("sweeps", sweeps, 1, "Gauss-Seidel sweeps t");
    cli.option("seed", seed, 0, "seed of the initial interior");
  }
  void check(const example::command_line& cli) const {
    if ((rows + 2) * (cols + 2) > 400'000'000) cli.fail("--rows x --cols is limited to 4e8 points");
  }
  plate make() const { return plate(rows, cols, sweeps, seed); }
  // Does `p` hold the serial sweeps' result, bit for bit? For --verify.
  bool serial_equal(const plate& p) const {
    plate reference = make();
    reference.serial();
    return same_bits(p.u, reference.u);
  }
};

}  // namespace dependence::heat

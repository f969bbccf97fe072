// hydro: Livermore kernel 23, the implicit hydrodynamics fragment, in the
// 3-D form of seed 000 (Ciorba et al. 2008, sec. 6.1), which keeps one za
// plane per outer iteration l so that its dependences are explicit:
//
//   for (l = 1; l <= loop; l++)        /* synchronization dimension */
//     for (j = 1; j < 5; j++)
//       for (k = 1; k < n; k++) {      /* chunk dimension */
//         qa = za[l-1][j+1][k]*zr[j][k] + za[l][j-1][k]*zb[j][k] +
//              za[l-1][j][k+1]*zu[j][k] + za[l][j][k-1]*zv[j][k] + zz[j][k];
//         za[l][j][k] += 0.175 * (qa - za[l][j][k]);
//       }
//
// Iteration (l, j, k) needs (l-1, j+1, k), (l, j-1, k), (l-1, j, k+1) and
// (l, j, k-1): dependence vectors (1,-1,0) (0,1,0) (1,0,-1) (0,0,1).
#pragma once

#include "dependence.hpp"

namespace dependence::livermore23 {

const std::vector<std::array<std::int64_t, 3>> dependences = {{1, -1, 0}, {0, 1, 0}, {1, 0, -1}, {0, 0, 1}};
constexpr std::int64_t rows = 7;  // j = 0 .. 6, as in the Livermore loops

struct hydro {
  std::int64_t loop, n;
  std::vector<double> za;                  // (loop + 1) x rows x (n + 1)
  std::vector<double> zr, zb, zu, zv, zz;  // rows x (n + 1)

  hydro(std::int64_t loops, std::int64_t size, std::int64_t seed) : loop(loops), n(size) {
    const auto plane = static_cast<std::size_t>(rows * (n + 1));
    za.resize(static_cast<std::size_t>(loop + 1) * plane);
    // Coefficients as in the Livermore kernels' own set-up: small enough
    // that za stays bounded over many l.
    int stream = 0;
    for (std::vector<double>* v : {&zr, &zb, &zu, &zv, &zz}) {
      const example::random_stream r(static_cast<std::uint64_t>(seed), static_cast<std::uint64_t>(++stream));
      v->resize(plane);
      for (std::size_t x = 0; x < plane; ++x) (*v)[x] = 0.1 + 0.1 * r.unit(x);
    }
    const example::random_stream r(static_cast<std::uint64_t>(seed), 0);
    for (std::size_t x = 0; x < za.size(); ++x) za[x] = r.unit(x);
  }

  double& z(std::int64_t l, std::int64_t j, std::int64_t k) {
    return za[static_cast<std::size_t>((l * rows + j) * (n + 1) + k)];
  }
  double c(const std::vector<double>& v, std::int64_t j, std::int64_t k) const {
    return v[static_cast<std::size_t>(j * (n + 1) + k)];
  }

  void point(std::int64_t l, std::int64_t j, std::int64_t k) {
    const double qa = z(l - 1, j + 1, k) * c(zr, j, k) + z(l, j - 1, k) * c(zb, j, k) +
                      z(l - 1, j, k + 1) * c(zu, j, k) + z(l, j, k - 1) * c(zv, j, k) + c(zz, j, k);
    z(l, j, k) += 0.175 * (qa - z(l, j, k));
  }

  void serial() {
    for (std::int64_t l = 1; l <= loop; ++l)
      for (std::int64_t j = 1; j < 5; ++j)
        for (std::int64_t k = 1; k < n; ++k) point(l, j, k);
  }

  // The plain sinks leave the space at j = 4 and k = n - 1 (stock libomp
  // waits forever there); the guarded form names only sinks inside it.
  void doacross(bool plain) {
    const std::int64_t loops = loop, size = n;
    if (plain) {
#pragma omp parallel for ordered(3) schedule(runtime)
      for (std::int64_t l = 1; l <= loops; ++l)
        for (std::int64_t j = 1; j < 5; ++j)
          for (std::int64_t k = 1; k < size; ++k) {
#pragma omp ordered depend(sink : l - 1, j + 1, k) depend(sink : l - 1, j, k + 1)
            point(l, j, k);
#pragma omp ordered depend(source)
          }
    } else {
#pragma omp parallel for ordered(3) schedule(runtime)
      for (std::int64_t l = 1; l <= loops; ++l)
        for (std::int64_t j = 1; j < 5; ++j)
          for (std::int64_t k = 1; k < size; ++k) {
            if (j + 1 < 5) {
#pragma omp ordered depend(sink : l - 1, j + 1, k)
            }
            if (k + 1 < size) {
#pragma omp ordered depend(sink : l - 1, j, k + 1)
            }
            point(l, j, k);
#pragma omp ordered depend(source)
          }
    }
  }

  selfsched::wavefront_report wavefront(const selfsched::wavefront_options& o) {
    // Indices from 0: l = 1 + a, j = 1 + b, k = 1 + c.
    auto body = [this](std::int64_t a, std::int64_t b, std::int64_t c) { point(1 + a, 1 + b, 1 + c); };
    return selfsched::wavefront<3>({loop, 4, n - 1}, dependences, body, o);
  }
};

// The problem on the command line, for the threads' and the hybrid program.
struct problem {
  std::int64_t loop = 300, n = 3000, seed = 1;

  void add_to(example::command_line& cli) {
    cli.option("loop", loop, 1, "outer iterations l (u_s)");
    cli.option("n", n, 2, "k runs 1 .. n-1 (u_c)");
    cli.option("seed", seed, 0, "seed of the inputs");
  }
  void check(const example::command_line& cli) const {
    if (loop * rows * (n + 1) > 400'000'000) cli.fail("--loop x 7 x (--n + 1) is limited to 4e8 values (3.2 GB)");
  }
  // Does `h` hold the serial loop's result, bit for bit? For --verify.
  bool serial_equal(const hydro& h) const {
    hydro reference(loop, n, seed);
    reference.serial();
    return same_bits(h.za, reference.za);
  }
};

}  // namespace dependence::livermore23

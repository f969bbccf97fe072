#!/usr/bin/env bash
# Installs the Debian packages selfsched builds and tests with, when they are
# missing. As root it runs apt-get itself; otherwise it prints the one command
# to run and fails, so `make` never half-builds on a machine without them.
set -euo pipefail

packages=(
  clang-19 libomp-19-dev            # compiler and the stock OpenMP runtime we bind to
  gcc g++ gfortran                  # GCC programs (libgomp), served alike (tests/gcc/)
  flang-19                          # LLVM's Fortran on libomp (tests: the Fortran programs again)
  cmake ninja-build pkg-config make # build
  libgtest-dev libbenchmark-dev     # tests, microbenchmarks
  libhwloc-dev hwloc                # topology, CPU kinds
  openmpi-bin libopenmpi-dev        # the MPI bridge
  nlohmann-json3-dev                # profiles, system information files
  libpng-dev                        # examples/mandelbrot --png
  libxml2-utils                     # xmllint: tests check selfsched-report's SVG files
  help2man                          # manual pages from the tools' --help
  libclang-rt-19-dev                # sanitizer runtimes (make sanitize)
  libsimgrid-dev                    # selfsched-sim: platforms larger than this one
  llvm-19-tools python3-psutil      # lit and FileCheck: LLVM's OpenMP tests (make peer-tests, ctest -L patched)
  valgrind                          # tests: programs under memcheck; callgrind instruction counts
)

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$pkg")
done

[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
  echo "selfsched: missing packages. Run as root:" >&2
  echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "selfsched: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# Fetches the LLVM source of the installed OpenMP runtime (Debian's
# llvm-toolchain-19 source package, the version libomp5-19 was built from)
# into BUILD_ROOT/libomp-src, once, and prints its openmp/ directory. For
# benchmark and peer-test targets only (make libomp-release, make
# peer-tests): nothing in `make test` needs it, and the source stays out of
# git.
#
#   tools/fetch-llvm-source.sh [BUILD_ROOT]   (default: build)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build_root=$(realpath -m "${1:-$root/build}")
src_dir=$build_root/libomp-src
package=llvm-toolchain-19

say() { echo "fetch-llvm-source: $*" >&2; }
die() { say "$*"; exit 1; }
# shellcheck source=apt-source.sh
source "$root/tools/apt-source.sh"

# The source version matching the installed runtime, so that only build
# options (or nothing) differ from what the program runs on.
version=$(dpkg-query -W -f='${source:Version}' libomp5-19 2>/dev/null || true)

have_source() { compgen -G "$src_dir/$package-*/openmp/CMakeLists.txt" >/dev/null; }

# Everything but the directory printed last goes to stderr: callers read
# stdout ("$(tools/fetch-llvm-source.sh)"), and dpkg-source talks on stdout.
if ! have_source; then
  {
    enable_deb_src "$package"
    command -v dpkg-source >/dev/null || apt-get install -y -qq dpkg-dev || die "cannot install dpkg-dev"
    mkdir -p "$src_dir"
    say "apt-get source $package${version:+=$version} into $src_dir"
    (cd "$src_dir" && apt-get source -qq "$package${version:+=$version}") ||
      die "apt-get source $package${version:+=$version} failed (see above)"
  } >&2
  have_source || die "apt-get source gave no $package-*/openmp in $src_dir"
fi

dirname "$(compgen -G "$src_dir/$package-*/openmp/CMakeLists.txt" | head -1)"

#!/usr/bin/env bash
# Fetches libgomp's testsuite (and libgomp's headers, which some tests
# include) from Debian's source package of the installed gcc into
# BUILD_ROOT/gcc-src, once, and prints the testsuite directory. For `make
# peer-tests` only: nothing in `make test` needs it, and the source stays
# out of git.
#
#   tools/fetch-gcc-testsuite.sh [BUILD_ROOT]   (default: build)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build_root=$(realpath -m "${1:-$root/build}")
src_dir=$build_root/gcc-src

say() { echo "fetch-gcc-testsuite: $*" >&2; }
die() { say "$*"; exit 1; }
# shellcheck source=apt-source.sh
source "$root/tools/apt-source.sh"

# The source package of the libgomp programs link against (gcc-12 on Debian 12).
package=$(dpkg-query -W -f='${source:Package}' libgomp1 2>/dev/null || true)
version=$(dpkg-query -W -f='${source:Version}' libgomp1 2>/dev/null || true)
[[ -n $package ]] || die "libgomp1 is not installed"

have_testsuite() { compgen -G "$src_dir/gcc-*/libgomp/testsuite/libgomp.c" >/dev/null; }

if ! have_testsuite; then
  enable_deb_src "$package"
  mkdir -p "$src_dir"
  say "apt-get source --download-only $package${version:+=$version} into $src_dir"
  # stderr: callers read the directory this prints last from stdout.
  (cd "$src_dir" && apt-get source --download-only -qq "$package${version:+=$version}") >&2 ||
    die "apt-get source $package failed (see above)"
  # Debian's gcc orig tarball holds the upstream tarball: take only libgomp's
  # headers and testsuite out of it (a full unpack is ~800 MB).
  orig=$(compgen -G "$src_dir/${package}_*.orig.tar.gz" | head -1) || die "no orig tarball in $src_dir"
  inner=$(tar tzf "$orig" | grep -E '/gcc-[0-9.]+(-dfsg)?\.tar\.xz$' | sed -n 1p)
  [[ -n $inner ]] || die "no gcc tarball inside $orig"
  tar xzf "$orig" -C "$src_dir" "$inner"
  tar xJf "$src_dir/$inner" -C "$src_dir" --wildcards '*/libgomp/*.h' '*/libgomp/testsuite/*'
  rm -f "$src_dir/$inner"
  have_testsuite || die "the gcc tarball gave no libgomp/testsuite in $src_dir"
fi

dirname "$(compgen -G "$src_dir/gcc-*/libgomp/testsuite/libgomp.c" | head -1)"

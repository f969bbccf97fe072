#!/usr/bin/env bash
# Builds libomp 19 from the distribution's own source package as a Release
# build, the baseline HPC sites deploy. Debian's libomp5-19 is built with
# KMP_DEBUG tracing (a string is formatted inside every dispatch_next), so it
# is a slow baseline; benchmarks compare against both.
#
#   benchmarks/omp/build_release_libomp.sh [BUILD_ROOT]   (default: build)
#
# Result: BUILD_ROOT/libomp-release/lib/libomp.so.5; run a benchmark with
# LD_LIBRARY_PATH=BUILD_ROOT/libomp-release/lib. A benchmark-time step only:
# nothing here is a test dependency, and the source stays out of git
# (BUILD_ROOT/libomp-src, tools/fetch-llvm-source.sh).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build_root=$(realpath -m "${1:-$root/build}")
out_dir=$build_root/libomp-release

say() { echo "build_release_libomp: $*" >&2; }
die() { say "$*"; exit 1; }

if [[ -f $out_dir/lib/libomp.so.5 ]]; then
  say "already built: $out_dir/lib/libomp.so.5"
  exit 0
fi

openmp_src=$("$root/tools/fetch-llvm-source.sh" "$build_root") || die "no LLVM source (see above)"
"$root/tools/build-libomp-tree.sh" "$openmp_src" "$out_dir" "$out_dir/lib"

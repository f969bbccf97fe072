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
mkdir -p "$build_root"
say "configuring $openmp_src (Release) into $out_dir"
# OMPT stays on (selfsched is an OMPT tool); no offloading, no OMPD, no tests.
cmake -S "$openmp_src" -B "$out_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DOPENMP_ENABLE_LIBOMPTARGET=OFF -DLIBOMP_OMPD_SUPPORT=OFF \
  -DLIBOMP_OMPT_SUPPORT=ON \
  -DLIBOMP_INSTALL_ALIASES=OFF -DLIBOMP_USE_HWLOC=OFF \
  >"$out_dir.configure.log" 2>&1 || { tail -30 "$out_dir.configure.log"; die "cmake configure failed"; }
cmake --build "$out_dir" -j "${JOBS:-2}" --target omp || die "build failed"
# Debian's soname patch names the file libomp.so.5 (the name binaries ask
# for); upstream names it libomp.so. One directory for LD_LIBRARY_PATH:
lib=$(find "$out_dir/runtime/src" -maxdepth 1 -name 'libomp.so*' -type f -print -quit)
[[ -n $lib ]] || die "no libomp.so* under $out_dir/runtime/src"
mkdir -p "$out_dir/lib"
cp -f "$lib" "$out_dir/lib/libomp.so.5"
ln -sf libomp.so.5 "$out_dir/lib/libomp.so"
say "built $out_dir/lib/libomp.so.5"

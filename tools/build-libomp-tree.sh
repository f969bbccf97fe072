#!/usr/bin/env bash
# Builds libomp from an LLVM openmp/ source tree, Release, as HPC sites
# deploy it: the one build both benchmarks/omp/build_release_libomp.sh (the
# distribution's source as is) and tools/build-libomp-patched.sh (with
# patches/) use.
#
#   tools/build-libomp-tree.sh OPENMP_SRC BUILD_DIR LIB_DIR [CMAKE_ARGS...]
#
# LIB_DIR gets libomp.so.5, libomp.so and omp.h: run a program on it with
# LD_LIBRARY_PATH=LIB_DIR, or link it with -L LIB_DIR.
set -euo pipefail

src=$1 build=$2 lib=$3
shift 3
say() { echo "build-libomp-tree: $*" >&2; }
die() { say "$*"; exit 1; }

mkdir -p "$(dirname "$build")"
say "configuring $src (Release) into $build"
# OMPT stays on (selfsched is an OMPT tool); no offloading, no OMPD.
cmake -S "$src" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DOPENMP_ENABLE_LIBOMPTARGET=OFF -DLIBOMP_OMPD_SUPPORT=OFF \
  -DLIBOMP_OMPT_SUPPORT=ON \
  -DLIBOMP_INSTALL_ALIASES=OFF -DLIBOMP_USE_HWLOC=OFF "$@" \
  >"$build.configure.log" 2>&1 || { tail -30 "$build.configure.log"; die "cmake configure failed"; }
cmake --build "$build" -j "${JOBS:-2}" --target omp >"$build.build.log" 2>&1 ||
  { tail -30 "$build.build.log"; die "build failed (log: $build.build.log)"; }

# Debian's soname patch names the file libomp.so.5 (the name binaries ask
# for) and nothing else; programs link -lomp, so libomp.so too, in LIB_DIR
# and beside the built file (the runtime's lit tests link from there).
runtime=$build/runtime/src
built=$(find "$runtime" -maxdepth 1 -name 'libomp.so*' -type f -print -quit)
[[ -n $built ]] || die "no libomp.so* under $runtime"
[[ -e $runtime/libomp.so ]] || ln -s "$(basename "$built")" "$runtime/libomp.so"
mkdir -p "$lib"
cp -f "$built" "$lib/libomp.so.5"
ln -sf libomp.so.5 "$lib/libomp.so"
cp -f "$runtime/omp.h" "$lib/omp.h"
say "built $lib/libomp.so.5"

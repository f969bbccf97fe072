#!/usr/bin/env bash
# Builds libomp 19 from the distribution's source package with the patch
# series in patches/ applied (registered loop schedules, the doacross bound
# fix, their lit tests): a Release build, as build_release_libomp.sh builds
# the unpatched baseline.
#
#   tools/build-libomp-patched.sh [BUILD_ROOT]   (default: build)
#
# Result: BUILD_ROOT/libomp-patched/lib/libomp.so.5 (and libomp.so, omp.h);
# run a program on it with LD_LIBRARY_PATH=BUILD_ROOT/libomp-patched/lib.
# The runtime's own lit tests are configured in
# BUILD_ROOT/libomp-patched/build/runtime/test (lit and FileCheck from
# Debian's llvm-19-tools). Rebuilt when a patch changes.
#
# Exit status 0 and "skipped" on stderr when the source package cannot be
# fetched (no deb-src, no network, not root): `make test` then skips the
# `patched` tests with that message instead of failing.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build_root=$(realpath -m "${1:-$root/build}")
out=$build_root/libomp-patched
say() { echo "build-libomp-patched: $*" >&2; }
die() { say "$*"; exit 1; }

patches=("$root"/patches/*.patch)
[[ -f ${patches[0]} ]] || die "no patches in $root/patches"
stamp=$(cat "${patches[@]}" "$0" | sha256sum | cut -d' ' -f1)
if [[ -f $out/lib/libomp.so.5 && "$(cat "$out/stamp" 2>/dev/null)" == "$stamp" ]]; then
  say "up to date: $out/lib/libomp.so.5"
  exit 0
fi

if ! source_dir=$("$root/tools/fetch-llvm-source.sh" "$build_root"); then
  say "skipped: the LLVM source package could not be fetched (see above)"
  rm -rf "$out/lib"
  exit 0
fi
llvm_tree=$(dirname "$source_dir")

# A tree of our own: openmp/ copied and patched, the rest of LLVM (its cmake
# modules) linked, so the fetched source stays pristine for other builds.
rm -rf "$out"
mkdir -p "$out/src"
for entry in "$llvm_tree"/*; do
  name=$(basename "$entry")
  [[ $name == openmp ]] || ln -s "$entry" "$out/src/$name"
done
cp -a "$source_dir" "$out/src/openmp"
# patch(1), not git apply: inside another git work tree (a build directory
# in a clone) git apply silently skips paths outside that tree.
command -v patch >/dev/null || apt-get install -y -qq patch >/dev/null || die "cannot install patch"
for p in "${patches[@]}"; do
  patch -d "$out/src" -p1 --forward --quiet <"$p" || die "$(basename "$p") does not apply to $llvm_tree"
done

# The runtime's lit tests configured too (lit and FileCheck from Debian's
# llvm-19-tools), for `ctest -L patched`.
tools=/usr/lib/llvm-19
"$root/tools/build-libomp-tree.sh" "$out/src/openmp" "$out/build" "$out/lib" \
  -DOPENMP_LLVM_TOOLS_DIR=$tools/bin \
  -DOPENMP_LLVM_LIT_EXECUTABLE=$tools/build/utils/lit/lit.py \
  -DOPENMP_FILECHECK_EXECUTABLE=$tools/bin/FileCheck \
  -DOPENMP_NOT_EXECUTABLE=$tools/bin/not
echo "$stamp" >"$out/stamp"

#!/usr/bin/env bash
# Instructions per chunk under libgomp (GCC programs): selfsched's claim and
# its forwarding against libgomp's own dynamic,1, and per loop instance
# against libgomp's guided. dispatch_icount.cpp is compiled with g++ here;
# libselfsched comes in by LD_PRELOAD, as into any GCC binary.
#
#   benchmarks/omp/callgrind_gomp.sh BUILD_DIR
#
# A chunk's cost is the difference of whole-program instruction counts
# between loops of N2 and N1 one-iteration chunks, divided by N2 - N1 (the
# tiny body and the loop's own increment included, alike for every case).
# Callgrind runs the threads one at a time: uncontended counts, the stable
# second opinion next to timings, never a timing.
set -euo pipefail
build=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v valgrind >/dev/null || { echo "callgrind_gomp: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
g++ -O2 -fopenmp -std=c++20 "$here/dispatch_icount.cpp" -o "$work/dispatch_icount"
objcopy --strip-debug "$(realpath "$build/lib/libselfsched.so")" "$work/libselfsched.so"

total() { # clause n loops env...
  local clause=$1 n=$2 loops=$3
  shift 3
  env -u OMP_SCHEDULE -u SELFSCHED_SCHEDULE OMP_WAIT_POLICY=passive "$@" \
    valgrind --tool=callgrind --callgrind-out-file="$work/out" "$work/dispatch_icount" "$clause" "$n" 2 "$loops" >/dev/null 2>&1
  callgrind_annotate "$work/out" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
}
preload=(LD_PRELOAD="$work/libselfsched.so")
printf '%-44s %s\n' "case (2 threads, OMP_WAIT_POLICY=passive)" "instructions per chunk"
per_chunk() { # name clause env...
  local name=$1 clause=$2
  shift 2
  local a b
  a=$(total "$clause" 10000 1 "$@")
  b=$(total "$clause" 30000 1 "$@")
  printf '%-44s %d\n' "$name" $(((b - a) / 20000))
}
per_chunk "selfsched ss (schedule(runtime))" runtime SELFSCHED_SCHEDULE=ss "${preload[@]}"
per_chunk "libgomp runtime, OMP_SCHEDULE=dynamic,1" runtime OMP_SCHEDULE=dynamic,1
per_chunk "libgomp schedule(nonmonotonic:dynamic,1)" nonmonotonic:dynamic,1
per_chunk "  forwarded through libselfsched" nonmonotonic:dynamic,1 SELFSCHED_SCHEDULE=ss "${preload[@]}"
per_chunk "libgomp schedule(monotonic:dynamic,1)" monotonic:dynamic,1
per_instance() { # name clause env...: 64-iteration loops, per loop instance
  local name=$1 clause=$2
  shift 2
  local a b
  a=$(total "$clause" 64 100 "$@")
  b=$(total "$clause" 64 300 "$@")
  printf '%-44s %d per loop of 64\n' "$name" $(((b - a) / 200))
}
per_instance "selfsched gss (schedule(runtime))" runtime SELFSCHED_SCHEDULE=gss "${preload[@]}"
per_instance "libgomp schedule(guided,1)" guided,1
per_instance "selfsched ss (schedule(runtime))" runtime SELFSCHED_SCHEDULE=ss "${preload[@]}"
per_instance "libgomp runtime, OMP_SCHEDULE=dynamic,1" runtime OMP_SCHEDULE=dynamic,1

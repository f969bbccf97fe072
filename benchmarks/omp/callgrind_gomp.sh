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
# marginal NAME UNIT CLAUSE N1 LOOPS1 N2 LOOPS2 ENV...: the instructions that
# (N2 x LOOPS2) - (N1 x LOOPS1) more iterations cost, per UNIT (chunk: one
# more iteration of one loop; loop: one more instance of a loop of N).
marginal() {
  local name=$1 unit=$2 clause=$3 n1=$4 loops1=$5 n2=$6 loops2=$7
  shift 7
  local a b units
  a=$(total "$clause" "$n1" "$loops1" "$@")
  b=$(total "$clause" "$n2" "$loops2" "$@")
  if [[ $unit == chunk ]]; then units=$((n2 - n1)); else units=$((loops2 - loops1)); fi
  printf '%-44s %d per %s\n' "$name" $(((b - a) / units)) "$unit"
}
per_chunk() { marginal "$1" chunk "$2" 10000 1 30000 1 "${@:3}"; }
per_instance() { marginal "$1" "loop of 64" "$2" 64 100 64 300 "${@:3}"; }

printf '%s\n' "2 threads, OMP_WAIT_POLICY=passive; instructions:"
per_chunk "selfsched ss (schedule(runtime))" runtime SELFSCHED_SCHEDULE=ss "${preload[@]}"
per_chunk "libgomp runtime, OMP_SCHEDULE=dynamic,1" runtime OMP_SCHEDULE=dynamic,1
per_chunk "libgomp schedule(nonmonotonic:dynamic,1)" nonmonotonic:dynamic,1
per_chunk "  forwarded through libselfsched" nonmonotonic:dynamic,1 SELFSCHED_SCHEDULE=ss "${preload[@]}"
per_chunk "libgomp schedule(monotonic:dynamic,1)" monotonic:dynamic,1
per_instance "selfsched gss (schedule(runtime))" runtime SELFSCHED_SCHEDULE=gss "${preload[@]}"
per_instance "libgomp schedule(guided,1)" guided,1
per_instance "selfsched ss (schedule(runtime))" runtime SELFSCHED_SCHEDULE=ss "${preload[@]}"
per_instance "libgomp runtime, OMP_SCHEDULE=dynamic,1" runtime OMP_SCHEDULE=dynamic,1

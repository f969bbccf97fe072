#!/usr/bin/env bash
# make bench-omp: the per-chunk cost of the libomp binding, all of it in a
# few minutes (plus ~1-3 minutes, once, to build the Release libomp).
#
#   benchmarks/omp/run_bench_omp.sh [BUILD_DIR]      (default: build)
#   THREADS=2,4  NICE=-5  (environment, optional: bench_dispatch thread counts; priority
#                          of the timed runs on a shared machine)
#
# 1. build_release_libomp.sh (as root the first time; skipped with a note
#    when it cannot run),
# 2. bench_dispatch with the distribution's libomp, the Release one and the
#    Release one with patches/ (when make libomp-patched built it),
# 3. compare_forwarding.sh (standard loops with and without libselfsched),
# 4. callgrind_icount.sh (instruction counts),
# 5. report.py: BUILD_DIR/bench-omp/summary.md.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-build}")
out=$build/bench-omp
for program in bench_dispatch bench_dispatch_plain dispatch_icount; do
  [[ -x $build/bin/$program ]] || { echo "run_bench_omp: $build/bin/$program missing: build first" >&2; exit 1; }
done
mkdir -p "$out"
: >"$out/load.txt"
note_load() { echo "$(date '+%F %T') $1: loadavg $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/load.txt"; }
timed=(${NICE:+nice -n "$NICE"})

for tool in python3 valgrind; do
  command -v "$tool" >/dev/null && continue
  [[ $(id -u) == 0 ]] || { echo "run_bench_omp: $tool missing; as root: apt-get install $tool" >&2; exit 1; }
  apt-get install -y -qq "$tool" >/dev/null
done

libomps=(distribution)
if "$here/build_release_libomp.sh" "$build"; then
  libomps+=(release)
else
  echo "run_bench_omp: no Release libomp (see above); measuring the distribution's only" >&2
fi
# With patches/ applied (make libomp-patched, also built with the tree):
# libselfsched registers its schedules there and jumps straight into libomp.
[[ -f $build/libomp-patched/lib/libomp.so.5 ]] && libomps+=(patched)
libomp_dir() {
  case $1 in
    release) echo "$build/libomp-release/lib" ;;
    patched) echo "$build/libomp-patched/lib" ;;
  esac
}

note_load start
for libomp in "${libomps[@]}"; do
  dir=$(libomp_dir "$libomp")
  note_load "bench_dispatch ($libomp libomp)"
  env -u OMP_SCHEDULE -u SELFSCHED_SCHEDULE ${dir:+LD_LIBRARY_PATH="$dir"} "${timed[@]}" \
    "$build/bin/bench_dispatch" ${THREADS:+--threads="$THREADS"} \
    --benchmark_repetitions=9 --benchmark_enable_random_interleaving=true \
    --benchmark_display_aggregates_only=true --benchmark_min_time=0.05 \
    --benchmark_counters_tabular=true \
    --benchmark_out="$out/bench.$libomp.json" --benchmark_out_format=json |
    grep -E '_median|^Benchmark|^---' || true
done

for libomp in "${libomps[@]}"; do
  note_load "compare_forwarding ($libomp libomp)"
  # The distribution's libomp is slow per chunk: fewer rounds keep it short.
  ROUNDS=$([[ $libomp == distribution ]] && echo 7 || echo 9) "${timed[@]}" \
    "$here/compare_forwarding.sh" "$build" "$out/forwarding/$libomp" "$(libomp_dir "$libomp")"
done

note_load callgrind
release_dir=
if [[ " ${libomps[*]} " == *" release "* ]]; then release_dir=$(libomp_dir release); fi
# The patched libomp (make libomp-patched, also built with the tree) when there is one.
"$here/callgrind_icount.sh" "$build" "$out" "$release_dir" "$build/libomp-patched/lib"
note_load end

python3 "$here/report.py" "$out" >/dev/null
echo "run_bench_omp: results in $out/summary.md" >&2

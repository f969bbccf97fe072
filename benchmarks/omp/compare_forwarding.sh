#!/usr/bin/env bash
# What libselfsched costs a loop it does not serve: the standard libomp loops
# of bench_dispatch_plain timed alone, with libselfsched preloaded (and a
# technique active, the costlier path), and as bench_dispatch (linked with
# libselfsched). The variants alternate ROUNDS times so slow drifts of a busy
# machine hit all of them; the report is the median of the per-round ratios.
#
#   benchmarks/omp/compare_forwarding.sh BUILD_DIR OUT_DIR [LIBOMP_DIR]
#   ROUNDS=9 FILTER='dynamic1' ...     (environment, optional)
#
# LIBOMP_DIR: a directory with libomp.so.5 to use instead of the
# distribution's (e.g. build/libomp-release/lib).
set -euo pipefail

build=$(realpath "$1")
out=$(realpath -m "$2")
libomp_dir=${3:-}
rounds=${ROUNDS:-9}
# The standard loops; the atomic floor and static show the cost per
# parallel region (libselfsched is an OMPT tool that follows regions).
filter=${FILTER:-'^(libomp-dynamic1|libomp-static|atomic-floor)'}
here=$(dirname "$0")

mkdir -p "$out"
rm -f "$out"/*.json
common=(--benchmark_filter="$filter" --benchmark_min_time="${MIN_TIME:-0.05}" "--sizes=65536,64")
run() {  # variant round program [env...]
  local variant=$1 round=$2 program=$3
  shift 3
  env -u OMP_SCHEDULE -u SELFSCHED_SCHEDULE ${libomp_dir:+LD_LIBRARY_PATH="$libomp_dir"} "$@" \
    "$build/bin/$program" "${common[@]}" --benchmark_out="$out/$variant.$round.json" \
    --benchmark_out_format=json >/dev/null
}
for ((round = 1; round <= rounds; round++)); do
  run plain "$round" bench_dispatch_plain
  run preload "$round" bench_dispatch_plain LD_PRELOAD="$build/lib/libselfsched.so" SELFSCHED_SCHEDULE=ss
  run linked "$round" bench_dispatch SELFSCHED_SCHEDULE=ss
  echo "compare_forwarding: round $round of $rounds" >&2
done
python3 "$here/report.py" forwarding "$out"

#!/usr/bin/env bash
# Instructions per chunk and per loop instance in the dispatch entry points
# (__kmpc_dispatch_init_8 / next_8 / deinit, inclusive, as the program calls
# them), under valgrind --tool=callgrind: selfsched vs libomp, with the
# distribution's libomp and, when built, a Release one (make libomp-release)
# and the Release one with patches/ (make libomp-patched), where selfsched
# registers its schedules with libomp (and, "-interposed", does not:
# SELFSCHED_HOOKS=off).
#
#   benchmarks/omp/callgrind_icount.sh BUILD_DIR OUT_DIR [RELEASE_LIBOMP_DIR [PATCHED_LIBOMP_DIR]]
#
# Writes OUT_DIR/callgrind/*.annotate and OUT_DIR/callgrind/runs.tsv, which
# report.py reads. Callgrind runs the threads one at a time: these are
# uncontended instruction counts, a cross-check of the timings, not a timing.
set -euo pipefail

build=$(realpath "$1")
out=$(realpath -m "$2")/callgrind
release=${3:-}
patched=${4:-}
chunk_n=10000        # one loop of chunk_n chunks: cost per dispatch_next
loop_n=64 loops=100  # many short loops: cost per loop instance
threads=2

command -v valgrind >/dev/null || { echo "callgrind_icount: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out"/*.annotate "$out"/*.out

# valgrind 3.19 cannot read clang-19's DWARF 5: count on copies without
# debug info (symbol names stay).
objcopy --strip-debug "$build/bin/dispatch_icount" "$out/dispatch_icount"
objcopy --strip-debug "$(realpath "$build/lib/libselfsched.so")" "$out/libselfsched.so"

libomps=(distribution)
[[ -n $release && -f $release/libomp.so.5 ]] && libomps+=(release)
[[ -n $patched && -f $patched/libomp.so.5 ]] && libomps+=(patched)

# name | clause | OMP_SCHEDULE | preload libselfsched? The forwarded cases
# run with a technique active (the costlier path to libomp). "-interposed":
# on the patched libomp only, with its hooks left unused; "-hooks": on the
# patched libomp only, libselfsched loaded after libomp (as when linked after
# it), so that every chunk goes through libomp's next hook.
cases=(
  "selfsched-ss|runtime|ss|yes"
  "selfsched-ss-interposed|runtime|ss|yes"
  "selfsched-ss-hooks|runtime|ss|after"
  "libomp-dynamic1-monotonic|monotonic:dynamic,1||no"
  "libomp-dynamic1-nonmonotonic|nonmonotonic:dynamic,1||no"
  "forwarded-dynamic1-monotonic|monotonic:dynamic,1|ss|yes"
  "forwarded-dynamic1-monotonic-interposed|monotonic:dynamic,1|ss|yes"
  "forwarded-dynamic1-monotonic-hooks|monotonic:dynamic,1|ss|after"
  "forwarded-dynamic1-nonmonotonic|nonmonotonic:dynamic,1|ss|yes"
  "selfsched-gss|runtime|gss|yes"
  "libomp-guided1|guided,1||no"
  "selfsched-tss|runtime|tss|yes"
  "libomp-trapezoidal|runtime|trapezoidal,1|no"
)

printf 'libomp\tcase\tshape\tn\tloops\tthreads\tfile\n' >"$out/runs.tsv"
for libomp in "${libomps[@]}"; do
  for row in "${cases[@]}"; do
    IFS='|' read -r name clause schedule preload <<<"$row"
    for shape in chunk loop; do
      if [[ $shape == chunk ]]; then n=$chunk_n count=1; else n=$loop_n count=$loops; fi
      # Per chunk only where chunks are of one iteration.
      [[ $shape == chunk && ($name == *gss* || $name == *tss* || $name == *guided* || $name == *trapezoidal*) ]] && continue
      [[ ($name == *-interposed || $name == *-hooks) && $libomp != patched ]] && continue
      base=$out/$libomp.$name.$shape
      env_args=(-u OMP_SCHEDULE -u SELFSCHED_SCHEDULE -u SELFSCHED_HOOKS)
      [[ $name == *-interposed ]] && env_args+=(SELFSCHED_HOOKS=off)
      [[ -n $schedule ]] && env_args+=(OMP_SCHEDULE="$schedule")
      [[ $preload == yes ]] && env_args+=(LD_PRELOAD="$out/libselfsched.so")
      [[ $preload == after ]] && env_args+=(LD_PRELOAD="$patched/libomp.so.5 $out/libselfsched.so")
      [[ $libomp == release ]] && env_args+=(LD_LIBRARY_PATH="$release")
      [[ $libomp == patched ]] && env_args+=(LD_LIBRARY_PATH="$patched")
      env "${env_args[@]}" valgrind --tool=callgrind --callgrind-out-file="$base.out" \
        "$out/dispatch_icount" "$clause" "$n" "$threads" "$count" >"$base.log" 2>&1 ||
        { cat "$base.log" >&2; exit 1; }
      callgrind_annotate --threshold=100 --inclusive=yes --tree=caller "$base.out" >"$base.annotate" 2>/dev/null
      rm -f "$base.out"
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$libomp" "$name" "$shape" "$n" "$count" "$threads" \
        "$(basename "$base.annotate")" >>"$out/runs.tsv"
      echo "callgrind_icount: $libomp $name $shape" >&2
    done
  done
done

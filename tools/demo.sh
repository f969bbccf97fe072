#!/usr/bin/env bash
# make demo: selfsched's auto against libomp's schedules on a real loop
# (Mandelbrot rows, one core loaded: benchmarks/matrix/matrix.py), ending with
# one verdict line; then what a few techniques of the catalog hand out.
set -euo pipefail
build="${1:-build}"
chunks="$build/bin/selfsched-chunks"
out="$build/demo"

show() {  # title, then selfsched-chunks arguments
  local title=$1; shift
  printf '  %-8s %s\n' "$title" "$("$chunks" "$@" --sizes | cut -c1-90)"
}

echo "1. OMP_SCHEDULE=auto with libselfsched.so preloaded, against each of libomp's schedules"
echo "   Mandelbrot (800 x 600, one row per iteration), 2 threads bound one per CPU, a busy process on"
echo "   thread 1's CPU (sh -c 'while :; do :; done', started and killed here): 5 runs each, interleaved"
command -v python3 >/dev/null || { echo "make demo: needs python3 (apt-get install python3)" >&2; exit 1; }
status=0
python3 benchmarks/matrix/matrix.py --config benchmarks/matrix/demo.json --build "$build" --out "$out" \
  --verdict auto > "$out.log" || status=$?
# The table, then the verdict last.
grep -v '^Verdict:' "$out.log" || true
"$build/bin/mandelbrot" --width 800 --height 600 --png "$out/mandelbrot.png" >/dev/null
echo
echo "x best libomp: median time / the fastest libomp schedule's; x ideal: / (total work / capacity of 1.5 cores);"
echo "imbalance: max / mean busy time of the threads. On a shared machine, compare the ratios, not the seconds."
echo "The image: $out/mandelbrot.png"
for svg in "$out"/charts/*-gantt.svg; do
  [[ -e "$svg" ]] && echo "Gantt chart of auto's chunks: $svg"
done
echo "All numbers: $out/matrix.json and $out/matrix.md; every technique: make matrix; docs/results.md."
echo
echo "2. What some techniques of the catalog hand out (selfsched-chunks)"
echo "Seed 002 (Yang & Chang 2003), Table 1: N = 1000 iterations, p = 4 workers"
for t in css,125 fss gss tss; do show "$t" --technique "$t" --n 1000 --p 4; done
echo "Seed 000 (Ciorba et al. 2008), Table 2: W-CSS on VP = 1, 0.8, 1, 0.8 and run queues Q = 1, 2, 1, 2"
show "w-css" --technique w-css,1250 --n 10000 --p 4 --weights 1,0.8,1,0.8 --queue 1,2,1,2 --order 0,2,3,1,2,1,3,0,2,3,0
echo
grep '^Verdict:' "$out.log" || echo "Verdict: none (the race did not complete; see $out.log)"
exit $status

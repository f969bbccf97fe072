#!/usr/bin/env bash
# make demo: what the techniques hand out (seed tables), then a real loop:
# Mandelbrot rows on this machine with one core loaded, under libomp's own
# schedules and selfsched's techniques (benchmarks/matrix/matrix.py).
set -euo pipefail
build="${1:-build}"
chunks="$build/bin/selfsched-chunks"
out="$build/demo"

show() {  # title, then selfsched-chunks arguments
  local title=$1; shift
  printf '  %-8s %s\n' "$title" "$("$chunks" "$@" --sizes | cut -c1-90)"
}

echo "1. Chunk sizes each technique hands out"
echo
echo "Seed 002 (Yang & Chang 2003), Table 1: N = 1000 iterations, p = 4 workers"
for t in css,125 fss gss tss; do show "$t" --technique "$t" --n 1000 --p 4; done
echo "Seed 000 (Ciorba et al. 2008), Table 2: W-CSS on VP = 1, 0.8, 1, 0.8 and run queues Q = 1, 2, 1, 2"
show "w-css" --technique w-css,1250 --n 10000 --p 4 --weights 1,0.8,1,0.8 --queue 1,2,1,2 --order 0,2,3,1,2,1,3,0,2,3,0
echo
echo "2. Mandelbrot (800 x 600, one row per iteration), 2 threads, a busy process on core 1"
echo "   (taskset -c 1 sh -c 'while :; do :; done', started and killed here): 5 runs of each schedule, interleaved"
command -v python3 >/dev/null || { echo "make demo: part 2 needs python3 (apt-get install python3)" >&2; exit 1; }
status=0
python3 benchmarks/matrix/matrix.py --config benchmarks/matrix/demo.json --build "$build" --out "$out" || status=$?
"$build/bin/mandelbrot" --width 800 --height 600 --png "$out/mandelbrot.png" >/dev/null
echo
echo "x best libomp: median time / the fastest libomp schedule's; x ideal: / (total work / capacity of 1.5 cores);"
echo "imbalance: max / mean busy time of the threads. Load from other processes is printed above: on a shared"
echo "machine, compare the ratios, not the seconds."
echo "The image:                    $out/mandelbrot.png"
for which in best worst; do
  for svg in "$out"/charts/*-"$which"-*-gantt.svg; do
    [[ -e "$svg" ]] && printf 'Gantt chart, %-5s technique: %s\n' "$which" "$svg"
  done
done
echo "All numbers: $out/matrix.json and $out/matrix.md. More: docs/results.md, benchmarks/matrix/matrix.py --full."
exit $status

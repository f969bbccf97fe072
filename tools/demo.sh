#!/usr/bin/env bash
# make demo: until the threads binding runs real loops, show what the
# techniques do on the seed papers' own examples.
set -euo pipefail
bin="${1:-build}/bin"
chunks="$bin/selfsched-chunks"

show() {  # title, then selfsched-chunks arguments
  local title=$1; shift
  printf '  %-10s %s\n' "$title" "$("$chunks" "$@" --sizes | cut -c1-100)"
}

echo "selfsched: chunk sizes each technique hands out"
echo
echo "Seed 002 (Yang & Chang 2003), Table 1: N = 1000 iterations, p = 4 workers"
for t in ss css,125 fss gss tss; do show "$t" --technique "$t" --n 1000 --p 4; done
echo
echo "Seed 003 (Yang, Cheng & Li 2004), Table 1: I = 2048, 5 nodes at 200/200/233/533/1500 MHz"
echo "(-80: 80% split by CPU speed first, fastest first, then the technique on the rest)"
for t in gss gss-80 fss fss-80 tss tss-80; do
  show "$t" --technique "$t" --n 2048 --p 5 --weights 200,200,233,533,1500 --order 4,3,2,0,1
done
echo
echo "Seed 000 (Ciorba et al. 2008), Table 2: W-CSS, VP = 1, 0.8, 1, 0.8; Q = 1, 2, 1, 2"
echo "(mechanism W scales each chunk by VP_k / Q_k of the worker asking)"
show "w-css" --technique w-css,1250 --n 10000 --p 4 --weights 1,0.8,1,0.8 --queue 1,2,1,2 --order 0,2,3,1,2,1,3,0,2,3,0
echo
echo "Try: $chunks --technique fss --n 100 --p 3"

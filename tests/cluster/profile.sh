#!/usr/bin/env bash
# profile.sh MPIRUN PROGRAM REPORT WORK: runs PROGRAM's `schedules` case under
# `MPIRUN --cluster -np 2` with a profile. Each rank's program writes its own
# (prof.rank<r>.json) with the cluster section and its own rank, although by
# the end its environment is rank 0's (every byte of a rank's memory is); the
# agent beside it, which links libselfsched too, writes none and says nothing
# of its own. selfsched-report shows each rank's parallel regions, shared or
# replicated, with what their merges moved.
set -u
mpirun=$1 program=$2 report=$3 work=$4
rm -rf "$work" && mkdir -p "$work" || exit 1
if ! SELFSCHED_PROFILE="$work/prof.json" SELFSCHED_VERBOSE=1 "$mpirun" --cluster -np 2 "$program" schedules \
    > "$work/out" 2>&1; then
  cat "$work/out"
  exit 1
fi
if grep -q 'no loop was served' "$work/out"; then
  cat "$work/out"
  echo 'an agent spoke as libselfsched'
  exit 1
fi
if ! "$report" --no-charts "$work/prof.rank0.json" "$work/prof.rank1.json" > "$work/report" 2>&1; then
  cat "$work/report"
  exit 1
fi
for r in 0 1; do
  expected=(
    "prof.rank$r.json: VP from .*, rank $r, host"             # the process section names its own rank
    "prof.rank$r.json: cluster mode, rank $r of 2; writes found by"
  )
  for line in "${expected[@]}"; do
    grep -q -- "$line" "$work/report" || { cat "$work/report"; echo "no line '$line' in the report"; exit 1; }
  done
done
# A region row: its site, shared next time, at least one shared run and merge.
if ! grep -Eq '^ +shared +[1-9][0-9]* +[0-9]+ +[0-9]+ +[1-9][0-9]* +[0-9]+ +[0-9]+ +[0-9.]+ +.*openmp_cases\.c:[0-9]+ in schedules$' \
    "$work/report"; then
  cat "$work/report"
  echo 'no shared region with its merges in the report'
  exit 1
fi
echo "ok: both ranks' profiles name their rank and their regions' merges"

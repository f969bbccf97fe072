#!/usr/bin/env bash
# layout_stress.sh MPIRUN ROUNDS PROGRAM [ARGS...]: runs PROGRAM under
# `MPIRUN --cluster` ROUNDS times at each of -np 2 and 3 with 1 and 2
# threads per rank, with busy loops beside it (one per CPU, niced) so that
# the ranks start and reach their first region at different moments.
# A layout that depends on the machine's state (the runtime allocating in
# the program's serial arena) shows up here as "not laid out alike" now
# and then, not at every run, so this loop is not part of make test
# (`make stress-cluster-layout`). Prints runs, stops and the load average;
# exit status 1 if any run failed.
set -u
mpirun=$1 rounds=$2
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/ss-layout.XXXXXX") || exit 1
busy=()
stop_busy() {
  for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap stop_busy EXIT
for _ in $(seq 1 "$(nproc)"); do
  nice -n 19 bash -c 'while :; do :; done' &
  busy+=($!)
done
runs=0 failed=0
for round in $(seq 1 "$rounds"); do
  for ranks in 2 3; do
    for threads in 1 2; do
      OMP_NUM_THREADS=$threads SELFSCHED_AUTO_CACHE=off timeout 120 "$mpirun" --cluster -np "$ranks" "$@" \
        >"$work/out" 2>&1
      status=$?
      runs=$((runs + 1))
      if [ "$status" -ne 0 ] || grep -q 'laid out alike' "$work/out"; then
        failed=$((failed + 1))
        echo "round $round, -np $ranks, $threads threads: exit status $status"
        cat "$work/out"
      fi
    done
  done
done
echo "$runs runs of $* under selfsched-mpirun --cluster, $failed failed; load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$failed" -eq 0 ]

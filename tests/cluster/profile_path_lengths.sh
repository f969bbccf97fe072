#!/usr/bin/env bash
# profile_path_lengths.sh MPIRUN PROGRAM CASE: runs CASE of PROGRAM under
# `MPIRUN --cluster -np 2` with SELFSCHED_PROFILE paths of many lengths.
# Each rank's runtime allocates its own strings from that path (and its rank
# number), so the length moves what the runtime's heap holds where, and the
# ranks' heaps apart by different amounts. Runtime state kept in the
# program's memory (a critical section's lock, once a pointer into that
# heap) then differs by rank, and a rank that got rank 0's crashed at some
# lengths only. Every run must end well and print the same.
set -u
mpirun=$1 program=$2 case=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/ss-prof.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
expected=
for length in $(seq 20 9 200); do
  # $work/<x...>/prof.json, exactly `length` characters.
  pad=$((length - ${#work} - 11))
  [ "$pad" -ge 1 ] || continue
  path=$work/$(printf '%*s' "$pad" '' | tr ' ' x)/prof.json
  mkdir -p "${path%/*}"
  out=$(SELFSCHED_PROFILE=$path "$mpirun" --cluster -np 2 "$program" "$case" 2>"$work/stderr")
  status=$?
  if [ "$status" -ne 0 ] || grep -q 'killed by signal' "$work/stderr"; then
    echo "SELFSCHED_PROFILE of ${#path} characters: exit status $status"
    cat "$work/stderr"
    exit 1
  fi
  if [ -z "$expected" ]; then
    expected=$out
  elif [ "$out" != "$expected" ]; then
    printf 'SELFSCHED_PROFILE of %d characters: output differs:\n%s\nfirst run:\n%s\n' "${#path}" "$out" "$expected"
    exit 1
  fi
  rm -rf "${path%/*}"
done
case $expected in
  *": ok"*) echo "$expected" ;;
  *) printf 'no run said ok:\n%s\n' "$expected"; exit 1 ;;
esac

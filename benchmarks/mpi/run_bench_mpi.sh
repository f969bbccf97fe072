#!/usr/bin/env bash
# The measurements of docs/results.md, "Clusters: MPI transports".
#
#   benchmarks/mpi/run_bench_mpi.sh [BUILD_DIR] [REPEAT]
#
# 1. Per-claim cost of each transport: claim_cost (2 ranks x 1 thread, outer
#    ss: every iteration is an outer chunk), latency hiding off and on.
# 2. Hybrid mandelbrot, rank 1 slowed 2x (SELFSCHED_EXAMPLE_SLOWDOWN=0.5 on its
#    thread, CPU-time based), 2 ranks x 1 thread: outer techniques, static
#    split by rank vs unweighted vs weighted (rank 1 declares
#    SELFSCHED_WEIGHTS=0.5) vs adaptive (nothing declared).
# 3. The same mandelbrot, not slowed, under master, rma and hier.
# Each row: the median of REPEAT runs (default 5; configurations interleaved
# round by round) of the loop's time on rank 0 (time_s: the shared loop, its
# checkpoint and the gather of the image), with min and max. Prints Markdown.
set -euo pipefail
build=${1:-build}
repeat=${2:-5}
bin=$build/bin
run=$bin/selfsched-mpirun
image=(--width 1200 --height 900 --max-iter 3000)
export OMP_NUM_THREADS=1 OMP_SCHEDULE=static SELFSCHED_MPI_LOAD=false
unset SELFSCHED_EXAMPLE_SLOWDOWN SELFSCHED_WEIGHTS SELFSCHED_MPI_SCHEDULE SELFSCHED_MPI_TRANSPORT SELFSCHED_MPI_PREFETCH

median() { sort -g | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "%.3f %.3f %.3f\n", m, v[1], v[NR]}'; }
field() { grep -o "$1=[^ ]*" | head -1 | cut -d= -f2; }

echo "machine: $(getconf _NPROCESSORS_ONLN) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "### Per-claim cost"
echo
echo "claim_cost --n 5000 --work-us 20 --repeat $((2 * repeat + 1)), 2 ranks x 1 thread, outer ss (each iteration is one"
echo "outer chunk), inner static. Claim = time a rank's threads spent in next_outer() per chunk: median of the runs"
echo "(min in parentheses). Loop = the loop's time per chunk, median (ideal: 10 us, two ranks of 20 us iterations)."
echo
echo "| transport | latency hiding | claim on rank 0 (us) | claim on rank 1 (us) | loop per chunk (us) | chunks rank 0 / rank 1 |"
echo "| --- | --- | ---: | ---: | ---: | --- |"
for transport in master rma hier; do
  for prefetch in 0 0.15; do
    line=$(SELFSCHED_MPI_TRANSPORT=$transport SELFSCHED_MPI_NODE_SIZE=1 SELFSCHED_MPI_PREFETCH=$prefetch \
           $run -np 2 $bin/claim_cost --n 5000 --work-us 20 --repeat $((2 * repeat + 1)))
    med=$(echo "$line" | field rank_claim_us_median) min=$(echo "$line" | field rank_claim_us_min)
    echo "| $transport | $([[ $prefetch == 0 ]] && echo off || echo "at 15% left") | ${med%%,*} (${min%%,*}) | ${med##*,} (${min##*,}) | $(echo "$line" | field per_chunk_us_median) | $(echo "$line" | field rank_chunks_median | tr , /) |"
  done
done

# mandelbrot on 2 ranks: rank 0 at full speed, rank 1 slowed (and declaring
# its weight when asked). MPMD: one app context per rank.
slowed() {  # outer technique, weights declared (yes/no), transport
  local weight=()
  [[ $2 == yes ]] && weight=(SELFSCHED_WEIGHTS=0.5)
  SELFSCHED_MPI_SCHEDULE=$1 SELFSCHED_MPI_TRANSPORT=$3 SELFSCHED_MPI_NODE_SIZE=1 \
    $run -np 1 env SELFSCHED_EXAMPLE_SLOWDOWN=1 $bin/mpi_mandelbrot "${image[@]}" \
       : -np 1 env SELFSCHED_EXAMPLE_SLOWDOWN=0.5 "${weight[@]}" $bin/mpi_mandelbrot "${image[@]}"
}
even() {  # outer technique, transport
  SELFSCHED_MPI_SCHEDULE=$1 SELFSCHED_MPI_TRANSPORT=$2 SELFSCHED_MPI_NODE_SIZE=1 \
    $run -np 2 $bin/mpi_mandelbrot "${image[@]}"
}
# Runs every configuration once per round, `repeat` rounds (interleaved, so a
# change in the machine's load hits all configurations alike); keeps each
# run's time_s and the last run's rows per rank.
declare -A times rows
run_rounds() {  # names of configurations; config_<name> runs one
  local name line
  for ((k = 0; k < repeat; ++k)); do
    for name in "$@"; do
      line=$("config_$name")
      [[ $(echo "$line" | field ok) == 1 ]] || { echo "run failed ($name): $line" >&2; exit 1; }
      times[$name]+="$(echo "$line" | field time_s) "
      rows[$name]=$(echo "$line" | field rank_iterations)
    done
  done
}
stats() { printf '%s\n' ${times[$1]} | median; }  # "median min max"

serial=$(OMP_NUM_THREADS=1 $bin/mandelbrot "${image[@]}" | field time_s)
outer_list=(static fss gss tss w-fss dfss dgss wf awf-c awf-b)
declared() { case $1 in w-fss|dfss|dgss|wf) echo yes ;; *) echo no ;; esac; }
for o in "${outer_list[@]}"; do eval "config_slow_$o() { slowed $o $(declared $o) master; }"; done
for t in master rma hier; do
  eval "config_even_$t() { even fss $t; }"
  eval "config_slowfss_$t() { slowed fss no $t; }"
done
names=()
for o in "${outer_list[@]}"; do names+=("slow_$o"); done
for t in master rma hier; do names+=("even_$t" "slowfss_$t"); done
run_rounds "${names[@]}"

echo
echo "### Hybrid mandelbrot, rank 1 slowed 2x"
echo
echo "Serial mandelbrot ${image[*]} on one thread: ${serial} s."
echo
echo "| outer technique | rank weights | time (s), median | min | max | rows rank 0 / rank 1 (last run) | static split / this |"
echo "| --- | --- | ---: | ---: | ---: | --- | ---: |"
read -r static_time _ < <(stats slow_static)
for o in "${outer_list[@]}"; do
  read -r med lo hi < <(stats "slow_$o")
  weights=$([[ $(declared "$o") == yes ]] && echo "declared 1 : 0.5" || echo "-")
  [[ $o == awf-* ]] && weights="learned"
  r=${rows[slow_$o]}
  echo "| $o | $weights | $med | $lo | $hi | ${r/,/ / } | $(awk -v s="$static_time" -v t="$med" 'BEGIN {printf "%.2fx", s / t}') |"
done

echo
echo "### Hybrid mandelbrot, transports"
echo
echo "| scenario | transport | time (s), median | min | max | rows rank 0 / rank 1 (last run) |"
echo "| --- | --- | ---: | ---: | ---: | --- |"
for scenario in even slowfss; do
  for t in master rma hier; do
    read -r med lo hi < <(stats "${scenario}_$t")
    r=${rows[${scenario}_$t]}
    label=$([[ $scenario == even ]] && echo "even ranks, fss" || echo "rank 1 slowed 2x, fss")
    echo "| $label | $t | $med | $lo | $hi | ${r/,/ / } |"
  done
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# The measurements of docs/results/clusters.md.
#
#   benchmarks/mpi/run_bench_mpi.sh [BUILD_DIR] [REPEAT]
#
# 1. Per-claim cost of each transport: claim_cost (2 ranks x 1 thread, outer
#    ss: every iteration is an outer chunk), latency hiding off and on.
# 2. The hybrid mandelbrot's loop, rank 1 slowed 2x, 2 ranks x 1 thread, on
#    emulated dedicated ranks (mandelbrot_rows: each row's real cost waited
#    out on the wall clock, so other jobs' load does not move the numbers):
#    static split by rank vs unweighted vs weighted (rank 1 declares
#    SELFSCHED_WEIGHTS=0.5) vs adaptive (nothing declared) outer techniques.
# 3. The same under master, rma and hier, with equal ranks and rank 1 slowed,
#    outer fss (few large chunks) and css,4 (many small ones).
# 4. The real mpi_mandelbrot, rank 1 slowed by SELFSCHED_EXAMPLE_SLOWDOWN=0.5
#    (CPU-time based), for a few outer techniques: as the shared machine gives.
# Each row: the median of REPEAT runs (default 5; configurations interleaved
# round by round) of the loop's time on rank 0 (time_s: the shared loop, its
# checkpoint and, for mpi_mandelbrot, the gather of the image), with min and
# max. Prints Markdown.
set -euo pipefail
build=${1:-build}
repeat=${2:-5}
bin=$build/bin
run=$bin/selfsched-mpirun
image=(--width 800 --height 600 --max-iter 2000)
rows_serial=2
rows_image=(--width 400 --height 600 --max-iter 2000 --serial-s $rows_serial)
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

# Two ranks of one thread, rank 1 at half speed: SELFSCHED_WEIGHTS=0.5 on
# rank 1 when the technique is weighted (its declared power), nothing
# otherwise. MPMD: one app context per rank.
weighted() { case $1 in w-*|wf|dfss|dgss|dtss) return 0 ;; *) return 1 ;; esac; }
rows_run() {  # outer technique, transport, speeds (R:F or "even")
  local speed=() weight=()
  [[ $3 != even ]] && speed=(--rank-speed "$3")
  weighted "$1" && [[ $3 != even ]] && weight=(SELFSCHED_WEIGHTS=0.5)
  SELFSCHED_MPI_SCHEDULE=$1 SELFSCHED_MPI_TRANSPORT=$2 SELFSCHED_MPI_NODE_SIZE=1 \
    $run -np 1 $bin/mandelbrot_rows "${rows_image[@]}" "${speed[@]}" \
       : -np 1 env "${weight[@]}" $bin/mandelbrot_rows "${rows_image[@]}" "${speed[@]}"
}
real_run() {  # outer technique: the real kernel, rank 1 slowed by SELFSCHED_EXAMPLE_SLOWDOWN
  local weight=()
  weighted "$1" && weight=(SELFSCHED_WEIGHTS=0.5)
  SELFSCHED_MPI_SCHEDULE=$1 $run -np 1 env SELFSCHED_EXAMPLE_SLOWDOWN=1 $bin/mpi_mandelbrot "${image[@]}" \
       : -np 1 env SELFSCHED_EXAMPLE_SLOWDOWN=0.5 "${weight[@]}" $bin/mpi_mandelbrot "${image[@]}"
}

# Every configuration once per round, `repeat` rounds (interleaved, so a
# change in the machine's load hits all of them alike); each run's time_s,
# the last run's rows per rank.
declare -A times rows
run_rounds() {  # configuration names; config_<name> runs one
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
key() { echo "$1" | tr -c 'a-z0-9_\n' '_'; }      # a technique name as part of a function name

techniques=(static fss gss tss css,8 w-fss w-gss w-tss dfss dgss dtss wf awf-b awf-c af)
names=()
for o in "${techniques[@]}"; do
  eval "config_slow_$(key "$o")() { rows_run '$o' master 1:0.5; }"
  names+=("slow_$(key "$o")")
done
transport_techniques=(fss css,4)
for t in master rma hier; do
  for o in "${transport_techniques[@]}"; do
    eval "config_even_${t}_$(key "$o")() { rows_run '$o' $t even; }"
    eval "config_slow_${t}_$(key "$o")() { rows_run '$o' $t 1:0.5; }"
    names+=("even_${t}_$(key "$o")" "slow_${t}_$(key "$o")")
  done
done
for o in static w-gss awf-c; do
  eval "config_real_$(key "$o")() { real_run '$o'; }"
  names+=("real_$(key "$o")")
done
serial=$(OMP_NUM_THREADS=1 $bin/mandelbrot "${image[@]}" | field time_s)
run_rounds "${names[@]}"

ratio() { awk -v s="$1" -v t="$2" 'BEGIN {printf "%.2fx", s / t}'; }
echo
echo "### Hybrid mandelbrot, rank 1 slowed 2x (emulated dedicated ranks)"
echo
echo "mandelbrot_rows ${rows_image[*]}: 600 rows whose costs are the real escape-step counts, scaled to ${rows_serial} s on one"
echo "full-speed processor, waited out on the wall clock; rank 1 at half speed (--rank-speed 1:0.5). Perfect"
echo "balance: $(awk -v s="$rows_serial" 'BEGIN {printf "%.3f", s / 1.5}') s. Transport master."
echo
echo "| outer technique | rank weights | time (s), median | min | max | rows rank 0 / rank 1 (last run) | static split / this |"
echo "| --- | --- | ---: | ---: | ---: | --- | ---: |"
read -r static_time _ < <(stats slow_static)
for o in "${techniques[@]}"; do
  read -r med lo hi < <(stats "slow_$(key "$o")")
  w="-"
  weighted "$o" && w="declared 1 : 0.5"
  [[ $o == awf-* || $o == af ]] && w="learned (adaptive)"
  r=${rows[slow_$(key "$o")]}
  echo "| $o | $w | $med | $lo | $hi | ${r/,/ / } | $(ratio "$static_time" "$med") |"
done

echo
echo "### Transports (emulated dedicated ranks)"
echo
echo "| scenario | outer technique | transport | time (s), median | min | max | rows rank 0 / rank 1 (last run) |"
echo "| --- | --- | --- | ---: | ---: | ---: | --- |"
for scenario in even slow; do
  for o in "${transport_techniques[@]}"; do
    for t in master rma hier; do
      name="${scenario}_${t}_$(key "$o")"
      read -r med lo hi < <(stats "$name")
      r=${rows[$name]}
      label=$([[ $scenario == even ]] && echo "equal ranks" || echo "rank 1 slowed 2x")
      echo "| $label | $o | $t | $med | $lo | $hi | ${r/,/ / } |"
    done
  done
done

echo
echo "### The real kernel on the shared machine"
echo
echo "mpi_mandelbrot ${image[*]}, rank 1 slowed with SELFSCHED_EXAMPLE_SLOWDOWN=0.5 (CPU time), transport master."
echo "Serial mandelbrot, one thread, same image: ${serial} s."
echo
echo "| outer technique | rank weights | time (s), median | min | max | rows rank 0 / rank 1 (last run) | static split / this |"
echo "| --- | --- | ---: | ---: | ---: | --- | ---: |"
read -r static_time _ < <(stats real_static)
for o in static w-gss awf-c; do
  read -r med lo hi < <(stats "real_$(key "$o")")
  w="-"
  weighted "$o" && w="declared 1 : 0.5"
  [[ $o == awf-* ]] && w="learned (adaptive)"
  r=${rows[real_$(key "$o")]}
  echo "| $o | $w | $med | $lo | $hi | ${r/,/ / } | $(ratio "$static_time" "$med") |"
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

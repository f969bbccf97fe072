#!/bin/sh
# make fuzz: runs every fuzzer of BUILD_DIR for SECONDS each over a scratch
# copy of its corpus (the repository's corpus is only read), and fails on
# the first crash, leak, timeout or memory blow-up. A crash leaves its input
# as crash-* in the scratch directory: add it to tests/fuzz/corpus/<target>/
# with the fix, so that make test keeps it fixed.
#
#   tests/fuzz/run.sh BUILD_DIR SECONDS
set -eu
build=$(cd "$1" && pwd)
seconds=$2
corpus=$(cd "$(dirname "$0")" && pwd)/corpus
scratch=$build/fuzz-scratch
found=0
for fuzzer in "$build"/bin/fuzz_*; do
  case $fuzzer in *_corpus) continue ;; esac
  target=${fuzzer##*/fuzz_}
  mkdir -p "$scratch/$target"
  log=$scratch/$target.log
  if (cd "$scratch/$target" && "$fuzzer" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 . "$corpus/$target" > "$log" 2>&1); then
    echo "$target: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$') inputs in ${seconds} s, no crash"
  else
    found=1
    tail -n 40 "$log"
    echo "$target: FAILED; the input is in $scratch/$target (log: $log)"
  fi
done
exit $found

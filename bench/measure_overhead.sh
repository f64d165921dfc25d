#!/usr/bin/env bash
# What measuring costs: the same steps with --metrics on and off, alternating,
# REPEATS times each; medians and their ratio.
# Usage: bench/measure_overhead.sh [REPEATS]   (default 5)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
REPEATS=${1:-5}
declare -A runs=(
  [null-readrandom]="-e null -s readrandom -n 1000000 --ops 50000000"
  [rocksdb-readrandom]="-e rocksdb -s fillseq,readrandom -n 1000000"
)
echo "| workload | metrics on ops/s (median) | metrics off ops/s (median) | on/off |"
echo "|---|---:|---:|---:|"
for name in null-readrandom rocksdb-readrandom; do
  on=(); off=()
  for i in $(seq "$REPEATS"); do
    for m in on off; do
      out="$SCRATCH/ovh-$name-$m"; rm -rf "$out"
      "$RUMBENCH" run ${runs[$name]} --metrics $m --progress off -d "$out" >/dev/null 2>&1
      v=$(jget "$out" 'step("readrandom")["ops_s"]')
      if [ $m = on ]; then on+=("$v"); else off+=("$v"); fi
    done
  done
  python3 -c "
import statistics as s
on=[${on[*]/%/,}]; off=[${off[*]/%/,}]
a,b=s.median(on),s.median(off)
print(f'| $name | {a:.0f} | {b:.0f} | {a/b:.3f} |')"
done

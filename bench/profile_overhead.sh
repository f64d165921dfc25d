#!/usr/bin/env bash
# What --profile costs what it measures (issue 44, item 5): the same run with
# and without --profile, alternating (pair i runs profiled first when i is odd,
# unprofiled first when even), REPEATS pairs; per pair the ratio profiled /
# unprofiled of the step's throughput, rumbench's own CPU per operation (the
# config process: client and embedded engine; perf is a process of its own and
# not in it) and the host's CPU per operation (everything, perf included);
# the median ratio and its [min, max] over the pairs.
#
# Usage: bench/profile_overhead.sh [REPEATS] [HZ] [ONLY] [SCOPE]   (default 5 pairs, 99 Hz, --profile's default;
#        ONLY = rocksdb or postgres: that run alone, or all;
#        SCOPE = per-cpu or per-thread: perf's events ($RUMBENCH_PROFILE_SCOPE), else what this user may use)
# Writes bench/results/profile_overhead-<date>.md and prints it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
REPEATS=${1:-5}
HZ=${2:-99}
ONLY=${3:-}
[ "$ONLY" = all ] && ONLY=""
SCOPE=${4:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/bench/results/profile_overhead-$(date -u +%Y%m%d-%H%M).md"
# name | rumbench arguments | steps measured
CASES=(
  "rocksdb|-e rocksdb -s fillrandom,readrandom -n 2000000|fillrandom readrandom"
  "postgres|-e postgres -s l.i0,l.x,l.i1 --rows 1000000 --insert-rows 200000|l.i1"
)
if [ -n "$ONLY" ]; then
  for c in "${CASES[@]}"; do [ "${c%%|*}" = "$ONLY" ] && kept=("$c"); done
  CASES=("${kept[@]}")
fi
declare -A ratios   # "case step metric" -> space-separated ratios
for i in $(seq "$REPEATS"); do
  if [ $((i % 2)) = 1 ]; then order="on off"; else order="off on"; fi
  for c in "${CASES[@]}"; do
    IFS='|' read -r name args steps <<<"$c"
    for mode in $order; do
      out="$SCRATCH/profovh-$name-$mode"; rm -rf "$out"
      flag=""; [ "$mode" = on ] && flag="--profile --profile-hz $HZ"
      # shellcheck disable=SC2086
      RUMBENCH_PROFILE_SCOPE="$SCOPE" "$RUMBENCH" run $args $flag --progress off -d "$out" >"$SCRATCH/profovh-$name-$mode.log" 2>&1 \
        || { echo "run failed: $RUMBENCH run $args $flag (log: $SCRATCH/profovh-$name-$mode.log)" >&2; exit 1; }
    done
    for step in $steps; do
      for metric in ops_s client_cpu_us_op host_cpu_us_op; do
        if [ $metric = ops_s ]; then expr="step('$step')['ops_s']"; else expr="step('$step')['metrics'].get('$metric')"; fi
        on=$(jget "$SCRATCH/profovh-$name-on" "$expr"); off=$(jget "$SCRATCH/profovh-$name-off" "$expr")
        r=$(python3 -c "print('-' if '-' in ('$on','$off') else f'{$on/$off:.4f}')")
        ratios["$name $step $metric"]+="$r "
      done
      samples=$(jget "$SCRATCH/profovh-$name-on" "step('$step')['profile']['samples']")
      scope=$(jget "$SCRATCH/profovh-$name-on" "step('$step')['profile'].get('scope')")
      echo "pair $i ($order): $name $step: ops/s ratio $(echo ${ratios["$name $step ops_s"]} | awk '{print $NF}'), profile samples $samples ($scope)" >&2
    done
  done
done
{
  echo "# --profile's cost: profiled / unprofiled, $REPEATS alternating pairs at $HZ Hz, $scope events"
  echo
  echo "\`bench/profile_overhead.sh $REPEATS $HZ ${ONLY:-all} $SCOPE\` on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC'), rumbench $(jget "$SCRATCH/profovh-${CASES[0]%%|*}-on" 'r.get("git_commit")'), load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "| run | step | ops/s ratio median [min, max] | rumbench CPU/op ratio | host CPU/op ratio |"
  echo "|---|---|---|---|---|"
  for c in "${CASES[@]}"; do
    IFS='|' read -r name args steps <<<"$c"
    for step in $steps; do
      row="| \`$args\` | $step"
      for metric in ops_s client_cpu_us_op host_cpu_us_op; do
        row+=" | $(python3 -c "
import statistics as s
v=[float(x) for x in '${ratios["$name $step $metric"]}'.split() if x!='-']
print(f'{s.median(v):.3f} [{min(v):.3f}, {max(v):.3f}]' if v else 'not measured')")"
      done
      echo "$row |"
    done
  done
  echo
  echo "Each pair's ratios, in order:"
  echo
  for c in "${CASES[@]}"; do
    IFS='|' read -r name args steps <<<"$c"
    for step in $steps; do
      for metric in ops_s client_cpu_us_op host_cpu_us_op; do echo "- $name $step $metric: ${ratios["$name $step $metric"]}"; done
    done
  done
} | tee "$OUT"

#!/usr/bin/env bash
# The SLO search against an answer known in advance: the null engine with a
# fixed service time (spin_ns) on one client thread has a capacity of
# 1e9 / spin_ns operations per second (less the client's own cost per
# call), and with paced arrivals its p99 stays at the service time up to
# that capacity, so the highest rate with p99 under a limit well above the
# service time is the capacity. Goal (issue 56): the rate found within 5% of
# 1e9 / spin_ns.
# Usage: bench/slo_null.sh [SPIN_NS=20000] [ROUNDS=3] [PROBE_SECONDS=3] [LIMIT=1ms]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
SPIN=${1:-20000}; ROUNDS=${2:-3}; SECS=${3:-3}; LIMIT=${4:-1ms}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
out="$ROOT/bench/results/slo_null-$(date -u +%Y%m%d-%H%M).md"
want=$(python3 -c "print(1e9 / $SPIN)")
{
  echo "# SLO search on the null engine (spin_ns=$SPIN: $want ops/s analytically), p99 <= $LIMIT"
  echo
  echo '```sh'
  echo "bench/slo_null.sh $SPIN $ROUNDS $SECS $LIMIT"
  echo '```'
  echo
  echo "| round | closed loop ops/s | rate found | interval | probes | found / analytical |"
  echo "|---:|---:|---:|---|---:|---:|"
  for round in $(seq "$ROUNDS"); do
    dir="$SCRATCH/slo-null-$round"; rm -rf "$dir"
    "$RUMBENCH" run -e null -o "spin_ns=$SPIN" -s fillseq,readrandom -n 100000 --seconds "$SECS" \
      --slo "p99=$LIMIT" --progress off --no-history -d "$dir" >/dev/null 2>&1
    python3 - "$dir/result.json" "$round" "$want" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = next(x for x in r["configs"][0]["steps"] if x["name"] == "readrandom")["slo"]
want = float(sys.argv[3])
rate = s["rate_ops_s"]
hi = s.get("missed_ops_s")
interval = f"[{s['met_ops_s']:.0f}, {hi:.0f}]" if hi else f"[{s['met_ops_s']:.0f}, -]"
print(f"| {sys.argv[2]} | {s['capacity_ops_s']:.0f} | {rate:.0f} | {interval} | {len(s['probes'])} | {rate / want:.3f} |")
PY
  done
} >"$out"
cat "$out"
echo "wrote $out" >&2

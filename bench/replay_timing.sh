#!/usr/bin/env bash
# Replay's two goals (issue 56): the same calls in the same order (the
# replay's checksum over the calls it made equals the recording's), and at
# 10k ops/s the p99 timing error against the recorded schedule under 1 ms.
# Each round records SECONDS of readrandom on the null engine paced at RATE
# (2 clients), replays the trace at its recorded timing on the null engine
# and on RocksDB, and reads how late each replayed call started against its
# recorded moment.
# Usage: bench/replay_timing.sh [RATE=10000] [SECONDS=10] [ROUNDS=3]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
RATE=${1:-10000}; SECS=${2:-10}; ROUNDS=${3:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export RUMBENCH_TEST_ENGINES=1
out="$ROOT/bench/results/replay_timing-$(date -u +%Y%m%d-%H%M).md"
{
  echo "# Replay at the recorded timing: $RATE ops/s for $SECS s, 2 clients"
  echo
  echo '```sh'
  echo "bench/replay_timing.sh $RATE $SECS $ROUNDS"
  echo '```'
  echo
  echo "| round | engine | calls | same calls | lateness p50 us | p99 us | p99.9 us | max us | replay ops/s |"
  echo "|---:|---|---:|---|---:|---:|---:|---:|---:|"
  for round in $(seq "$ROUNDS"); do
    dir="$SCRATCH/replay-timing-$round"; rm -rf "$dir"; mkdir -p "$dir"
    "$RUMBENCH" run -e null -s fillseq,readrandom -n 100000 --ops 100000 --threads 2 \
      --rate "$RATE" --seconds "$SECS" --trace "$dir/t.rtrace" \
      --progress off --no-history -d "$dir/recorded" >/dev/null 2>&1
    trace="$dir/t.null.2-readrandom.rtrace"
    for engine in null rocksdb; do
      "$RUMBENCH" replay "$trace" -e "$engine" -s fillseq,replay -n 100000 \
        --progress off --no-history -d "$dir/$engine" >/dev/null 2>&1
      python3 - "$dir/$engine/result.json" "$round" "$engine" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = next(s for s in r["configs"][0]["steps"] if s["name"] == "replay")
x = s["replay"]; l = x["start_lateness"]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {x['replayed']} | {x['same_calls']} | {l['p50_us']:.1f} | {l['p99_us']:.1f} | {l['p999_us']:.1f} | {l['max_us']:.0f} | {s['ops_s']:.0f} |")
PY
    done
    rm -f "$dir"/*.rtrace
  done
} | tee "$out"
echo "written: $out"

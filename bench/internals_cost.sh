#!/usr/bin/env bash
# What sampling the engine's counters each second costs (--internals, issue
# 56: under 1% of ops/s): readrandom on RocksDB with --internals on and off
# in alternating pairs (ratio of ops/s), and the sampler's own time asking
# RocksDB, per second of the step (result.json: internals.sampling_us).
# Usage: bench/internals_cost.sh [PAIRS=5] [NUM=1000000] [SECONDS=10] [THREADS=2]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
PAIRS=${1:-5}; NUM=${2:-1000000}; SECS=${3:-10}; THREADS=${4:-2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
out="$ROOT/bench/results/internals_cost-$(date -u +%Y%m%d-%H%M).md"
d="$SCRATCH/internals-cost"
suite="$d.toml"
cat > "$suite" <<TOML
[[step]]
name = "fillseq"
[[step]]
name = "waitforcompaction"
[[step]]
name = "readrandom"
seconds = $SECS
TOML
run() { # DIR on|off: "ops/s sampling-us-per-second"
  rm -rf "$1"
  "$RUMBENCH" run -e rocksdb -c "$suite" -n "$NUM" --threads "$THREADS" --internals "$2" \
    --progress off --no-history -d "$1" >/dev/null 2>&1
  python3 - "$1/result.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = next(s for s in r["configs"][0]["steps"] if s["name"] == "readrandom")
i = s.get("internals")
print(f"{s['ops_s']:.0f} {i['sampling_us'] / s['wall_s'] if i else 0:.1f}")
PY
}
{
  echo "# The cost of --internals: RocksDB readrandom, $NUM keys, $THREADS threads, $SECS s, alternating pairs"
  echo
  echo '```sh'
  echo "bench/internals_cost.sh $PAIRS $NUM $SECS $THREADS"
  echo '```'
  echo
  echo "| pair | ops/s off | ops/s on | on / off | sampler us per second |"
  echo "|---:|---:|---:|---:|---:|"
  for pair in $(seq "$PAIRS"); do
    mkdir -p "$d"
    if [ $((pair % 2)) = 1 ]; then
      read -r off _ < <(run "$d/off" off); read -r on us < <(run "$d/on" on)
    else
      read -r on us < <(run "$d/on" on); read -r off _ < <(run "$d/off" off)
    fi
    python3 -c "print(f'| $pair | $off | $on | {$on/$off:.3f} | $us |')"
    rm -rf "$d"
  done
  rm -f "$suite"
} | tee "$out"
echo "written: $out"
